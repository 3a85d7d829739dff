-- +goose Up
CREATE TABLE users (
    id            VARCHAR(32)  NOT NULL PRIMARY KEY,
    username      VARCHAR(64)  NOT NULL,
    password_hash VARCHAR(100) NOT NULL,
    real_name     VARCHAR(64)  NOT NULL DEFAULT '',
    phone         VARCHAR(32)  NOT NULL DEFAULT '',
    mail          VARCHAR(128) NOT NULL DEFAULT '',
    is_admin      BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at    DATETIME(3)  NOT NULL,
    updated_at    DATETIME(3)  NOT NULL
);
CREATE UNIQUE INDEX uk_users_username ON users (username);

-- The row with k = 'first-admin' can be inserted once: the registration
-- that inserts it becomes admin, even when two instances race on an empty
-- database.
CREATE TABLE app_meta (
    k          VARCHAR(64)  NOT NULL PRIMARY KEY,
    v          VARCHAR(255) NOT NULL,
    created_at DATETIME(3)  NOT NULL
);

-- Tokens are stored as the SHA-256 of the opaque token the client holds.
CREATE TABLE auth_tokens (
    token_hash   CHAR(64)    NOT NULL PRIMARY KEY,
    user_id      VARCHAR(32) NOT NULL,
    created_at   DATETIME(3) NOT NULL,
    last_used_at DATETIME(3) NOT NULL,
    expires_at   DATETIME(3) NOT NULL,
    revoked_at   DATETIME(3) NULL
);
CREATE INDEX idx_auth_tokens_user ON auth_tokens (user_id);

-- +goose Down
DROP TABLE auth_tokens;
DROP TABLE app_meta;
DROP TABLE users;
