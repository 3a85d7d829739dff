-- +goose Up
-- Usernames accept letters of any script (issue 17); username_key is the
-- canonical form that makes them unique (NFKC, case folded, Cyrillic and
-- Greek look-alikes of Latin letters mapped to Latin: users.UsernameKey),
-- so that "alice", "ＡＬＩＣＥ" and "аlice" (Cyrillic а) cannot all exist.
-- Existing usernames are ASCII ([A-Za-z0-9_.-]), whose key is the
-- lower-cased name, so SQL computes it here. Where older names differ only
-- in case (possible on SQLite), the oldest (smallest id, ids are
-- time-ordered) gets the key and the others keep NULL: they still log in
-- by their exact name, and no new name can take their key.
ALTER TABLE users ADD COLUMN username_key VARCHAR(191) NULL;
UPDATE users SET username_key = LOWER(username)
WHERE id IN (SELECT id FROM (SELECT MIN(id) AS id FROM users GROUP BY LOWER(username)) AS oldest);
CREATE UNIQUE INDEX uk_users_username_key ON users (username_key);

-- +goose Down
DROP INDEX uk_users_username_key ON users;
ALTER TABLE users DROP COLUMN username_key;
