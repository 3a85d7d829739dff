// Package redisx holds the plumbing shared by the packages that use Redis
// as a helper rather than as the truth: the token cache, the rate limiter,
// the login throttle and the single-flight's hybrid mode (which TTS tasks
// go through), and the invalidations of in-process copies (the token
// cache's, the current questions'). Only Invalidations uses go-redis.
package redisx

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Breaker says "Redis is down, skip it for a while": after a failure, Allow
// reports false for the backoff, and the caller uses its local fallback
// instead of waiting on a dead or slow Redis for every request. A zero
// backoff never skips. It is safe for concurrent use; the zero value is a
// Breaker that never skips.
//
// Without a probe, Allow reports true again once the backoff has run out,
// and the next request finds out whether Redis is back. With a probe
// (WithProbe), requests never pay for that: while Redis is down one
// background goroutine probes it every backoff, each probe bounded by its
// timeout, and Allow stays false until a probe (or an operation) succeeds.
// One Breaker can be shared by every user of one Redis, so that the first
// to see it fail spares the others.
type Breaker struct {
	backoff time.Duration
	now     func() time.Time // time.Now; tests replace it

	probe        func(context.Context) error // nil: reopen after the backoff
	probeTimeout time.Duration
	onChange     func(up bool, err error) // nil: nobody listens

	// downUntil is the UnixNano until which Allow reports false; 0 when
	// Redis is not known to be down.
	downUntil atomic.Int64
	// failures counts the failures reported, for tests and metrics.
	failures atomic.Int64
	// probing is true while the probe goroutine runs: at most one does.
	probing atomic.Bool

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: the probe goroutine ends
	wg        sync.WaitGroup
}

// Option tunes a Breaker.
type Option func(*Breaker)

// WithProbe makes the Breaker find out by itself when Redis is back: while
// it is open, probe runs every backoff in one background goroutine, under
// a deadline of timeout, and its first success closes the Breaker. Until
// then Allow reports false, however long the outage lasts. Call Close to
// stop the goroutine.
func WithProbe(probe func(ctx context.Context) error, timeout time.Duration) Option {
	return func(b *Breaker) { b.probe, b.probeTimeout = probe, timeout }
}

// WithOnChange calls fn when the Breaker opens (up false, with the error
// that opened it) and when it closes again (up true), for logs and metrics.
// fn must not block.
func WithOnChange(fn func(up bool, err error)) Option {
	return func(b *Breaker) { b.onChange = fn }
}

// NewBreaker returns a Breaker that skips Redis for backoff after each
// failure.
func NewBreaker(backoff time.Duration, opts ...Option) *Breaker {
	b := &Breaker{backoff: backoff, now: time.Now, closed: make(chan struct{})}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Allow reports whether Redis may be used now: false while a backoff that
// a failure started is running and, with a probe, until Redis answers again.
func (b *Breaker) Allow() bool {
	until := b.downUntil.Load()
	if until == 0 {
		return true
	}
	if b.probe != nil && b.probing.Load() {
		return false
	}
	return b.clock().UnixNano() >= until
}

// Fail reports that a Redis operation failed with err and (re)starts the
// backoff. A nil err is not a failure and is ignored. The caller decides
// which errors are Redis's fault (its own cancelled context is not).
func (b *Breaker) Fail(err error) {
	if err == nil {
		return
	}
	b.failures.Add(1)
	if b.backoff <= 0 {
		return
	}
	was := b.downUntil.Swap(b.clock().Add(b.backoff).UnixNano())
	if was == 0 && b.onChange != nil {
		b.onChange(false, err)
	}
	if b.probe != nil && b.probing.CompareAndSwap(false, true) {
		select {
		case <-b.closedCh():
			b.probing.Store(false)
			return
		default:
		}
		b.wg.Add(1)
		go b.probeLoop()
	}
}

// Ok reports that a Redis operation succeeded: Redis is back, and the
// backoff ends at once.
func (b *Breaker) Ok() {
	// Load first: on the hot path Redis is up and nothing is written.
	if b.downUntil.Load() == 0 {
		return
	}
	if b.downUntil.Swap(0) != 0 && b.onChange != nil {
		b.onChange(true, nil)
	}
}

// Do runs one Redis command under timeout (none when 0) and reports its
// outcome: a nil error, or one matching miss (redis.Nil for a missing key;
// nil when every error is a failure), is an Ok; any other error is a Fail,
// unless ctx itself ended (the caller's cancellation is not Redis's
// failure). It returns cmd's error.
func (b *Breaker) Do(ctx context.Context, timeout time.Duration, miss error, cmd func(ctx context.Context) error) error {
	cctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	err := cmd(cctx)
	switch {
	case err == nil || miss != nil && errors.Is(err, miss):
		b.Ok()
	case ctx.Err() == nil:
		b.Fail(err)
	}
	return err
}

// Failures returns the number of failures reported so far.
func (b *Breaker) Failures() int64 { return b.failures.Load() }

// Close stops the probe goroutine, if one runs, and waits for it. The
// Breaker keeps answering Allow; it no longer probes.
func (b *Breaker) Close() error {
	b.closeOnce.Do(func() {
		if b.closed != nil {
			close(b.closed)
		}
	})
	b.wg.Wait()
	return nil
}

// probeLoop probes Redis every backoff until a probe succeeds or the
// Breaker is closed.
func (b *Breaker) probeLoop() {
	defer b.wg.Done()
	defer b.probing.Store(false)
	t := time.NewTimer(b.backoff)
	defer t.Stop()
	for {
		select {
		case <-b.closedCh():
			return
		case <-t.C:
		}
		if b.downUntil.Load() == 0 {
			return // an operation saw Redis answer
		}
		ctx, cancel := context.WithTimeout(context.Background(), b.probeTimeout)
		err := b.probe(ctx)
		cancel()
		if err == nil {
			b.Ok()
			return
		}
		b.failures.Add(1)
		b.downUntil.Store(b.clock().Add(b.backoff).UnixNano())
		t.Reset(b.backoff)
	}
}

// closedCh is the channel Close closes; a zero Breaker has none (and never
// probes), so it gets a nil channel, which never fires.
func (b *Breaker) closedCh() chan struct{} { return b.closed }

func (b *Breaker) clock() time.Time {
	if b.now == nil {
		return time.Now()
	}
	return b.now()
}
