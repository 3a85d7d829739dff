package httpx

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
)

const (
	requestIDKey = "httpx.requestId"
	loggerKey    = "httpx.logger"
	// HeaderRequestID carries the request id in both directions.
	HeaderRequestID = "X-Request-Id"
)

type ctxKey struct{}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// RequestID returns the id of the request being served.
func RequestID(c *gin.Context) string { return c.GetString(requestIDKey) }

// RequestIDFrom returns the request id stored in ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// Middleware returns the common middleware chain: request id, the
// caller's language (Accept-Language), recovery, access log, metrics, the
// API's response headers and a hard cap on request bodies.
func Middleware(log *slog.Logger, m *Metrics, maxBody int64) []gin.HandlerFunc {
	return []gin.HandlerFunc{requestID(log), language, recovery(), accessLog(), m.handler(), apiHeaders, bodyCap(maxBody)}
}

// apiHeaders marks every response as not to be MIME-sniffed nor stored by
// any cache: API answers are per user. Handlers that serve cacheable
// content (the web page, its assets) set their own Cache-Control.
func apiHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	c.Next()
}

// requestID accepts a well-formed incoming X-Request-Id or makes one, and
// puts it in the response header, the request context and the logger.
func requestID(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(HeaderRequestID)
		if !validRequestID.MatchString(id) {
			id = ids.New()
		}
		c.Set(requestIDKey, id)
		c.Set(loggerKey, log.With("requestId", id))
		c.Header(HeaderRequestID, id)
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), ctxKey{}, id))
		c.Next()
	}
}

// recovery turns a panic into a logged 500 envelope instead of a dropped connection.
func recovery() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				Error(c, apperr.Internal(fmt.Errorf("panic: %v", r)))
			}
		}()
		c.Next()
	}
}

// accessLog logs one line per request: never bodies, headers or query
// strings, which may carry secrets.
func accessLog() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		level := slog.LevelInfo
		if c.Writer.Status() >= 500 {
			level = slog.LevelWarn
		}
		Logger(c).Log(c.Request.Context(), level, "http request",
			"method", c.Request.Method, "route", route, "status", c.Writer.Status(),
			"durationMs", time.Since(start).Milliseconds(), "bytes", c.Writer.Size())
	}
}

// bodyCap bounds every request body; endpoints read with tighter limits.
func bodyCap(limit int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body != nil {
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
		}
		c.Next()
	}
}

// CORS allows the configured origins. A wildcard is never combined with
// credentials: with credentials the request's origin must be listed.
func CORS(origins []string, credentials bool) gin.HandlerFunc {
	wildcard := slices.Contains(origins, "*")
	return func(c *gin.Context) {
		origin := c.GetHeader("Origin")
		if origin == "" || len(origins) == 0 {
			c.Next()
			return
		}
		allowed := slices.Contains(origins, origin) || (wildcard && !credentials)
		if allowed {
			h := c.Writer.Header()
			if wildcard && !credentials {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
			}
			if credentials {
				h.Set("Access-Control-Allow-Credentials", "true")
			}
			h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After")
			if c.Request.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id")
				h.Set("Access-Control-Max-Age", "600")
				c.AbortWithStatus(http.StatusNoContent)
				return
			}
		}
		c.Next()
	}
}

// Metrics are the HTTP server's Prometheus metrics.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers the HTTP metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "aimeeting", Subsystem: "http", Name: "request_duration_seconds",
			Help: "HTTP request duration by route.", Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

func (m *Metrics) handler() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		m.requests.WithLabelValues(route, c.Request.Method, strconv.Itoa(c.Writer.Status())).Inc()
		m.duration.WithLabelValues(route, c.Request.Method).Observe(time.Since(start).Seconds())
	}
}
