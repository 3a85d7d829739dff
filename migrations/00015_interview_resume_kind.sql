-- +goose Up
-- The kind of the session's resume file (pdf, docx, txt, md, jpeg, png,
-- webp), so that the page says "Word" rather than "plain text" for a
-- .docx. Empty for older sessions.
ALTER TABLE interview_sessions ADD COLUMN resume_kind VARCHAR(8) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE interview_sessions DROP COLUMN resume_kind;
