-- +goose Up
-- Mock interviews. The database is the source of truth; every flow change
-- is a compare-and-set on flow_version.
CREATE TABLE interview_sessions (
    id              VARCHAR(32)  NOT NULL PRIMARY KEY,
    user_id         VARCHAR(32)  NOT NULL,
    status          VARCHAR(20)  NOT NULL,
    flow            VARCHAR(20)  NOT NULL DEFAULT '',
    flow_version    BIGINT       NOT NULL DEFAULT 0,
    flow_request_id VARCHAR(80)  NOT NULL DEFAULT '',
    flow_updated_at DATETIME(3)  NULL,
    upload_hash     VARCHAR(64)  NOT NULL DEFAULT '',
    current_number  VARCHAR(16)  NOT NULL DEFAULT '',
    interview_type  VARCHAR(128) NOT NULL DEFAULT '',
    target          VARCHAR(128) NOT NULL DEFAULT '',
    resume_score    INT          NULL,
    resume_file_id  VARCHAR(32)  NOT NULL DEFAULT '',
    suggestions     TEXT         NULL,
    profile         LONGTEXT     NULL,
    offline         BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at      DATETIME(3)  NOT NULL,
    updated_at      DATETIME(3)  NOT NULL,
    started_at      DATETIME(3)  NULL,
    finished_at     DATETIME(3)  NULL
);
CREATE INDEX idx_interview_sessions_user ON interview_sessions (user_id, created_at);
CREATE INDEX idx_interview_sessions_user_status ON interview_sessions (user_id, status);

-- Uploaded resumes; the bytes live under <data-dir>/uploads/, named by id.
CREATE TABLE interview_files (
    id         VARCHAR(32)  NOT NULL PRIMARY KEY,
    user_id    VARCHAR(32)  NOT NULL,
    session_id VARCHAR(32)  NOT NULL,
    filename   VARCHAR(255) NOT NULL DEFAULT '',
    mime       VARCHAR(100) NOT NULL,
    size       BIGINT       NOT NULL,
    sha256     CHAR(64)     NOT NULL,
    path       VARCHAR(255) NOT NULL,
    text       LONGTEXT     NULL,
    created_at DATETIME(3)  NOT NULL
);
CREATE INDEX idx_interview_files_session ON interview_files (session_id);

-- Main questions ("1".."N") and follow-ups ("3-F1") with their rubric.
CREATE TABLE interview_questions (
    session_id   VARCHAR(32) NOT NULL,
    number       VARCHAR(16) NOT NULL,
    seq          INT         NOT NULL,
    content      TEXT        NOT NULL,
    spec         LONGTEXT    NULL,
    is_follow_up BOOLEAN     NOT NULL DEFAULT FALSE,
    parent_no    VARCHAR(16) NOT NULL DEFAULT '',
    targets      TEXT        NULL,
    created_at   DATETIME(3) NOT NULL,
    PRIMARY KEY (session_id, number)
);

-- Answers with every judgment, the reason codes and the response replayed
-- for the same requestId.
CREATE TABLE interview_turns (
    id              VARCHAR(32)  NOT NULL PRIMARY KEY,
    session_id      VARCHAR(32)  NOT NULL,
    question_number VARCHAR(16)  NOT NULL,
    request_id      VARCHAR(80)  NOT NULL,
    answer          TEXT         NOT NULL,
    status          VARCHAR(16)  NOT NULL,
    score           INT          NULL,
    scored          TEXT         NULL,
    evaluation      LONGTEXT     NULL,
    review          LONGTEXT     NULL,
    review_reason   VARCHAR(64)  NOT NULL DEFAULT '',
    feedback        TEXT         NULL,
    follow_up       TEXT         NULL,
    prompt_version  VARCHAR(64)  NOT NULL DEFAULT '',
    error_message   TEXT         NULL,
    response        LONGTEXT     NULL,
    created_at      DATETIME(3)  NOT NULL,
    updated_at      DATETIME(3)  NOT NULL
);
CREATE UNIQUE INDEX uk_interview_turns_request ON interview_turns (session_id, request_id);
CREATE INDEX idx_interview_turns_question ON interview_turns (session_id, question_number);

-- +goose Down
DROP TABLE interview_turns;
DROP TABLE interview_questions;
DROP TABLE interview_files;
DROP TABLE interview_sessions;
