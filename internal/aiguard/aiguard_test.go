package aiguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const stage = "interview-evaluation"

// testPolicy is a policy with small numbers: a breaker that opens at 2
// failures among the last 4 attempts and stays open until the test says.
func testPolicy() StagePolicy {
	return StagePolicy{
		Timeout: 10 * time.Second,
		Breaker: BreakerPolicy{FailureRatio: 0.5, Window: 4, Open: time.Hour, HalfOpenCalls: 2},
	}
}

// MustNew returns a Guard with p as the default policy and its registry.
func MustNew(tb testing.TB, p StagePolicy) (*Guard, *prometheus.Registry) {
	tb.Helper()
	reg := prometheus.NewRegistry()
	g, err := New(Config{Default: p}, reg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return g, reg
}

// metricValue returns the value of the counter or gauge name with the given
// label pairs, 0 if absent.
func metricValue(tb testing.TB, reg *prometheus.Registry, name string, labels ...string) float64 {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatalf("Gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue metric
				}
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

func calls(tb testing.TB, reg *prometheus.Registry, result string) float64 {
	tb.Helper()
	return metricValue(tb, reg, "aimeeting_aiguard_calls_total", "stage", stage, "result", result)
}

// wantGuardErr fails unless err is a retryable *Error of the guard that
// matches sentinel (ErrTimeout or ErrOverloaded).
func wantGuardErr(tb testing.TB, err error, sentinel error) *Error {
	tb.Helper()
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("err = %v (%T), want *aiguard.Error %v", err, err, sentinel)
	}
	if !errors.Is(err, sentinel) || !e.IsRetryable() || e.Stage == "" {
		tb.Fatalf("err = %+v, want %v, retryable, with its stage", e, sentinel)
	}
	return e
}

// modelErr is an error classified the way the guard reads it.
type modelErr struct {
	msg   string
	retry bool
	cause error
}

func (e *modelErr) Error() string     { return e.msg }
func (e *modelErr) IsRetryable() bool { return e.retry }
func (e *modelErr) Unwrap() error     { return e.cause }

// waitState polls until stage's breaker reports want.
func waitState(tb testing.TB, g *Guard, want string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for g.State(stage) != want {
		if time.Now().After(deadline) {
			tb.Fatalf("State = %q, want %q", g.State(stage), want)
		}
		time.Sleep(time.Millisecond)
	}
}

var (
	errRetryable    = &modelErr{msg: "model unreachable", retry: true}
	errNonRetryable = &modelErr{msg: "model rejected the request"}
)

func succeed(context.Context) (string, error) { return "ok", nil }
func fail(context.Context) (string, error)    { return "", errRetryable }

func TestTimeoutCancelsModelRequest(t *testing.T) {
	const modelDelay = 10 * time.Second
	cancelled := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(modelDelay):
			fmt.Fprint(w, "too late")
		}
	}))
	defer srv.Close()

	p := testPolicy()
	p.Timeout = 50 * time.Millisecond
	g, reg := MustNew(t, p)

	start := time.Now()
	_, err := Do(context.Background(), g, stage, func(ctx context.Context) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			return "", err
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return "", &modelErr{msg: "model unreachable", retry: true, cause: err}
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	})
	elapsed := time.Since(start)

	e := wantGuardErr(t, err, ErrTimeout)
	if !strings.Contains(e.Message, stage) || !strings.Contains(e.Message, "50ms") {
		t.Errorf("message %q should name the stage and the timeout", e.Message)
	}
	if elapsed > modelDelay/2 {
		t.Errorf("Do took %v, want well under the model's %v", elapsed, modelDelay)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the model server never saw the request cancelled")
	}
	if got := calls(t, reg, resultTimeout); got != 1 {
		t.Errorf("timeout calls = %v, want 1", got)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantCalls int32
	}{
		{"retryable error is retried", errRetryable, 3},
		{"non-retryable error is not", errNonRetryable, 1},
		{"unclassified error is not", errors.New("bug"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPolicy()
			p.Retries, p.RetryDelay = 2, time.Millisecond
			p.Breaker.Window = 100 // keep the breaker out of the way
			g, reg := MustNew(t, p)
			var n atomic.Int32
			_, err := Do(context.Background(), g, stage, func(context.Context) (int, error) {
				n.Add(1)
				return 0, tt.err
			})
			if err != tt.err {
				t.Errorf("err = %v, want fn's error unchanged: %v", err, tt.err)
			}
			if got := n.Load(); got != tt.wantCalls {
				t.Errorf("fn called %d times, want %d", got, tt.wantCalls)
			}
			if got, want := metricValue(t, reg, "aimeeting_aiguard_retries_total", "stage", stage), float64(tt.wantCalls-1); got != want {
				t.Errorf("retries_total = %v, want %v", got, want)
			}
			if got := calls(t, reg, resultFailure); got != 1 {
				t.Errorf("failure calls = %v, want 1", got)
			}
		})
	}
}

