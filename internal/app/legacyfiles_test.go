package app

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// Files of a version from before storage.url move into the default file
// store at start-up, under the same keys; another store keeps them where
// they are (blobs migrate copies them).
func TestAdoptLegacyFiles(t *testing.T) {
	write := func(t *testing.T, path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	t.Run("default store", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "uploads", "resumes", "a.pdf"), "resume")
		write(t, filepath.Join(dir, "tts", "audio", "b.mp3"), "audio")
		c := Config{DataDir: dir}
		c.Normalize()
		adoptLegacyFiles(log, dir, c.Storage.URL)
		for key, want := range map[string]string{"uploads/resumes/a.pdf": "resume", "tts/audio/b.mp3": "audio"} {
			got, err := os.ReadFile(filepath.Join(dir, "files", filepath.FromSlash(key)))
			if err != nil || string(got) != want {
				t.Errorf("files/%s = %q, %v; want %q", key, got, err, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "uploads")); !os.IsNotExist(err) {
			t.Errorf("the old uploads folder is still there (%v)", err)
		}
	})

	t.Run("store already has the folder", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "uploads", "resumes", "old.pdf"), "old")
		write(t, filepath.Join(dir, "files", "uploads", "resumes", "new.pdf"), "new")
		c := Config{DataDir: dir}
		c.Normalize()
		adoptLegacyFiles(log, dir, c.Storage.URL)
		if _, err := os.Stat(filepath.Join(dir, "uploads", "resumes", "old.pdf")); err != nil {
			t.Errorf("a folder the store already has was touched: %v", err)
		}
	})

	t.Run("another store", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "uploads", "resumes", "a.pdf"), "resume")
		adoptLegacyFiles(log, dir, "s3://bucket?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true")
		if _, err := os.Stat(filepath.Join(dir, "uploads", "resumes", "a.pdf")); err != nil {
			t.Errorf("files were moved although the store is S3: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "files")); !os.IsNotExist(err) {
			t.Errorf("a files folder was made for an S3 store (%v)", err)
		}
	})
}
