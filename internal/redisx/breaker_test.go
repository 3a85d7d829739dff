package redisx

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for deterministic backoff tests.
type fakeClock struct {
	mu sync.Mutex // protects t
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func MustBreaker(tb testing.TB, backoff time.Duration) (*Breaker, *fakeClock) {
	tb.Helper()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	b := NewBreaker(backoff)
	b.now = clk.now
	return b, clk
}

func TestBreaker(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:6379: connection refused")
	tests := []struct {
		name  string
		steps func(b *Breaker, clk *fakeClock)
		want  bool
	}{
		{"fresh allows", func(*Breaker, *fakeClock) {}, true},
		{"failure skips", func(b *Breaker, _ *fakeClock) { b.Fail(down) }, false},
		{"nil error is not a failure", func(b *Breaker, _ *fakeClock) { b.Fail(nil) }, true},
		{"still skipping just before the end", func(b *Breaker, clk *fakeClock) {
			b.Fail(down)
			clk.advance(5*time.Second - time.Nanosecond)
		}, false},
		{"allows once the backoff ran out", func(b *Breaker, clk *fakeClock) {
			b.Fail(down)
			clk.advance(5 * time.Second)
		}, true},
		{"a new failure restarts the backoff", func(b *Breaker, clk *fakeClock) {
			b.Fail(down)
			clk.advance(4 * time.Second)
			b.Fail(down)
			clk.advance(4 * time.Second)
		}, false},
		{"ok ends the backoff", func(b *Breaker, _ *fakeClock) {
			b.Fail(down)
			b.Ok()
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, clk := MustBreaker(t, 5*time.Second)
			tt.steps(b, clk)
			if got := b.Allow(); got != tt.want {
				t.Errorf("Allow() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBreakerZeroBackoffNeverSkips(t *testing.T) {
	for _, b := range []*Breaker{NewBreaker(0), {}} {
		b.Fail(errors.New("down"))
		if !b.Allow() || b.Failures() != 1 {
			t.Errorf("Allow() = %v, failures %d; want true, 1", b.Allow(), b.Failures())
		}
	}
}

// TestBreakerConcurrent runs failures, successes and checks at once (for
// -race) and then checks the count.
func TestBreakerConcurrent(t *testing.T) {
	b := NewBreaker(time.Hour)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 100 {
				if i%2 == 0 {
					b.Fail(errors.New("down"))
				} else {
					b.Ok()
				}
				_ = b.Allow()
			}
		}()
	}
	close(start)
	wg.Wait()
	if got := b.Failures(); got != 400 {
		t.Errorf("Failures() = %d, want 400", got)
	}
	b.Fail(errors.New("down"))
	if b.Allow() {
		t.Error("Allow() = true right after a failure with a one-hour backoff")
	}
}
