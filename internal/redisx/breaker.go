// Package redisx holds the plumbing shared by the packages that use Redis
// as a helper rather than as the truth: the single-flight's hybrid mode, the
// rate limiter (and, later, the token cache and TTS). It imports the
// standard library only.
package redisx

import (
	"sync/atomic"
	"time"
)

// Breaker says "Redis is down, skip it for a while": after a failure, Allow
// reports false for the backoff, and the caller uses its local fallback
// instead of waiting on a dead or slow Redis for every request. A zero
// backoff never skips. It is safe for concurrent use; the zero value is a
// Breaker that never skips.
type Breaker struct {
	backoff time.Duration
	now     func() time.Time // time.Now; tests replace it

	// downUntil is the UnixNano until which Allow reports false; 0 when
	// Redis is not known to be down.
	downUntil atomic.Int64
	// failures counts the failures reported, for tests and metrics.
	failures atomic.Int64
}

// NewBreaker returns a Breaker that skips Redis for backoff after each
// failure.
func NewBreaker(backoff time.Duration) *Breaker {
	return &Breaker{backoff: backoff, now: time.Now}
}

// Allow reports whether Redis may be used now: false while a backoff that
// a failure started is running.
func (b *Breaker) Allow() bool {
	until := b.downUntil.Load()
	return until == 0 || b.clock().UnixNano() >= until
}

// Fail reports that a Redis operation failed with err and (re)starts the
// backoff. A nil err is not a failure and is ignored. The caller decides
// which errors are Redis's fault (its own cancelled context is not).
func (b *Breaker) Fail(err error) {
	if err == nil {
		return
	}
	b.failures.Add(1)
	if b.backoff > 0 {
		b.downUntil.Store(b.clock().Add(b.backoff).UnixNano())
	}
}

// Ok reports that a Redis operation started after the last failure
// succeeded: Redis is back, and the backoff ends at once.
func (b *Breaker) Ok() { b.downUntil.Store(0) }

// Failures returns the number of failures reported so far.
func (b *Breaker) Failures() int64 { return b.failures.Load() }

func (b *Breaker) clock() time.Time {
	if b.now == nil {
		return time.Now()
	}
	return b.now()
}
