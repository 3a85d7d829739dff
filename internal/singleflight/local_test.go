package singleflight

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func localGroup(tb testing.TB) *Group {
	cfg := testConfig("")
	cfg.Mode = ModeLocal
	return MustNew(tb, cfg, nil)
}

func TestLocalConcurrentCallersShareOneCall(t *testing.T) {
	g := localGroup(t)
	p := newProbe(g)
	var c counter
	release := make(chan struct{})
	const n = 100
	results := make([]<-chan doResult, n)
	for i := range n {
		results[i] = goDo(context.Background(), g, "k", c.fn(release, "v1", nil))
	}
	p.waitJoins(t, n)
	close(release)
	leaders := 0
	for _, ch := range results {
		r := recv(t, ch)
		if r.err != nil || string(r.res.Value) != "v1" {
			t.Fatalf("got %q, %v; want v1, nil", r.res.Value, r.err)
		}
		if r.res.Outcome == OwnerNew {
			leaders++
		}
	}
	if got := c.get(); got != 1 {
		t.Errorf("fn calls = %d, want 1", got)
	}
	if leaders != 1 {
		t.Errorf("owner_new outcomes = %d, want 1", leaders)
	}
}

func TestLocalLeaderCallerCancelDoesNotFailWaiters(t *testing.T) {
	g := localGroup(t)
	p := newProbe(g)
	release := make(chan struct{})
	fnErr := make(chan error, 1)
	fn := func(ctx context.Context) ([]byte, error) {
		<-release
		fnErr <- ctx.Err()
		return []byte("v"), nil
	}
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := goDo(leaderCtx, g, "k", fn)
	p.waitJoins(t, 1)
	w1 := goDo(context.Background(), g, "k", fn)
	w2 := goDo(context.Background(), g, "k", fn)
	p.waitJoins(t, 2)

	cancel()
	if r := recv(t, leader); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("leader caller: err = %v, want context.Canceled", r.err)
	}
	close(release)
	for _, ch := range []<-chan doResult{w1, w2} {
		if r := recv(t, ch); r.err != nil || string(r.res.Value) != "v" || r.res.Outcome != LocalShared {
			t.Errorf("waiter: got %q, %s, %v; want v, local_shared, nil", r.res.Value, r.res.Outcome, r.err)
		}
	}
	if err := <-fnErr; err != nil {
		t.Errorf("fn's context was cancelled (%v) although waiters remained", err)
	}
}

