-- +goose Up
-- The AI trace of an interview (issue 20): one row per AI stage call
-- (profile, extraction, evaluation, review, follow-up, demeanor) with the
-- model, prompt version, latency, token usage, single-flight outcome, the parsed result
-- and the model's raw text, both bounded and with credentials masked.
-- Downloaded as JSONL by the session's owner or an admin.
CREATE TABLE interview_traces (
    id              VARCHAR(32)  NOT NULL PRIMARY KEY,
    session_id      VARCHAR(32)  NOT NULL,
    stage           VARCHAR(64)  NOT NULL,
    question_number VARCHAR(16)  NOT NULL DEFAULT '',
    provider        VARCHAR(32)  NOT NULL DEFAULT '',
    model           VARCHAR(128) NOT NULL DEFAULT '',
    prompt_version  VARCHAR(64)  NOT NULL DEFAULT '',
    latency_ms      BIGINT       NOT NULL,
    prompt_tokens   INT          NOT NULL DEFAULT 0,
    completion_tokens INT        NOT NULL DEFAULT 0,
    outcome         VARCHAR(32)  NOT NULL DEFAULT '',
    error           TEXT         NULL,
    parsed          LONGTEXT     NULL,
    raw             LONGTEXT     NULL,
    raw_truncated   BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at      DATETIME(3)  NOT NULL
);
CREATE INDEX idx_interview_traces_session ON interview_traces (session_id, created_at);

-- +goose Down
DROP TABLE interview_traces;
