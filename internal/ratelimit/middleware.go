package ratelimit

import (
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
)

// Limits hands out one middleware per named bucket, so that each route
// declares its bucket where it is registered:
//
//	g.POST("/answer", limits.Bucket("answer"), h.answer)
//
// A reader of the route table sees the limit that applies, and renaming a
// path moves nothing.
type Limits struct {
	limiter *Limiter // nil: limits are off
	buckets map[string]Bucket
}

// NewLimits returns the limits of buckets enforced by l. With l nil the
// limits are off: every bucket lets every request through, but an unknown
// bucket name is still an error.
func NewLimits(l *Limiter, buckets ...Bucket) *Limits {
	ls := &Limits{limiter: l, buckets: make(map[string]Bucket, len(buckets))}
	for _, b := range buckets {
		ls.buckets[b.Name] = b
	}
	return ls
}

// Bucket returns the middleware that spends one request of the bucket
// name per request: per caller (see package auth) when it runs after
// authentication, per client IP before. Over the limit it answers 429
// with Retry-After. It panics when name is not a bucket of ls: a route
// table naming a bucket nobody configured is a bug, found at start-up.
func (ls *Limits) Bucket(name string) gin.HandlerFunc {
	b, ok := ls.buckets[name]
	if !ok {
		panic(fmt.Sprintf("ratelimit: no bucket %q", name))
	}
	if ls.limiter == nil {
		return func(*gin.Context) {}
	}
	return func(c *gin.Context) {
		key := "ip:" + c.ClientIP()
		if u, ok := auth.FromContext(c.Request.Context()); ok {
			key = "u:" + u.UserID
		}
		d := ls.limiter.Allow(c.Request.Context(), b, key)
		if !d.Allowed {
			secs := RetryAfterSeconds(d.RetryAfter)
			httpx.Error(c, apperr.New(apperr.KindRateLimited, "too many %s requests: retry in %d s", apperr.Word(b.Name), secs).
				WithData(httpx.RetryAfter{Seconds: secs}))
		}
	}
}
