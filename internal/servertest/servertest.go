// Package servertest builds the real server binary and runs it as a child
// process for end-to-end tests: on a free port, with its own data dir and
// environment, with its logs captured, stoppable with SIGTERM or SIGKILL.
package servertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds ./cmd/server once per test process and returns its path.
func Binary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aimeeting-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "aimeeting")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/server")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return binPath
}

// Server is a running server process.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	Dir  string // working directory (data-dir ./data lives here)
	cmd  *exec.Cmd
	done chan struct{}

	mu   sync.Mutex // protects logs
	logs bytes.Buffer
}

var listening = regexp.MustCompile(`listening on http://\S*:(\d+)`)

// Start runs the server in dir (a new temp dir when ""), with env added to
// a minimal environment, on a free port unless env sets SERVER_PORT. It
// waits until the server listens and stops it (SIGTERM) when the test ends.
func Start(tb testing.TB, dir string, env ...string) *Server {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	s := &Server{Dir: dir, done: make(chan struct{})}
	s.cmd = exec.Command(Binary(tb))
	s.cmd.Dir = dir
	s.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "SERVER_PORT=0",
		"SERVER_HOST=127.0.0.1", "AUTH_BCRYPT_COST=4", "RATE_LIMIT_ENABLED=false", "AUTH_LOGIN_THROTTLE_ENABLED=false"}, env...) // tests of the limits turn them on
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s.cmd.Stderr = &lockedWriter{s: s}
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			s.appendLog(line + "\n")
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case port <- m[1]:
				default:
				}
			}
		}
	}()
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	tb.Cleanup(func() { s.Stop(tb) })
	select {
	case p := <-port:
		s.URL = "http://127.0.0.1:" + p
	case <-s.done:
		tb.Fatalf("server exited before listening:\n%s", s.Logs())
	case <-time.After(30 * time.Second):
		tb.Fatalf("server did not listen within 30s:\n%s", s.Logs())
	}
	return s
}

type lockedWriter struct{ s *Server }

func (w *lockedWriter) Write(p []byte) (int, error) { w.s.appendLog(string(p)); return len(p), nil }

func (s *Server) appendLog(text string) {
	s.mu.Lock()
	s.logs.WriteString(text)
	s.mu.Unlock()
}

// Logs returns everything the process printed so far.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Stop sends SIGTERM and waits for a graceful exit (SIGKILL after 30s).
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		tb.Errorf("server did not stop within 30s of SIGTERM")
	}
}

// PID is the server's process id (for /proc/PID/status in memory tests).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Kill sends SIGKILL, as a crash would, and waits for the process to end.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// Response is a decoded envelope response.
type Response struct {
	Status    int
	Header    http.Header
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"`
	RequestID string          `json:"requestId"`
	Raw       string
}

// Decode unmarshals the envelope's data into v.
func (r Response) Decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		tb.Fatalf("decode data %s: %v", r.Data, err)
	}
}

// Do sends a request to base+path with an optional bearer token. body may
// be nil, a string or []byte (sent as is) or a value (sent as JSON).
func Do(tb testing.TB, method, url, token string, body any) Response {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return Send(tb, req)
}

// Send sends req and decodes the envelope.
func Send(tb testing.TB, req *http.Request) Response {
	tb.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if err := json.Unmarshal(raw, &r); err != nil {
		tb.Fatalf("%s %s: status %d, body is not an envelope: %q", req.Method, req.URL, resp.StatusCode, raw)
	}
	return r
}

// Metric reads one sample of the server's /metrics at base: the value of
// the line that starts with name (with its labels, if any) and a space, and
// whether there is one.
func Metric(tb testing.TB, base, name string) (float64, bool) {
	tb.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatalf("metric %s: %v", name, err)
			}
			return f, true
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return 0, false
}
