-- +goose Up
-- Agent configurations (api.md "Agents"). tag_codes is stored as
-- ",1,5," so that a tag filter is a portable LIKE '%,5,%'.
CREATE TABLE agent_properties (
    id            VARCHAR(32)  NOT NULL PRIMARY KEY,
    agent_name    VARCHAR(64)  NOT NULL,
    description   TEXT         NULL,
    system_prompt LONGTEXT     NULL,
    ai_id         VARCHAR(32)  NOT NULL DEFAULT '',
    model_name    VARCHAR(128) NOT NULL DEFAULT '',
    temperature   DOUBLE       NULL,
    tag_codes     VARCHAR(255) NOT NULL DEFAULT '',
    built_in      BOOLEAN      NOT NULL DEFAULT FALSE,
    created_by    VARCHAR(32)  NOT NULL DEFAULT '',
    created_at    DATETIME(3)  NOT NULL,
    updated_at    DATETIME(3)  NOT NULL
);
CREATE UNIQUE INDEX uk_agent_properties_name ON agent_properties (agent_name);

-- Files users gave their agents. The bytes live under
-- <data-dir>/uploads/agent/<user_id>/<id>; the extracted text is here.
CREATE TABLE agent_files (
    id         VARCHAR(32)  NOT NULL PRIMARY KEY,
    user_id    VARCHAR(32)  NOT NULL,
    session_id VARCHAR(32)  NOT NULL DEFAULT '',
    biz_type   VARCHAR(32)  NOT NULL DEFAULT '',
    file_name  VARCHAR(255) NOT NULL DEFAULT '',
    mime       VARCHAR(100) NOT NULL,
    size       BIGINT       NOT NULL,
    sha256     CHAR(64)     NOT NULL,
    chars      INT          NOT NULL,
    truncated  BOOLEAN      NOT NULL DEFAULT FALSE,
    text       LONGTEXT     NULL,
    created_at DATETIME(3)  NOT NULL
);
CREATE INDEX idx_agent_files_user ON agent_files (user_id, created_at);
CREATE INDEX idx_agent_files_session ON agent_files (session_id, created_at);

-- +goose Down
DROP TABLE agent_files;
DROP TABLE agent_properties;