func TestRetrySucceeds(t *testing.T) {
	p := testPolicy()
	p.Retries = 1
	g, _ := MustNew(t, p)
	var n atomic.Int32
	got, err := Do(context.Background(), g, stage, func(context.Context) (string, error) {
		if n.Add(1) == 1 {
			return "", errRetryable
		}
		return "second", nil
	})
	if err != nil || got != "second" {
		t.Fatalf("Do = %q, %v, want second, nil", got, err)
	}
}

func TestTimedOutAttemptIsRetried(t *testing.T) {
	p := testPolicy()
	p.Timeout, p.Retries = 20*time.Millisecond, 1
	g, _ := MustNew(t, p)
	var n atomic.Int32
	_, err := Do(context.Background(), g, stage, func(ctx context.Context) (string, error) {
		n.Add(1)
		<-ctx.Done()
		return "", ctx.Err()
	})
	wantGuardErr(t, err, ErrTimeout)
	if got := n.Load(); got != 2 {
		t.Errorf("fn called %d times, want 2", got)
	}
}

func TestNoRetryAfterCallerCancels(t *testing.T) {
	t.Run("cancelled during the call", func(t *testing.T) {
		p := testPolicy()
		p.Retries = 3
		g, reg := MustNew(t, p)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var n atomic.Int32
		_, err := Do(ctx, g, stage, func(context.Context) (string, error) {
			n.Add(1)
			cancel()
			return "", errRetryable
		})
		if !errors.Is(err, context.Canceled) || errors.As(err, new(*Error)) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if got := n.Load(); got != 1 {
			t.Errorf("fn called %d times, want 1", got)
		}
		if got := calls(t, reg, resultCanceled); got != 1 {
			t.Errorf("canceled calls = %v, want 1", got)
		}
	})
	t.Run("cancelled during the retry delay", func(t *testing.T) {
		p := testPolicy()
		p.Retries, p.RetryDelay = 3, time.Hour
		g, _ := MustNew(t, p)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		called := make(chan struct{})
		var n atomic.Int32
		done := make(chan error)
		go func() {
			_, err := Do(ctx, g, stage, func(context.Context) (string, error) {
				if n.Add(1) == 1 {
					close(called)
				}
				return "", errRetryable
			})
			done <- err
		}()
		<-called
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if got := n.Load(); got != 1 {
			t.Errorf("fn called %d times, want 1", got)
		}
	})
}

func TestCallerCancelIsNotTimeoutNorBreakerFailure(t *testing.T) {
	p := testPolicy()
	p.Breaker.Window, p.Breaker.FailureRatio = 1, 1 // one failure opens
	g, _ := MustNew(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	_, err := Do(ctx, g, stage, func(ctx context.Context) (string, error) {
		close(started)
		<-ctx.Done()
		// The model layer classifies a broken request as unavailable.
		return "", &modelErr{msg: "model unreachable", retry: true, cause: ctx.Err()}
	})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := g.State(stage); got != StateClosed {
		t.Errorf("State = %q, want closed: a cancelled call is not a model failure", got)
	}
}

// blocker runs calls that block inside fn until released.
type blocker struct {
	started chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}), release: make(chan struct{})}
}

// fn signals that it started, then waits for release and returns err.
func (b *blocker) fn(err error) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		b.started <- struct{}{}
		<-b.release
		return "", err
	}
}

// start runs n blocked calls and waits until all are inside fn; the returned
// func releases them and returns their errors.
func (b *blocker) start(g *Guard, n int, err error) func() []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = Do(context.Background(), g, stage, b.fn(err))
		})
	}
	for range n {
		<-b.started
	}
	return func() []error {
		close(b.release)
		wg.Wait()
		return errs
	}
}

