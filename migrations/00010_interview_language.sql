-- +goose Up
-- The language of an interview session (issue 17): "zh-CN" or "en", from
-- the upload's language field or detected from the resume text. Questions,
-- feedback and the report are written in it. Older sessions are English.
ALTER TABLE interview_sessions ADD COLUMN language VARCHAR(8) NOT NULL DEFAULT 'en';

-- +goose Down
ALTER TABLE interview_sessions DROP COLUMN language;
