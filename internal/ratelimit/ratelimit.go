// Package ratelimit enforces HTTP flow limits per user (or per IP when
// anonymous) in buckets: answer submissions, heavy uploads, interview reads
// and everything else. With Redis the buckets are shared by every instance
// (go-redis/redis_rate, GCRA in one Lua script); without Redis, or while
// Redis fails, each instance limits locally so an outage never turns into
// an open door or a closed one.
package ratelimit

import (
	"context"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// Bucket is a named limit: Rate requests per second with bursts of Burst.
type Bucket struct {
	Name  string
	Rate  int
	Burst int
}

// Default buckets (interview.md "HTTP flow limits").
var (
	Answer  = Bucket{Name: "answer", Rate: 8, Burst: 8}
	Heavy   = Bucket{Name: "heavy", Rate: 2, Burst: 2}
	Read    = Bucket{Name: "read", Rate: 15, Burst: 15}
	Default = Bucket{Name: "default", Rate: 20, Burst: 20}
)

// Decision is the outcome of one check.
type Decision struct {
	Allowed    bool
	RetryAfter time.Duration
	// Shared is true when the decision came from Redis (cluster-wide).
	Shared bool
}

// Limiter checks requests against buckets.
type Limiter struct {
	shared *redis_rate.Limiter // nil without Redis
	prefix string
	// redis says when to skip Redis after an error: meanwhile limits are
	// local.
	redis   *redisx.Breaker
	timeout time.Duration

	local *lru.Cache[string, *rate.Limiter] // bounded: one entry per active key and bucket
}

// New returns a limiter; rdb may be nil (local limits only). Each Redis
// check gets timeout (300 ms when 0), and its failures open breaker, which
// may be shared with Redis's other users (nil: one of the limiter's own
// that skips Redis for 5 s after a failure).
func New(rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) *Limiter {
	local, _ := lru.New[string, *rate.Limiter](100_000)
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	if timeout <= 0 {
		timeout = 300 * time.Millisecond
	}
	l := &Limiter{prefix: prefix, redis: breaker, timeout: timeout, local: local}
	if rdb != nil {
		l.shared = redis_rate.NewLimiter(ownKeys{rdb}) // keys under prefix, not "rate:"
	}
	return l
}

// Allow takes one request of key from bucket.
func (l *Limiter) Allow(ctx context.Context, b Bucket, key string) Decision {
	if l.shared != nil && l.redis.Allow() {
		cctx, cancel := context.WithTimeout(ctx, l.timeout)
		res, err := l.shared.Allow(cctx, l.prefix+b.Name+":"+key, redis_rate.Limit{Rate: b.Rate, Burst: b.Burst, Period: time.Second})
		cancel()
		if err == nil {
			l.redis.Ok()
			return Decision{Allowed: res.Allowed > 0, RetryAfter: max(res.RetryAfter, 0), Shared: true}
		}
		if ctx.Err() == nil { // the caller's own cancellation is not Redis's failure
			l.redis.Fail(err)
		}
	}
	return l.allowLocal(b, key)
}

func (l *Limiter) allowLocal(b Bucket, key string) Decision {
	id := b.Name + ":" + key
	lim, ok := l.local.Get(id)
	if !ok {
		lim = rate.NewLimiter(rate.Limit(b.Rate), b.Burst)
		if prev, found, _ := l.local.PeekOrAdd(id, lim); found {
			lim = prev
		}
	}
	r := lim.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return Decision{RetryAfter: d}
	}
	return Decision{Allowed: true}
}

// RetryAfterSeconds rounds a wait up to whole seconds (at least 1), as the
// Retry-After header needs.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
