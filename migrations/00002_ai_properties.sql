-- +goose Up
-- Model provider configurations (api.md "AI provider configs"). api_key is
-- write-only through the API.
CREATE TABLE ai_properties (
    id            VARCHAR(32)   NOT NULL PRIMARY KEY,
    ai_name       VARCHAR(64)   NOT NULL,
    ai_type       VARCHAR(16)   NOT NULL,
    api_key       VARCHAR(512)  NOT NULL DEFAULT '',
    api_url       VARCHAR(512)  NOT NULL DEFAULT '',
    model_name    VARCHAR(128)  NOT NULL DEFAULT '',
    max_tokens    INT           NOT NULL DEFAULT 0,
    temperature   DOUBLE        NULL,
    system_prompt TEXT          NULL,
    supports_vision BOOLEAN     NOT NULL DEFAULT FALSE,
    is_enabled    BOOLEAN       NOT NULL DEFAULT TRUE,
    created_by    VARCHAR(32)   NOT NULL DEFAULT '',
    created_at    DATETIME(3)   NOT NULL,
    updated_at    DATETIME(3)   NOT NULL
);
CREATE UNIQUE INDEX uk_ai_properties_name ON ai_properties (ai_name);

-- +goose Down
DROP TABLE ai_properties;
