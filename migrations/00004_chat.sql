-- +goose Up
-- AI chat and agent conversations (api.md "AI chat", "Agents"). A
-- conversation with an agent_id is an agent session; the same message
-- machinery serves both. Rows are soft-deleted (deleted_at).
--
-- next_seq is the next free message sequence number: a message exchange
-- reserves two numbers (user message, answer) by incrementing it inside a
-- transaction, which the database serialises per row across instances;
-- uk_chat_messages_seq makes a duplicate impossible anyway.
CREATE TABLE chat_conversations (
    id              VARCHAR(32)  NOT NULL PRIMARY KEY,
    user_id         VARCHAR(32)  NOT NULL,
    agent_id        VARCHAR(32)  NOT NULL DEFAULT '',
    agent_name      VARCHAR(64)  NOT NULL DEFAULT '',
    ai_id           VARCHAR(32)  NOT NULL DEFAULT '',
    ai_name         VARCHAR(128) NOT NULL DEFAULT '',
    title           VARCHAR(128) NOT NULL,
    status          VARCHAR(16)  NOT NULL,
    next_seq        BIGINT       NOT NULL DEFAULT 1,
    message_count   INT          NOT NULL DEFAULT 0,
    last_message_at DATETIME(3)  NULL,
    created_at      DATETIME(3)  NOT NULL,
    updated_at      DATETIME(3)  NOT NULL,
    deleted_at      DATETIME(3)  NULL
);
CREATE INDEX idx_chat_conversations_user ON chat_conversations (user_id, updated_at);

-- message_type: 1 user, 2 AI. error_message marks failed or partial answers.
CREATE TABLE chat_messages (
    id                VARCHAR(32)  NOT NULL PRIMARY KEY,
    conversation_id   VARCHAR(32)  NOT NULL,
    user_id           VARCHAR(32)  NOT NULL,
    message_seq       BIGINT       NOT NULL,
    message_type      INT          NOT NULL,
    content           LONGTEXT     NULL,
    reasoning_content LONGTEXT     NULL,
    token_count       INT          NOT NULL DEFAULT 0,
    response_time_ms  BIGINT       NOT NULL DEFAULT 0,
    error_message     VARCHAR(512) NOT NULL DEFAULT '',
    offline           BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at        DATETIME(3)  NOT NULL,
    deleted_at        DATETIME(3)  NULL
);
CREATE UNIQUE INDEX uk_chat_messages_seq ON chat_messages (conversation_id, message_seq);
CREATE INDEX idx_chat_messages_user ON chat_messages (user_id, created_at);

-- +goose Down
DROP TABLE chat_messages;
DROP TABLE chat_conversations;
