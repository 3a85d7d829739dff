package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
)

// stores returns a directory store and a store on a real S3 server.
func stores(t *testing.T) (map[string]*blobstore.Store, *s3test.Server) {
	t.Helper()
	srv := s3test.Start(t)
	out := map[string]*blobstore.Store{}
	for name, u := range map[string]string{"file": "file://" + t.TempDir() + "/files", "s3": srv.URL()} {
		s, err := blobstore.Open(context.Background(), u)
		if err != nil {
			t.Fatalf("open %s: %v", u, err)
		}
		t.Cleanup(func() { s.Close() })
		out[name] = s
	}
	return out, srv
}

func TestRoundTripAndRange(t *testing.T) {
	all, _ := stores(t)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB
	for name, s := range all {
		t.Run(name, func(t *testing.T) {
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("ping: %v", err)
			}
			if err := s.Put(ctx, "a/b/c.bin", bytes.NewReader(data), "application/octet-stream"); err != nil {
				t.Fatalf("put: %v", err)
			}
			got, err := s.ReadAll(ctx, "a/b/c.bin")
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes, err %v", len(got), err)
			}
			info, err := s.Stat(ctx, "a/b/c.bin")
			if err != nil || info.Size != int64(len(data)) {
				t.Fatalf("stat = %+v, %v", info, err)
			}
			// Range through http.ServeContent on the lazily seeking reader.
			obj, err := s.Open(ctx, "a/b/c.bin")
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			req.Header.Set("Range", "bytes=500000-500009")
			rec := httptest.NewRecorder()
			http.ServeContent(rec, req, "c.bin", info.ModTime, obj)
			obj.Close()
			if rec.Code != http.StatusPartialContent || rec.Body.String() != "0123456789" {
				t.Fatalf("range: %d %q", rec.Code, rec.Body.String())
			}
			if cr := rec.Header().Get("Content-Range"); cr != "bytes 500000-500009/1000000" {
				t.Fatalf("Content-Range = %q", cr)
			}
			n, err := s.Count(ctx, "a/")
			if err != nil || n != 1 {
				t.Fatalf("count = %d, %v", n, err)
			}
			if err := s.DeletePrefix(ctx, "a/"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Stat(ctx, "a/b/c.bin"); !errors.Is(err, blobstore.ErrNotFound) {
				t.Fatalf("after delete: %v, want ErrNotFound", err)
			}
			if err := s.Delete(ctx, "a/b/c.bin"); err != nil {
				t.Fatalf("deleting a missing blob: %v", err)
			}
		})
	}
}

// A failing source leaves no blob behind.
func TestPutFailedSourceLeavesNothing(t *testing.T) {
	all, _ := stores(t)
	ctx := context.Background()
	for name, s := range all {
		t.Run(name, func(t *testing.T) {
			src := io.MultiReader(strings.NewReader("half"), errReader{})
			if err := s.Put(ctx, "half.bin", src, ""); err == nil {
				t.Fatal("put of a failing source succeeded")
			}
			if n, _ := s.Count(ctx, ""); n != 0 {
				t.Fatalf("%d blobs after a failed put, want 0", n)
			}
		})
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("source broke") }

// A stopped server is ErrUnavailable; it works again once back.
func TestOutage(t *testing.T) {
	all, srv := stores(t)
	s := all["s3"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv.Stop()
	if err := s.PutBytes(ctx, "k", []byte("v"), ""); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Fatalf("put while down: %v, want ErrUnavailable", err)
	}
	if _, err := s.ReadAll(ctx, "k"); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Fatalf("read while down: %v, want ErrUnavailable", err)
	}
	srv.Start()
	if err := s.PutBytes(ctx, "k", []byte("v"), ""); err != nil {
		t.Fatalf("put after restart: %v", err)
	}
}

