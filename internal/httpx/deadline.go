package httpx

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// MinUploadRate is the slowest upload a route's deadline allows for: an
// upload route gets the server's read timeout plus its byte limit at this
// rate (a 10 MiB resume: read-timeout + 40 s).
const MinUploadRate = 256 << 10 // bytes per second

const readTimeoutKey = "httpx.readTimeout"

// ReadTimeout records the server's read timeout (http.Server.ReadTimeout,
// which bounds the headers and body of every request) for the routes that
// change it, and clears it for WebSocket upgrades: a socket lives longer
// than any request and keeps its own deadlines (idle timeout, pings).
func ReadTimeout(d time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(readTimeoutKey, d)
		if isWebSocketUpgrade(c.Request) {
			clearReadDeadline(c.Writer)
		}
		c.Next()
	}
}

// UploadDeadline is the middleware of an upload route whose body may be
// up to limit bytes: the body may take the read timeout plus limit at
// MinUploadRate to arrive, then the connection is closed. Declare it where
// the route is registered, next to the handler that enforces limit.
func UploadDeadline(limit int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		base, _ := c.Get(readTimeoutKey)
		d, _ := base.(time.Duration)
		if d <= 0 {
			c.Next() // no read timeout configured: nothing to extend
			return
		}
		extra := time.Duration(float64(limit) / MinUploadRate * float64(time.Second))
		// An error means the writer cannot set deadlines (a test
		// recorder): the server's own timeout stays.
		_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(d + extra))
		c.Next()
	}
}

// ClearReadDeadline lifts the read deadline of the connection behind w, for
// a response that streams after the request was read (server-sent events):
// a read deadline passing under net/http's background read cancels the
// request's context. (net/http lifts it itself once a body has been read
// to its end; lifting it explicitly does not depend on that.)
func ClearReadDeadline(w http.ResponseWriter) { clearReadDeadline(w) }

func clearReadDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// isWebSocketUpgrade reports whether r asks for a WebSocket.
func isWebSocketUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && headerHasToken(r.Header, "Connection", "upgrade") &&
		headerHasToken(r.Header, "Upgrade", "websocket")
}

// headerHasToken reports whether the comma-separated header name holds token
// (case-insensitive).
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
