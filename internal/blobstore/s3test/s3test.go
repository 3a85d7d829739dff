// Package s3test starts a real S3-compatible server for tests: the Versity
// S3 gateway (versitygw) serving a temporary directory on loopback. The
// binary is installed with `go install` into <repo>/.cache/bin on first use
// (about a minute) and reused afterwards.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
)

// Version of the gateway installed.
const Version = "v1.8.0"

// Credentials the server accepts; Start exports them as AWS_ACCESS_KEY_ID
// and AWS_SECRET_ACCESS_KEY for the process under test and its children.
const (
	AccessKey = "aimeetingtest"
	SecretKey = "aimeetingtestsecret"
	Region    = "us-east-1"
)

// Server is a running gateway. Stop and Start stop and restart it on the
// same port and directory (an outage).
type Server struct {
	tb     testing.TB
	bin    string
	dir    string
	addr   string
	mu     sync.Mutex // protects cmd
	cmd    *exec.Cmd
	Bucket string
}

var installMu sync.Mutex

// Binary returns the gateway binary, installing it when missing. Without
// the go command or the module proxy the test is skipped, or fails under
// CI=true.
func Binary(tb testing.TB) string {
	tb.Helper()
	installMu.Lock()
	defer installMu.Unlock()
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p
	}
	root, err := repoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(root, ".cache", "bin")
	p := filepath.Join(bin, "versitygw")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	cmd := exec.Command("go", "install", "github.com/versity/versitygw/cmd/versitygw@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := fmt.Sprintf("install versitygw (run scripts/s3-deps.sh): %v\n%s", err, out)
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return p
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("s3test: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start runs a gateway with one empty bucket, stopped at the end of the test,
// and sets the AWS credential variables for the test.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{tb: tb, bin: Binary(tb), dir: tb.TempDir(), Bucket: "aimeeting"}
	if err := os.MkdirAll(filepath.Join(s.dir, s.Bucket), 0o750); err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.addr = l.Addr().String()
	l.Close()
	if t, ok := tb.(interface{ Setenv(k, v string) }); ok {
		t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
		t.Setenv("AWS_REGION", Region)
	}
	s.Start()
	tb.Cleanup(s.Stop)
	return s
}

// URL is the store URL of the bucket, in the form the service documents.
func (s *Server) URL() string { return s.BucketURL(s.Bucket) }

// BucketURL is the store URL of another bucket (see MakeBucket).
func (s *Server) BucketURL(bucket string) string {
	return fmt.Sprintf("s3://%s?endpoint=http://%s&region=%s&use_path_style=true", bucket, s.addr, Region)
}

// MakeBucket creates an empty bucket.
func (s *Server) MakeBucket(name string) {
	if err := os.MkdirAll(filepath.Join(s.dir, name), 0o750); err != nil {
		s.tb.Fatal(err)
	}
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return s.addr }

// Dir is the directory the buckets live in (one subdirectory each).
func (s *Server) Dir() string { return s.dir }

// Env is the environment a server process needs to reach the gateway.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=" + Region}
}

// Start (re)starts the server and waits until it answers.
func (s *Server) Start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return
	}
	cmd := exec.Command(s.bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", s.addr, "--quiet", "posix", s.dir)
	log, err := os.Create(filepath.Join(s.tb.TempDir(), "versitygw.log"))
	if err != nil {
		s.tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.tb.Fatalf("start versitygw: %v", err)
	}
	s.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		resp, err := http.Get("http://" + s.addr + "/")
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(log.Name())
	s.tb.Fatalf("versitygw did not answer on %s:\n%s", s.addr, b)
}

// Stop kills the server (an outage); Start brings it back.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Open opens the store at rawURL, closed at the end of the test.
func Open(tb testing.TB, rawURL string) *blobstore.Store {
	tb.Helper()
	s, err := blobstore.Open(context.Background(), rawURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Files opens a directory store on dir.
func Files(tb testing.TB, dir string) *blobstore.Store { return Open(tb, "file://"+dir) }

// Store opens the server's bucket.
func (s *Server) Store() *blobstore.Store { return Open(s.tb, s.URL()) }
