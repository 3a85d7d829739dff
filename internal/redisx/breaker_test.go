package redisx

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// clock is a test's time: a fixed start plus what the test advanced.
type clock struct{ elapsed time.Duration }

func (c *clock) advance(d time.Duration) { c.elapsed += d }

// MustBreaker returns a Breaker on a clock that moves only when the test
// advances it.
func MustBreaker(tb testing.TB, backoff time.Duration) (*Breaker, *clock) {
	tb.Helper()
	start, clk := time.Unix(1_000_000, 0), &clock{}
	b := NewBreaker(backoff)
	b.now = func() time.Time { return start.Add(clk.elapsed) }
	return b, clk
}

func TestBreaker(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:6379: connection refused")
	tests := []struct {
		name  string
		steps func(b *Breaker, clk *clock)
		want  bool
	}{
		{"fresh allows", func(*Breaker, *clock) {}, true},
		{"failure skips", func(b *Breaker, _ *clock) { b.Fail(down) }, false},
		{"nil error is not a failure", func(b *Breaker, _ *clock) { b.Fail(nil) }, true},
		{"still skipping just before the end", func(b *Breaker, clk *clock) {
			b.Fail(down)
			clk.advance(5*time.Second - time.Nanosecond)
		}, false},
		{"allows once the backoff ran out", func(b *Breaker, clk *clock) {
			b.Fail(down)
			clk.advance(5 * time.Second)
		}, true},
		{"a new failure restarts the backoff", func(b *Breaker, clk *clock) {
			b.Fail(down)
			clk.advance(4 * time.Second)
			b.Fail(down)
			clk.advance(4 * time.Second)
		}, false},
		{"ok ends the backoff", func(b *Breaker, _ *clock) {
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
