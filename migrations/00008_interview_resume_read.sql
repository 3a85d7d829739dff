-- +goose Up
-- What was read from the session's resume (issue 14): characters, pages,
-- where the text came from (text layer, OCR or both) and the pages read by
-- OCR. An empty resume_source means "not recorded" (older sessions).
ALTER TABLE interview_sessions ADD COLUMN resume_chars INT NOT NULL DEFAULT 0;
ALTER TABLE interview_sessions ADD COLUMN resume_pages INT NOT NULL DEFAULT 0;
ALTER TABLE interview_sessions ADD COLUMN resume_source VARCHAR(16) NOT NULL DEFAULT '';
ALTER TABLE interview_sessions ADD COLUMN resume_ocr_pages INT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE interview_sessions DROP COLUMN resume_ocr_pages;
ALTER TABLE interview_sessions DROP COLUMN resume_source;
ALTER TABLE interview_sessions DROP COLUMN resume_pages;
ALTER TABLE interview_sessions DROP COLUMN resume_chars;
