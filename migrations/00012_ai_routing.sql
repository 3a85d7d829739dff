-- +goose Up
-- Per-stage model routing (issue 18): the ordered ai_properties ids a stage
-- tries, comma separated. A stage without a row uses the default provider.
CREATE TABLE ai_routes (
    stage      VARCHAR(48)   NOT NULL PRIMARY KEY,
    ai_ids     VARCHAR(1024) NOT NULL,
    updated_at DATETIME(3)   NOT NULL
);

-- One row per model call (outcome ok, retryable, failed or fallback) or per
-- call that single-flight saved (outcome saved, no model, no tokens).
-- estimated marks token counts guessed from the text because the provider
-- reported none. session_id is the interview session or chat conversation.
CREATE TABLE ai_usage (
    id                VARCHAR(32)  NOT NULL PRIMARY KEY,
    created_at        DATETIME(3)  NOT NULL,
    stage             VARCHAR(48)  NOT NULL,
    ai_id             VARCHAR(32)  NOT NULL DEFAULT '',
    model             VARCHAR(128) NOT NULL DEFAULT '',
    prompt_tokens     INT          NOT NULL DEFAULT 0,
    completion_tokens INT          NOT NULL DEFAULT 0,
    estimated         BOOLEAN      NOT NULL DEFAULT FALSE,
    latency_ms        INT          NOT NULL DEFAULT 0,
    outcome           VARCHAR(16)  NOT NULL,
    session_id        VARCHAR(32)  NOT NULL DEFAULT '',
    conversation_id   VARCHAR(32)  NOT NULL DEFAULT ''
);
CREATE INDEX idx_ai_usage_time ON ai_usage (created_at);

-- +goose Down
DROP TABLE ai_usage;
DROP TABLE ai_routes;
