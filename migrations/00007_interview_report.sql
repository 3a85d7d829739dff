-- +goose Up
-- Demeanor results per photo; the same photo counts once per session.
CREATE TABLE interview_demeanor (
    id           VARCHAR(32) NOT NULL PRIMARY KEY,
    session_id   VARCHAR(32) NOT NULL,
    image_sha256 CHAR(64)    NOT NULL,
    assessed     BOOLEAN     NOT NULL,
    panic        INT         NULL,
    seriousness  INT         NULL,
    emoticon     INT         NULL,
    composite    INT         NULL,
    created_at   DATETIME(3) NOT NULL
);
CREATE UNIQUE INDEX uk_interview_demeanor_image ON interview_demeanor (session_id, image_sha256);

-- The report written once when a session is finished.
CREATE TABLE interview_reports (
    session_id       VARCHAR(32)  NOT NULL PRIMARY KEY,
    user_id          VARCHAR(32)  NOT NULL,
    interview_score  INT          NULL,
    resume_score     INT          NULL,
    direction        VARCHAR(128) NOT NULL DEFAULT '',
    question_count   INT          NOT NULL,
    duration_seconds BIGINT       NOT NULL,
    report           LONGTEXT     NOT NULL,
    created_at       DATETIME(3)  NOT NULL
);
CREATE INDEX idx_interview_reports_user ON interview_reports (user_id, created_at);

-- +goose Down
DROP TABLE interview_reports;
DROP TABLE interview_demeanor;