func TestBulkhead(t *testing.T) {
	p := testPolicy()
	p.MaxConcurrent = 2
	g, reg := MustNew(t, p)

	finish := newBlocker().start(g, 2, nil)
	called := false
	_, err := Do(context.Background(), g, stage, func(context.Context) (string, error) {
		called = true
		return "", nil
	})
	e := wantGuardErr(t, err, ErrOverloaded)
	if !strings.Contains(e.Message, "bulkhead") {
		t.Errorf("message %q should say the bulkhead is full", e.Message)
	}
	if called {
		t.Error("fn was called despite a full bulkhead")
	}
	for _, err := range finish() {
		if err != nil {
			t.Errorf("blocked call: %v", err)
		}
	}
	if _, err := Do(context.Background(), g, stage, succeed); err != nil {
		t.Errorf("after the bulkhead drained: %v", err)
	}
	if got := calls(t, reg, resultRejectedBulkhead); got != 1 {
		t.Errorf("rejected_bulkhead = %v, want 1", got)
	}
	if got := calls(t, reg, resultSuccess); got != 3 {
		t.Errorf("success = %v, want 3", got)
	}
}

func TestBulkheadMaxWait(t *testing.T) {
	p := testPolicy()
	p.MaxConcurrent, p.MaxWait = 1, time.Minute
	g, _ := MustNew(t, p)
	b := newBlocker()
	finish := b.start(g, 1, nil)
	done := make(chan error)
	go func() {
		_, err := Do(context.Background(), g, stage, succeed)
		done <- err
	}()
	// Whether the second call is already waiting or not, it must get the
	// permit once the first one finishes instead of being rejected.
	finish()
	if err := <-done; err != nil {
		t.Errorf("waiting call: %v", err)
	}
}

func TestBreaker(t *testing.T) {
	p := testPolicy()
	p.Breaker.Open = 200 * time.Millisecond
	g, reg := MustNew(t, p)
	ctx := context.Background()
	gauge := func() float64 {
		return metricValue(t, reg, "aimeeting_aiguard_breaker_state", "stage", stage)
	}

	// One failure among the last four: under the ratio.
	for _, fn := range []func(context.Context) (string, error){succeed, succeed, fail, succeed} {
		Do(ctx, g, stage, fn)
	}
	if got := g.State(stage); got != StateClosed {
		t.Fatalf("after 1 failure in 4: State = %q, want closed", got)
	}
	// Window now s,f,s,f: half the last four failed.
	Do(ctx, g, stage, fail)
	if got := g.State(stage); got != StateOpen {
		t.Fatalf("after 2 failures in 4: State = %q, want open", got)
	}
	if got := gauge(); got != gaugeOpen {
		t.Errorf("breaker_state = %v, want %v", got, gaugeOpen)
	}

	// Open: rejected without calling fn.
	called := false
	_, err := Do(ctx, g, stage, func(context.Context) (string, error) {
		called = true
		return "", nil
	})
	e := wantGuardErr(t, err, ErrOverloaded)
	if !strings.Contains(e.Message, "circuit breaker open") || called {
		t.Errorf("open breaker: message %q, fn called %v", e.Message, called)
	}

	// Half-open after the open period: exactly HalfOpenCalls trials pass.
	waitState(t, g, StateHalfOpen)
	finish := newBlocker().start(g, 2, nil)
	if got := gauge(); got != gaugeHalfOpen {
		t.Errorf("breaker_state = %v, want %v", got, gaugeHalfOpen)
	}
	called = false
	_, err = Do(ctx, g, stage, func(context.Context) (string, error) {
		called = true
		return "", nil
	})
	wantGuardErr(t, err, ErrOverloaded)
	if called {
		t.Error("a third call ran while two trials were in flight")
	}
	for _, err := range finish() {
		if err != nil {
			t.Errorf("trial call: %v", err)
		}
	}
	if got := g.State(stage); got != StateClosed {
		t.Fatalf("after successful trials: State = %q, want closed", got)
	}
	if got := gauge(); got != gaugeClosed {
		t.Errorf("breaker_state = %v, want %v", got, gaugeClosed)
	}

	// Open again, then a failed trial reopens it.
	Do(ctx, g, stage, fail)
	Do(ctx, g, stage, fail)
	if got := g.State(stage); got != StateOpen {
		t.Fatalf("State = %q, want open", got)
	}
	waitState(t, g, StateHalfOpen)
	if _, err := Do(ctx, g, stage, fail); err != errRetryable {
		t.Fatalf("trial: err = %v, want fn's error", err)
	}
	if got := g.State(stage); got != StateOpen {
		t.Fatalf("after a failed trial: State = %q, want open", got)
	}
	if got := calls(t, reg, resultRejectedBreaker); got != 2 {
		t.Errorf("rejected_breaker = %v, want 2", got)
	}
}

