-- +goose Up
-- The user's interface language (issue 17): "zh-CN", "en", or '' when the
-- user has not chosen one (the web page then follows the browser).
ALTER TABLE users ADD COLUMN language VARCHAR(8) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN language;