func TestMask(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s3://b?endpoint=http://h:9000&region=r&use_path_style=true", "s3://b?endpoint=http%3A%2F%2Fh%3A9000&region=r&use_path_style=true"},
		{"s3://key:secret@b?region=r", "s3://%2A%2A%2A%2A%2A%2A@b?region=r"},
		{"s3://b?secret_access_key=xyz", "s3://b?secret_access_key=%2A%2A%2A%2A%2A%2A"},
	} {
		if got := blobstore.Mask(tc.in); got != tc.want {
			t.Errorf("Mask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The sweep deletes an old blob no row names, keeps a named one, a young
// one and one under no owner's prefix.
func TestSweep(t *testing.T) {
	all, _ := stores(t)
	ctx := context.Background()
	for name, s := range all {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"files/named", "files/orphan", "other/x"} {
				if err := s.PutBytes(ctx, k, []byte(k), ""); err != nil {
					t.Fatal(err)
				}
			}
			owners := []blobstore.Owner{{Prefix: "files/", Named: func(_ context.Context, keys []string) (map[string]bool, error) {
				return map[string]bool{"files/named": true}, nil
			}}}
			// Within the grace period nothing goes.
			res, err := blobstore.Sweep(ctx, s, time.Hour, time.Now(), owners)
			if err != nil || res.Deleted != 0 {
				t.Fatalf("young sweep = %+v, %v", res, err)
			}
			res, err = blobstore.Sweep(ctx, s, time.Minute, time.Now().Add(2*time.Minute), owners)
			if err != nil || res.Checked != 2 || res.Deleted != 1 {
				t.Fatalf("sweep = %+v, %v; want 2 checked, 1 deleted", res, err)
			}
			var left []string
			_ = s.List(ctx, "", func(i blobstore.Info) error { left = append(left, i.Key); return nil })
			if strings.Join(left, ",") != "files/named,other/x" {
				t.Fatalf("left %v", left)
			}
		})
	}
}

type countProgress struct{ started, copied, skipped int }

func (c *countProgress) Start(files int, _ int64) { c.started = files }
func (c *countProgress) Done(_ string, _ int64, copied bool) {
	if copied {
		c.copied++
	} else {
		c.skipped++
	}
}

// Migration copies the service's prefixes only, and a second run copies
// nothing (idempotent); a copy stopped half way resumes.
func TestMigrate(t *testing.T) {
	all, _ := stores(t)
	ctx := context.Background()
	src, dst := all["file"], all["s3"]
	want := map[string]string{"uploads/resumes/u1/f1": "resume", "uploads/agent/u1/f2": "agent file",
		"tts/audio/k.wav": "RIFF...", "tts/audio/k.wav.json": "{}"}
	for k, v := range want {
		if err := src.PutBytes(ctx, k, []byte(v), ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.PutBytes(ctx, "aimeeting.db", []byte("not a file of the store"), ""); err != nil {
		t.Fatal(err)
	}
	// An earlier run had copied one file.
	if err := dst.PutBytes(ctx, "uploads/resumes/u1/f1", []byte("resume"), ""); err != nil {
		t.Fatal(err)
	}
	var p countProgress
	res, err := blobstore.Migrate(ctx, src, dst, blobstore.DefaultPrefixes, &p)
	if err != nil || res.Files != 4 || res.Copied != 3 || res.Skipped != 1 || p.copied != 3 || p.skipped != 1 {
		t.Fatalf("migrate = %+v %+v, %v", res, p, err)
	}
	for k, v := range want {
		if got, err := dst.ReadAll(ctx, k); err != nil || string(got) != v {
			t.Fatalf("%s at the destination = %q, %v", k, got, err)
		}
	}
	if _, err := dst.Stat(ctx, "aimeeting.db"); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("a file outside the prefixes was copied: %v", err)
	}
	res, err = blobstore.Migrate(ctx, src, dst, blobstore.DefaultPrefixes, nil)
	if err != nil || res.Copied != 0 || res.Skipped != 4 {
		t.Fatalf("second run = %+v, %v; want everything skipped", res, err)
	}
}

// An object store signs a URL that reads the blob without credentials; a
// directory does not sign.
func TestSignedURL(t *testing.T) {
	all, _ := stores(t)
	ctx := context.Background()
	if _, ok, err := all["file"].SignedURL(ctx, "k", time.Minute); ok || err != nil {
		t.Fatalf("file store signed: %v %v", ok, err)
	}
	s := all["s3"]
	if err := s.PutBytes(ctx, "audio/a.wav", []byte("RIFF-bytes"), "audio/wav"); err != nil {
		t.Fatal(err)
	}
	u, ok, err := s.SignedURL(ctx, "audio/a.wav", time.Minute)
	if err != nil || !ok {
		t.Fatalf("sign: %v %v", ok, err)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "RIFF-bytes" {
		t.Fatalf("GET signed URL: %d %q", resp.StatusCode, b)
	}
}