func TestBreakerCountsTimeoutsNotClientErrors(t *testing.T) {
	p := testPolicy()
	p.Breaker.Window, p.Breaker.FailureRatio = 2, 0.5 // one failure in two opens
	t.Run("non-retryable errors", func(t *testing.T) {
		g, _ := MustNew(t, p)
		for range 10 {
			if _, err := Do(context.Background(), g, stage, func(context.Context) (int, error) {
				return 0, errNonRetryable
			}); err != errNonRetryable {
				t.Fatalf("err = %v, want fn's error", err)
			}
		}
		if got := g.State(stage); got != StateClosed {
			t.Errorf("State = %q, want closed", got)
		}
	})
	t.Run("timeouts", func(t *testing.T) {
		p := p
		p.Timeout = 10 * time.Millisecond
		g, _ := MustNew(t, p)
		Do(context.Background(), g, stage, func(ctx context.Context) (int, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		})
		if got := g.State(stage); got != StateOpen {
			t.Errorf("State = %q, want open", got)
		}
	})
}

func TestRejectionsAreNotBreakerFailures(t *testing.T) {
	p := testPolicy()
	p.Breaker.Window, p.Breaker.FailureRatio = 1, 1 // one failure opens
	const rejections = 20

	t.Run("bulkhead", func(t *testing.T) {
		p := p
		p.MaxConcurrent = 1
		g, reg := MustNew(t, p)
		finish := newBlocker().start(g, 1, nil)
		for range rejections {
			_, err := Do(context.Background(), g, stage, succeed)
			wantGuardErr(t, err, ErrOverloaded)
		}
		finish()
		if got := g.State(stage); got != StateClosed {
			t.Errorf("State = %q, want closed", got)
		}
		// The breaker saw the one real call only.
		if got := g.stage(stage, "").breaker.Metrics().Executions(); got != 1 {
			t.Errorf("breaker executions = %d, want 1", got)
		}
		if got := calls(t, reg, resultRejectedBulkhead); got != rejections {
			t.Errorf("rejected_bulkhead = %v, want %d", got, rejections)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		p := p
		p.RatePerSecond = 0.001 // one call, then none for 1000 s
		g, reg := MustNew(t, p)
		if _, err := Do(context.Background(), g, stage, succeed); err != nil {
			t.Fatalf("first call: %v", err)
		}
		for range rejections {
			_, err := Do(context.Background(), g, stage, succeed)
			e := wantGuardErr(t, err, ErrOverloaded)
			if !strings.Contains(e.Message, "rate limit") {
				t.Fatalf("message %q should say the rate limit was reached", e.Message)
			}
		}
		if got := g.State(stage); got != StateClosed {
			t.Errorf("State = %q, want closed", got)
		}
		if got := g.stage(stage, "").breaker.Metrics().Executions(); got != 1 {
			t.Errorf("breaker executions = %d, want 1", got)
		}
		if got := calls(t, reg, resultRejectedRate); got != rejections {
			t.Errorf("rejected_rate = %v, want %d", got, rejections)
		}
	})
}

func TestRateLimitBurst(t *testing.T) {
	p := testPolicy()
	p.RatePerSecond, p.Burst = 0.001, 3
	g, _ := MustNew(t, p)
	for i := range 3 {
		if _, err := Do(context.Background(), g, stage, succeed); err != nil {
			t.Fatalf("call %d within the burst: %v", i+1, err)
		}
	}
	_, err := Do(context.Background(), g, stage, succeed)
	wantGuardErr(t, err, ErrOverloaded)
}

func TestPanicReleasesPermits(t *testing.T) {
	p := testPolicy()
	p.MaxConcurrent = 1
	g, _ := MustNew(t, p)
	func() {
		defer func() {
			r := recover()
			pe, ok := r.(*panicError)
			if !ok || pe.value != "boom" {
				t.Errorf("recovered %v, want the panic wrapped with its stack", r)
			}
		}()
		Do(context.Background(), g, stage, func(context.Context) (int, error) { panic("boom") })
	}()
	if _, err := Do(context.Background(), g, stage, succeed); err != nil {
		t.Errorf("after a panic: %v", err)
	}
}

func TestResultTypes(t *testing.T) {
	g, _ := MustNew(t, testPolicy())
	got, err := Do(context.Background(), g, stage, func(context.Context) (error, error) { return nil, nil })
	if got != nil || err != nil {
		t.Errorf("nil interface result: got %v, %v", got, err)
	}
	type profile struct{ Skills []string }
	p, err := Do(context.Background(), g, stage, func(context.Context) (*profile, error) {
		return &profile{Skills: []string{"go"}}, nil
	})
	if err != nil || p.Skills[0] != "go" {
		t.Errorf("struct result: got %+v, %v", p, err)
	}
}

func TestStagesAreIndependent(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := Config{Default: testPolicy(), Stages: map[string]StagePolicy{"other": testPolicy()}}
	g, err := New(cfg, reg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				Do(context.Background(), g, stage, fail)
			} else {
				Do(context.Background(), g, "other", succeed)
			}
		})
	}
	wg.Wait()
	if got := g.State(stage); got != StateOpen {
		t.Errorf("State(%s) = %q, want open", stage, got)
	}
	if got := g.State("other"); got != StateClosed {
		t.Errorf("State(other) = %q, want closed", got)
	}
	want := map[string]string{stage: StateOpen, "other": StateClosed}
	if got := g.States(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("States = %v, want %v", got, want)
	}
	if got := g.State("never-called"); got != StateClosed {
		t.Errorf("State(never-called) = %q, want closed", got)
	}
}

func TestSharedRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for i := range 2 {
		g, err := New(Config{Default: testPolicy()}, reg)
		if err != nil {
			t.Fatalf("guard %d: %v", i, err)
		}
		Do(context.Background(), g, stage, succeed)
	}
	if got := calls(t, reg, resultSuccess); got != 2 {
		t.Errorf("success = %v, want 2 (both guards counted)", got)
	}
}

func TestNilRegisterer(t *testing.T) {
	g, err := New(DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Do(context.Background(), g, "chat", succeed); err != nil || got != "ok" {
		t.Errorf("Do = %q, %v", got, err)
	}
}

// One failing target of a stage opens only its own breaker: the stage's
// other targets and the stage itself keep calling.
func TestTargetsAreIndependent(t *testing.T) {
	g, reg := MustNew(t, testPolicy())
	for range 4 {
		DoFor(context.Background(), g, stage, "model-a", fail)
		if _, err := DoFor(context.Background(), g, stage, "model-b", succeed); err != nil {
			t.Fatalf("model-b: %v", err)
		}
	}
	if got := g.TargetState(stage, "model-a"); got != StateOpen {
		t.Fatalf("model-a breaker %q, want open", got)
	}
	if _, err := DoFor(context.Background(), g, stage, "model-a", succeed); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("model-a with its breaker open: %v, want ErrOverloaded", err)
	}
	for _, target := range []string{"model-b", ""} {
		if got := g.TargetState(stage, target); got != StateClosed {
			t.Errorf("target %q breaker %q, want closed", target, got)
		}
		if _, err := DoFor(context.Background(), g, stage, target, succeed); err != nil {
			t.Errorf("target %q: %v", target, err)
		}
	}
	if got := metricValue(t, reg, "aimeeting_aiguard_target_breaker_state", "stage", stage, "target", "model-a"); got != gaugeOpen {
		t.Errorf("target_breaker_state of model-a = %v, want %v", got, gaugeOpen)
	}
	if got := g.States(); len(got) != 1 || got[stage] != StateClosed {
		t.Errorf("States = %v, want only the stage's own breaker, closed", got)
	}
}
