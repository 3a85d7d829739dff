package httpx

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

// deadlineServer serves r with the given read timeout, as app.Run does.
func deadlineServer(t *testing.T, readTimeout time.Duration, r http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ReadTimeout = readTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// trickle sends a POST of n body bytes, one every gap, and returns the
// status line the server answered (or "" when it closed first).
func trickle(t *testing.T, host, path string, n int, gap time.Duration) string {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", path, n)
	for range n {
		time.Sleep(gap)
		if _, err := conn.Write([]byte("x")); err != nil {
			break
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimSpace(line)
}

// A body slower than the read timeout is cut; an upload route has the time
// its byte limit needs at MinUploadRate.
func TestUploadDeadline(t *testing.T) {
	gin.SetMode(gin.TestMode)
	const readTimeout = 400 * time.Millisecond
	r := gin.New()
	r.Use(ReadTimeout(readTimeout))
	read := func(c *gin.Context) {
		if _, err := io.ReadAll(c.Request.Body); err != nil {
			c.String(http.StatusBadRequest, "read: %v", err)
			return
		}
		c.String(http.StatusOK, "ok")
	}
	r.POST("/plain", read)
	r.POST("/upload", UploadDeadline(MinUploadRate), read) // one more second
	host := deadlineServer(t, readTimeout, r)

	// 4 bytes over ~800ms: twice the read timeout, within the upload's 1.4 s.
	if got := trickle(t, host, "/plain", 4, 200*time.Millisecond); strings.Contains(got, "200") {
		t.Errorf("plain route = %q, want the slow body cut", got)
	}
	if got := trickle(t, host, "/upload", 4, 200*time.Millisecond); !strings.Contains(got, "200") {
		t.Errorf("upload route = %q, want 200 within its longer deadline", got)
	}
}

// Streams outlive the read timeout: an event stream lifts it once the
// request is read, and a WebSocket upgrade has it lifted by ReadTimeout.
// (net/http, since Go 1.26 at least, also lifts it once a body is read to
// its end; the explicit lift keeps streams safe whatever the handler read.)
func TestStreamsLiftReadDeadline(t *testing.T) {
	gin.SetMode(gin.TestMode)
	const readTimeout = 300 * time.Millisecond
	r := gin.New()
	r.Use(ReadTimeout(readTimeout))
	hold := func(c *gin.Context) {
		select {
		case <-c.Request.Context().Done():
			c.String(http.StatusServiceUnavailable, "cancelled")
		case <-time.After(3 * readTimeout):
			c.String(http.StatusOK, "ok")
		}
	}
	r.GET("/stream", func(c *gin.Context) { ClearReadDeadline(c.Writer); hold(c) })
	r.GET("/socket", hold)
	host := deadlineServer(t, readTimeout, r)
	get := func(path string, upgrade bool) string {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		head := "GET " + path + " HTTP/1.1\r\nHost: x\r\n"
		if upgrade {
			head += "Connection: Upgrade\r\nUpgrade: websocket\r\n"
		}
		fmt.Fprint(conn, head+"\r\n")
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(conn)
		return string(b)
	}
	for _, tt := range []struct {
		name, path string
		upgrade    bool
		want       string
	}{
		{"stream", "/stream", false, "ok"},
		{"websocket upgrade", "/socket", true, "ok"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := get(tt.path, tt.upgrade)
			if !strings.HasSuffix(got, tt.want) {
				t.Fatalf("GET %s = %q, want it to end in %q", tt.path, got, tt.want)
			}
		})
	}
}
