-- The original AI-Meeting's tables that `aimeeting import` reads, written
-- from ../shared/design/original.md (which lists columns, types, defaults
-- and indexes as read from the original's source; its DDL files were not
-- available). Assumptions, where original.md says nothing:
--   * every table has `id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY`;
--   * create_time/update_time are DATETIME NULL where no default is given;
--   * real_name and mail of t_user, api_url and model_name of ai_properties
--     are VARCHAR(256) NULL (only the listed lengths are known);
--   * project_id and organization_id of ai_properties come last (the
--     original added them later; the import also reads databases without);
--   * the character set is utf8mb4.
-- Statements are separated by a semicolon at the end of a line.

CREATE TABLE t_user (
    id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    username      VARCHAR(256) NULL,
    password      VARCHAR(512) NULL,
    real_name     VARCHAR(256) NULL,
    phone         VARCHAR(128) NULL,
    mail          VARCHAR(512) NULL,
    deletion_time BIGINT       NULL,
    create_time   DATETIME     NULL,
    update_time   DATETIME     NULL,
    del_flag      TINYINT(1)   NULL,
    UNIQUE KEY idx_unique_username (username)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE admin_permission (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    user_id     BIGINT       NOT NULL,
    username    VARCHAR(256) NOT NULL,
    is_admin    TINYINT(1)   DEFAULT 0,
    create_time DATETIME     NULL,
    update_time DATETIME     NULL,
    del_flag    TINYINT(1)   DEFAULT 0,
    UNIQUE KEY uk_user_id (user_id),
    KEY idx_is_admin (is_admin),
    KEY idx_username (username)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE ai_properties (
    id                     BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    ai_name                VARCHAR(256)  NOT NULL,
    ai_type                VARCHAR(64)   NOT NULL,
    api_key                VARCHAR(512)  NOT NULL,
    api_secret             VARCHAR(512)  NULL,
    api_url                VARCHAR(256)  NULL,
    model_name             VARCHAR(256)  NULL,
    max_tokens             INT           DEFAULT 4096,
    temperature            DECIMAL(3, 2) DEFAULT 0.70,
    system_prompt          TEXT          NULL,
    is_enabled             TINYINT(1)    DEFAULT 1,
    enable_thinking        TINYINT(1)    DEFAULT 0,
    thinking_budget_tokens INT           NULL,
    create_time            DATETIME      NULL,
    update_time            DATETIME      NULL,
    del_flag               TINYINT(1)    DEFAULT 0,
    project_id             VARCHAR(255)  NULL,
    organization_id        VARCHAR(255)  NULL,
    KEY idx_ai_type (ai_type),
    KEY idx_create_time (create_time)
) DEFAULT CHARSET = utf8mb4;

CREATE TABLE agent_properties (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    agent_name  VARCHAR(256) NULL,
    api_secret  VARCHAR(256) NULL,
    api_key     VARCHAR(512) NULL,
    api_flow_id VARCHAR(256) NULL,
    create_time DATETIME     NULL,
    update_time DATETIME     NULL,
    del_flag    TINYINT(1)   NULL
) DEFAULT CHARSET = utf8mb4;
