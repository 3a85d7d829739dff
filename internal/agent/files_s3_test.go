package agent

import (
	"context"
	"io"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
)

// Agent files round-trip through a real S3 server; while it is down an
// upload is a 503 and leaves no row.
func TestFilesInS3(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		srv := s3test.Start(t)
		chats := chat.NewService(chat.NewGormStore(gdb), defaultResolver{}, chat.Config{})
		svc, err := NewService(NewGormStore(gdb), chats, defaultResolver{}, Config{Files: srv.Store()})
		if err != nil {
			t.Fatal(err)
		}
		body := "# Notes\n\nThe agent reads this file from the object store.\n"
		f, err := svc.Upload(ctx, "u1", UploadInput{FileName: "notes.md", Data: []byte(body)})
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		obj, err := svc.openBlob(ctx, "u1", f.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obj.Seek(8, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(obj)
		obj.Close()
		if err != nil || string(rest) != body[8:] {
			t.Fatalf("read from offset 8 = %q, %v", rest, err)
		}

		srv.Stop()
		_, err = svc.Upload(ctx, "u1", UploadInput{FileName: "second.md", Data: []byte(body)})
		if !apperr.Is(err, apperr.KindUnavailable) || apperr.As(err).Message != apperr.FileStoreMessage {
			t.Fatalf("upload while the store is down: %v, want the 503 of the file store", err)
		}
		srv.Start()
		files, err := svc.store.SessionFiles(ctx, "u1", "", 10)
		if err != nil || len(files) != 1 || files[0].ID != f.ID {
			t.Fatalf("rows after the failed upload = %+v, %v; want only the first file", files, err)
		}
		svc.removeBlob(ctx, "u1", f.ID)
		if n, err := srv.Store().Count(ctx, FilePrefix); err != nil || n != 0 {
			t.Fatalf("%d blobs after removeBlob, %v", n, err)
		}
	})
}
