package redisx

import (
	"context"
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

// With a probe, the Breaker stays open past the backoff until a probe
// succeeds, probes from one goroutine only, and closes by itself.
func TestBreakerProbeClosesWhenRedisIsBack(t *testing.T) {
	var (
		mu     sync.Mutex
		up     bool
		probes int
	)
	changes := make(chan bool, 4)
	b := NewBreaker(10*time.Millisecond,
		WithProbe(func(ctx context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			probes++
			if _, ok := ctx.Deadline(); !ok {
				t.Error("probe without a deadline")
			}
			if !up {
				return errors.New("connection refused")
			}
			return nil
		}, time.Second),
		WithOnChange(func(up bool, _ error) { changes <- up }))
	defer b.Close()

	b.Fail(errors.New("connection refused"))
	b.Fail(errors.New("connection refused")) // a second failure starts no second prober
	if got := <-changes; got {
		t.Fatal("first change = up, want down")
	}
	time.Sleep(50 * time.Millisecond) // several backoffs: the probes keep failing
	if b.Allow() {
		t.Fatal("Allow() = true after the backoff while every probe fails")
	}
	mu.Lock()
	up, failedProbes := true, probes
	mu.Unlock()
	if failedProbes < 2 {
		t.Errorf("%d probes in 5 backoffs, want several", failedProbes)
	}
	select {
	case got := <-changes:
		if !got {
			t.Fatal("second change = down, want up")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Breaker did not close within 5 s of Redis coming back")
	}
	if !b.Allow() {
		t.Fatal("Allow() = false after a successful probe")
	}
}

// An operation's success closes a probing Breaker, and its prober ends.
func TestBreakerOkStopsProbing(t *testing.T) {
	b := NewBreaker(5*time.Millisecond, WithProbe(func(context.Context) error { return errors.New("down") }, time.Second))
	b.Fail(errors.New("down"))
	b.Ok()
	if !b.Allow() {
		t.Fatal("Allow() = false after Ok")
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.probing.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the prober still runs 5 s after Ok")
		}
		time.Sleep(time.Millisecond)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// Close ends a prober whose probes keep failing, and a zero Breaker closes too.
func TestBreakerCloseStopsTheProber(t *testing.T) {
	b := NewBreaker(time.Millisecond, WithProbe(func(context.Context) error { return errors.New("down") }, time.Second))
	b.Fail(errors.New("down"))
	done := make(chan struct{})
	go func() { _ = b.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return within 5 s")
	}
	if b.probing.Load() {
		t.Error("prober still marked running after Close")
	}
	b.Fail(errors.New("down")) // after Close: no new prober
	if b.probing.Load() {
		t.Error("a failure after Close started a prober")
	}
	var zero Breaker
	if err := zero.Close(); err != nil {
		t.Fatal(err)
	}
}

// Do counts a nil error and the miss as success, any other error as a
// failure, and the caller's own cancellation as neither.
func TestDoReportsTheOutcome(t *testing.T) {
	miss := errors.New("missing key")
	down := errors.New("connection refused")
	b := NewBreaker(time.Hour)
	if err := b.Do(context.Background(), time.Second, miss, func(context.Context) error { return miss }); !errors.Is(err, miss) || b.Failures() != 0 {
		t.Fatalf("miss: err %v, failures %d; want the miss back and no failure", err, b.Failures())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = b.Do(ctx, time.Second, nil, func(ctx context.Context) error { return ctx.Err() })
	if b.Failures() != 0 || !b.Allow() {
		t.Fatalf("the caller's cancellation counted as a Redis failure")
	}
	_ = b.Do(context.Background(), time.Second, miss, func(context.Context) error { return down })
	if b.Failures() != 1 || b.Allow() {
		t.Fatalf("a failed command: failures %d, allow %v; want 1 and false", b.Failures(), b.Allow())
	}
	var deadline bool
	_ = b.Do(context.Background(), time.Second, nil, func(ctx context.Context) error { _, deadline = ctx.Deadline(); return nil })
	if !deadline || !b.Allow() {
		t.Fatalf("Do: deadline %v, allow after success %v; want both", deadline, b.Allow())
	}
}
