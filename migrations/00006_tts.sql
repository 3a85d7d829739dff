-- +goose Up
-- Long-text TTS tasks. The row is the task's whole shared state: any
-- instance answers GET and the events stream from it, and the worker of the
-- instance named by owner holds it while lease_until is in the future
-- (renewed by heartbeats). A row in status 1 or 3 whose lease has expired is
-- claimed again by any worker (resume after a crash); attempts counts claims.
-- audio_key is the SHA-256 of text and parameters: the finished audio is
-- <data-dir>/tts/audio/<audio_key>.<encoding>, shared by identical tasks.
CREATE TABLE tts_tasks (
    id             VARCHAR(32)   NOT NULL PRIMARY KEY,
    user_id        VARCHAR(32)   NOT NULL,
    text           LONGTEXT      NOT NULL,
    params         TEXT          NOT NULL,
    audio_key      CHAR(64)      NOT NULL,
    status         INT           NOT NULL,
    segments_done  INT           NOT NULL DEFAULT 0,
    segments_total INT           NOT NULL DEFAULT 0,
    duration_ms    BIGINT        NOT NULL DEFAULT 0,
    audio_bytes    BIGINT        NOT NULL DEFAULT 0,
    error_message  VARCHAR(1024) NOT NULL DEFAULT '',
    owner          VARCHAR(128)  NOT NULL DEFAULT '',
    lease_until    DATETIME(3)   NULL,
    attempts       INT           NOT NULL DEFAULT 0,
    created_at     DATETIME(3)   NOT NULL,
    updated_at     DATETIME(3)   NOT NULL,
    finished_at    DATETIME(3)   NULL
);
CREATE INDEX idx_tts_tasks_user ON tts_tasks (user_id, created_at);
CREATE INDEX idx_tts_tasks_status ON tts_tasks (status, lease_until);
CREATE INDEX idx_tts_tasks_key ON tts_tasks (audio_key);

-- +goose Down
DROP TABLE tts_tasks;
