-- +goose Up
-- Fields the original AI-Meeting had (issue 20). Provider configurations
-- keep an API secret (write-only through the API, like api_key) and the
-- OpenAI project and organization sent as headers; an account imported
-- from the original with its plain-text password must change it at the
-- first login.
ALTER TABLE ai_properties ADD COLUMN api_secret VARCHAR(512) NOT NULL DEFAULT '';
ALTER TABLE ai_properties ADD COLUMN project_id VARCHAR(255) NOT NULL DEFAULT '';
ALTER TABLE ai_properties ADD COLUMN organization_id VARCHAR(255) NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN must_change_password BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE users DROP COLUMN must_change_password;
ALTER TABLE ai_properties DROP COLUMN organization_id;
ALTER TABLE ai_properties DROP COLUMN project_id;
ALTER TABLE ai_properties DROP COLUMN api_secret;