func TestLocalEveryCallerGoneCancelsFn(t *testing.T) {
	g := localGroup(t)
	p := newProbe(g)
	fnDone := make(chan error, 1)
	fn := func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		fnDone <- ctx.Err()
		return nil, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	r1 := goDo(ctx1, g, "k", fn)
	p.waitJoins(t, 1)
	r2 := goDo(ctx2, g, "k", fn)
	p.waitJoins(t, 1)
	cancel1()
	recv(t, r1)
	cancel2()
	recv(t, r2)
	select {
	case err := <-fnDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("fn ctx err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("fn's context was not cancelled after every caller left")
	}
}

func TestLocalPanicReachesEveryCaller(t *testing.T) {
	g := localGroup(t)
	p := newProbe(g)
	release := make(chan struct{})
	fn := func(ctx context.Context) ([]byte, error) {
		<-release
		panic("boom")
	}
	const n = 10
	var results []<-chan doResult
	for range n {
		results = append(results, goDo(context.Background(), g, "k", fn))
	}
	p.waitJoins(t, n)
	close(release)
	for _, ch := range results {
		r := recv(t, ch)
		var pe *PanicError
		if !errors.As(r.err, &pe) || pe.Value != "boom" {
			t.Fatalf("err = %v, want *PanicError(boom)", r.err)
		}
	}
	// The failed flight is gone: the next call runs fn again.
	var c counter
	if _, err := g.Do(context.Background(), testStage, "k", c.fn(nil, "ok", nil)); err != nil || c.get() != 1 {
		t.Errorf("after a panic: err = %v, calls = %d; want nil, 1", err, c.get())
	}
}

func TestLocalWaiterMaxWait(t *testing.T) {
	cfg := testConfig("")
	cfg.Mode = ModeLocal
	cfg.FollowerMaxWait = 50 * time.Millisecond
	g := MustNew(t, cfg, nil)
	p := newProbe(g)
	release := make(chan struct{})
	defer close(release)
	var c counter
	leader := goDo(context.Background(), g, "k", c.fn(release, "v", nil))
	p.waitJoins(t, 1)
	_, err := g.Do(context.Background(), testStage, "k", c.fn(nil, "v", nil))
	if !errors.Is(err, ErrInProgress) {
		t.Fatalf("waiter err = %v, want ErrInProgress", err)
	}
	var r interface{ IsRetryable() bool }
	if !errors.As(err, &r) || !r.IsRetryable() {
		t.Errorf("ErrInProgress is not retryable")
	}
	release <- struct{}{}
	if r := recv(t, leader); r.err != nil {
		t.Errorf("leader: %v", r.err)
	}
}

func TestLocalFailureReachesWaitersAndIsRemoved(t *testing.T) {
	g := localGroup(t)
	p := newProbe(g)
	release := make(chan struct{})
	var c counter
	boom := errors.New("model failed")
	var wg sync.WaitGroup
	var results []<-chan doResult
	for range 5 {
		results = append(results, goDo(context.Background(), g, "k", c.fn(release, "", boom)))
	}
	p.waitJoins(t, 5)
	close(release)
	for _, ch := range results {
		if r := recv(t, ch); !errors.Is(r.err, boom) {
			t.Errorf("err = %v, want %v", r.err, boom)
		}
	}
	wg.Wait()
	if _, err := g.Do(context.Background(), testStage, "k", c.fn(nil, "v", nil)); err != nil || c.get() != 2 {
		t.Errorf("after a failure: err = %v, calls = %d; want nil, 2", err, c.get())
	}
}

func TestCloseCancelsFlightsAndRefusesNewOnes(t *testing.T) {
	cfg := testConfig("")
	cfg.Mode = ModeLocal
	g, err := New(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	running := make(chan struct{})
	r := goDo(context.Background(), g, "k", started(running, func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	waitClosed(t, running, "fn")
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, r); !errors.Is(got.err, context.Canceled) {
		t.Errorf("in-flight call: err = %v, want context.Canceled", got.err)
	}
	if _, err := g.Do(context.Background(), testStage, "k", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close: err = %v, want ErrClosed", err)
	}
}

// The flight's context is the call itself (callctx.go): contexts derived
// from it (a timeout around a Redis command, fn's own) register with it
// and are cancelled with it when every caller has gone; it carries the
// first caller's values.
func TestLocalDerivedContextsFollowTheFlight(t *testing.T) {
	type key struct{}
	g := localGroup(t)
	got := make(chan error, 1)
	running := make(chan struct{})
	fn := started(running, func(ctx context.Context) ([]byte, error) {
		if v, _ := ctx.Value(key{}).(string); v != "first caller" {
			got <- fmt.Errorf("fn ctx value = %q, want the first caller's", v)
			return nil, nil
		}
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		<-dctx.Done()
		if !errors.Is(dctx.Err(), context.Canceled) || !errors.Is(context.Cause(dctx), context.Canceled) {
			got <- fmt.Errorf("derived ctx: err %v, cause %v; want context.Canceled", dctx.Err(), context.Cause(dctx))
			return nil, nil
		}
		got <- nil
		return nil, dctx.Err()
	})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "first caller"))
	r := goDo(ctx, g, "k", fn)
	waitClosed(t, running, "fn")
	cancel()
	if res := recv(t, r); !errors.Is(res.err, context.Canceled) {
		t.Errorf("caller: err = %v, want context.Canceled", res.err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from fn's was not cancelled when the only caller left")
	}
}
