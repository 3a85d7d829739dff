package ratelimit

import (
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
)

// Buckets are the limits in force.
type Buckets struct{ Answer, Heavy, Read, Default Bucket }

// DefaultBuckets are the limits of interview.md.
var DefaultBuckets = Buckets{Answer: Answer, Heavy: Heavy, Read: Read, Default: Default}

// Classify picks the bucket of a request from its route.
func (bs Buckets) Classify(method, route string) Bucket {
	switch {
	case strings.HasSuffix(route, "/interview/answer-json") || strings.HasSuffix(route, "/interview/answer"):
		return bs.Answer
	case strings.HasSuffix(route, "/interview-questions") || strings.HasSuffix(route, "/demeanor-evaluation"):
		return bs.Heavy
	case method == "GET" && strings.Contains(route, "/interview/"):
		return bs.Read
	}
	return bs.Default
}

// Middleware limits each request (it does not call c.Next, so it can be
// composed after authentication in one handler) by its bucket and key (from keyOf: the
// user id, or the client IP when keyOf returns ""). Over the limit it
// answers 429 with Retry-After and code A000300.
func Middleware(l *Limiter, bs Buckets, keyOf func(*gin.Context) string) gin.HandlerFunc {
	return func(c *gin.Context) {
		key := keyOf(c)
		if key == "" {
			key = "ip:" + c.ClientIP()
		}
		b := bs.Classify(c.Request.Method, c.FullPath())
		d := l.Allow(c.Request.Context(), b, key)
		if !d.Allowed {
			secs := RetryAfterSeconds(d.RetryAfter)
			httpx.Error(c, apperr.New(apperr.KindRateLimited, "too many %s requests: retry in %d s", b.Name, secs).
				WithData(httpx.RetryAfter{Seconds: secs}))
		}
	}
}
