// Package aiguard protects model calls per stage (interview-evaluation,
// resume-profile-extraction, chat, ...) with a timeout, retries, a bulkhead,
// a circuit breaker and an optional rate limit, built on failsafe-go.
//
// Each stage gets its own policies, created on its first call and shared by
// every call of the stage on this Guard, so a slow or failing stage cannot
// starve the others. Do runs one call:
//
//	profile, err := aiguard.Do(ctx, guard, "resume-profile-extraction",
//		func(ctx context.Context) (Profile, error) { return model.Extract(ctx, resume) })
//
// fn must honour ctx: the stage timeout works by cancelling it (aborting the
// HTTP request to the model), and Do returns only once fn has returned.
//
// Errors from Do are fn's own error, passed through unchanged after the
// retries, or an *Error made by the guard, retryable and with a message
// naming the stage and what to do:
//
//   - the stage timeout fired: errors.Is(err, ErrTimeout);
//   - bulkhead full, circuit breaker open or rate limit reached:
//     errors.Is(err, ErrOverloaded). The rate limit guards the server's model
//     capacity, not a client's request rate, so it is an overload rather
//     than a client's rate limit;
//   - the caller's ctx ended: ctx.Err() itself (context.Canceled or
//     context.DeadlineExceeded), never a guard timeout.
//
// What those mean to the caller's clients (an HTTP 504 or 503, an envelope
// code) is the caller's to say. fn's errors are classified as model
// failures by an IsRetryable() bool method anywhere in their chain (and a
// context deadline counts as retryable).
//
// The package never logs; it exposes Prometheus metrics under
// aimeeting_aiguard_ (calls_total by stage and result, retries_total,
// call_duration_seconds, breaker_state) and Guard.State for readiness checks.
package aiguard

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/ratelimiter"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"
	"github.com/prometheus/client_golang/prometheus"
)

// Breaker states as returned by Guard.State.
const (
	StateClosed   = "closed"
	StateOpen     = "open"
	StateHalfOpen = "half-open"
)

// Guard holds the policies of every stage. It is safe for concurrent use.
//
// Stage names should come from a fixed set (constants such as
// StageInterviewEvaluation): each name called keeps its policies and metric
// series for the life of the Guard.
type Guard struct {
	cfg     Config
	metrics *metrics

	mu     sync.Mutex             // protects stages
	stages map[string]*stageGuard // by stage name; entries are never removed
}

// New returns a Guard for cfg, registering its metrics on reg (nil: metrics
// are kept but not exported). It fails if cfg is invalid (see
// Config.Validate) or the metrics cannot be registered.
func New(cfg Config, reg prometheus.Registerer) (*Guard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	// Copy the map so that a caller changing it later cannot race with us.
	stages := make(map[string]StagePolicy, len(cfg.Stages))
	for name, p := range cfg.Stages {
		stages[name] = p
	}
	cfg.Stages = stages
	return &Guard{cfg: cfg, metrics: m, stages: make(map[string]*stageGuard)}, nil
}

// Do calls fn under the policies of stage and returns its result. fn gets a
// context that is cancelled when the stage timeout fires or ctx ends. On
// error the result is T's zero value. See the package documentation for the
// errors.
//
// A panic in fn releases the stage's permits and is re-raised by Do, wrapped
// with fn's stack.
func Do[T any](ctx context.Context, g *Guard, stage string, fn func(ctx context.Context) (T, error)) (T, error) {
	return DoFor(ctx, g, stage, "", fn)
}

// DoFor is Do for one target of stage (a model the stage is routed to): the
// call gets the stage's policy, but its own bulkhead, breaker and rate
// limit, so one failing model opens only its own breaker. An empty target
// is the stage's own policies, as Do uses. Targets, like stages, should
// come from a small set: each keeps its policies for the life of the Guard.
func DoFor[T any](ctx context.Context, g *Guard, stage, target string, fn func(ctx context.Context) (T, error)) (T, error) {
	s := g.stage(stage, target)
	start := time.Now()

	// fn runs on this goroutine (failsafe-go's timeout cancels the context
	// but waits for fn), so panicked needs no lock.
	var panicked *panicError
	res, err := s.executor.WithContext(ctx).GetWithExecution(func(exec failsafe.Execution[any]) (_ any, err error) {
		defer func() {
			if r := recover(); r != nil {
				panicked = &panicError{value: r, stack: debug.Stack()}
				err = panicked // not retryable, not a breaker failure
			}
		}()
		v, err := fn(exec.Context())
		if err != nil && ctx.Err() != nil {
			// The caller gave up: whatever fn says tells nothing about the model.
			err = fmt.Errorf("%w: %w", errCallerGone, err)
		}
		return v, err
	})

	result, err := s.classify(ctx, err)
	if panicked != nil {
		result = resultFailure
	}
	s.calls[result].Inc()
	switch result {
	case resultRejectedBulkhead, resultRejectedBreaker, resultRejectedRate:
	default:
		s.duration.Observe(time.Since(start).Seconds())
	}
	if panicked != nil {
		panic(panicked)
	}
	if err != nil {
		var zero T
		return zero, err
	}
	v, _ := res.(T) // res is nil when fn returned a nil interface value
	return v, nil
}

// State returns the circuit breaker state of stage: StateClosed,
// StateOpen or StateHalfOpen. An open breaker whose open period is over
// reports StateHalfOpen: failsafe-go only moves it there on the next call,
// which it will let through as a trial. A stage never called is closed.
func (g *Guard) State(stage string) string {
	return g.TargetState(stage, "")
}

// TargetState is State for one target of stage (see DoFor).
func (g *Guard) TargetState(stage, target string) string {
	g.mu.Lock()
	s := g.stages[stageKey(stage, target)]
	g.mu.Unlock()
	if s == nil {
		return StateClosed
	}
	return breakerState(s.breaker)
}

// States returns the breaker state of every stage called so far, by stage
// name.
func (g *Guard) States() map[string]string {
	g.mu.Lock()
	stages := make([]*stageGuard, 0, len(g.stages))
	for _, s := range g.stages {
		stages = append(stages, s)
	}
	g.mu.Unlock()
	states := make(map[string]string, len(stages))
	for _, s := range stages {
		if s.target == "" {
			states[s.name] = breakerState(s.breaker)
		}
	}
	return states
}

func breakerState(cb circuitbreaker.CircuitBreaker[any]) string {
	switch cb.State() {
	case circuitbreaker.OpenState:
		if cb.RemainingDelay() == 0 {
			return StateHalfOpen
		}
		return StateOpen
	case circuitbreaker.HalfOpenState:
		return StateHalfOpen
	default:
		return StateClosed
	}
}

// stageGuard is the policies and metrics of one stage.
type stageGuard struct {
	name     string
	target   string // "" for the stage's own policies
	policy   StagePolicy
	breaker  circuitbreaker.CircuitBreaker[any]
	executor failsafe.Executor[any]
	calls    map[string]prometheus.Counter // by result; read-only after creation
	duration prometheus.Observer
}

// stageKey is the key of a stage's (or a stage target's) policies.
func stageKey(stage, target string) string {
	if target == "" {
		return stage
	}
	return stage + "\x00" + target
}

// stage returns the policies of stage and target, creating them on first
// use.
func (g *Guard) stage(name, target string) *stageGuard {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := stageKey(name, target)
	s, ok := g.stages[key]
	if !ok {
		s = newStageGuard(name, target, g.cfg.Policy(name), g.metrics)
		g.stages[key] = s
	}
	return s
}

func newStageGuard(name, target string, p StagePolicy, m *metrics) *stageGuard {
	s := &stageGuard{
		name:     name,
		target:   target,
		policy:   p,
		calls:    make(map[string]prometheus.Counter),
		duration: m.duration.WithLabelValues(name),
	}
	for _, r := range []string{resultSuccess, resultFailure, resultTimeout, resultCanceled,
		resultRejectedBulkhead, resultRejectedBreaker, resultRejectedRate} {
		s.calls[r] = m.calls.WithLabelValues(name, r)
	}
	var gauge prometheus.Gauge
	if target == "" {
		gauge = m.breaker.WithLabelValues(name)
	} else {
		gauge = m.targetBreaker.WithLabelValues(name, target)
	}
	gauge.Set(gaugeClosed)

	// Outermost first (failsafe.With composes the first policy around the
	// rest): see StagePolicy for why this order.
	var policies []failsafe.Policy[any]
	if p.RatePerSecond > 0 {
		var b ratelimiter.Builder[any]
		if p.Burst > 1 {
			b = ratelimiter.NewBurstyBuilder[any](uint(p.Burst), p.rateWindow())
		} else {
			b = ratelimiter.NewSmoothBuilderWithMaxRate[any](p.rateWindow())
		}
		policies = append(policies, b.Build()) // max wait 0: reject at once
	}
	if p.MaxConcurrent > 0 {
		policies = append(policies,
			bulkhead.NewBuilder[any](uint(p.MaxConcurrent)).WithMaxWaitTime(p.MaxWait).Build())
	}
	if p.Retries > 0 {
		retries := m.retries.WithLabelValues(name)
		policies = append(policies, retrypolicy.NewBuilder[any]().
			HandleIf(isModelFailure).
			WithMaxRetries(p.Retries).
			WithDelay(p.RetryDelay).
			// Else failsafe-go wraps the last error in retrypolicy.ExceededError.
			ReturnLastFailure().
			OnRetry(func(failsafe.ExecutionEvent[any]) { retries.Inc() }).
			Build())
	}
	s.breaker = circuitbreaker.NewBuilder[any]().
		HandleIf(isModelFailure).
		// Count based: opens when threshold of the last Window attempts failed.
		// (WithFailureRateThreshold would be time based.)
		WithFailureThresholdRatio(p.Breaker.failureThreshold(), uint(p.Breaker.Window)).
		WithDelay(p.Breaker.Open).
		// HalfOpenCalls trials; all must succeed, the first failure reopens.
		WithSuccessThreshold(uint(p.Breaker.HalfOpenCalls)).
		OnStateChanged(func(e circuitbreaker.StateChangedEvent) {
			switch e.NewState {
			case circuitbreaker.OpenState:
				gauge.Set(gaugeOpen)
			case circuitbreaker.HalfOpenState:
				gauge.Set(gaugeHalfOpen)
			default:
				gauge.Set(gaugeClosed)
			}
		}).
		Build()
	policies = append(policies, s.breaker, timeout.New[any](p.Timeout))
	s.executor = failsafe.With(policies...)
	return s
}

// errCallerGone marks, inside the execution, an fn error returned after the
// caller's context ended, so that neither the retry policy nor the breaker
// counts it. Do returns ctx.Err() instead; it never escapes.
var errCallerGone = errors.New("aiguard: caller context done")

// isModelFailure reports whether an attempt's error says the model is down or
// misbehaving: the attempt timed out, or fn returned a retryable error. It
// decides both what is retried and what the breaker counts as a failure.
//
// The policies' own sentinels are compared with ==: failsafe-go returns them
// unwrapped, and an fn error that merely wraps one (from a nested guard) is
// judged by its own classification.
func isModelFailure(_ any, err error) bool {
	switch {
	case err == nil:
		return false
	case err == timeout.ErrExceeded:
		return true
	case err == bulkhead.ErrFull, err == circuitbreaker.ErrOpen, err == ratelimiter.ErrExceeded:
		return false // rejections, not model calls (and never reach the breaker)
	case errors.Is(err, errCallerGone):
		return false
	default:
		return isRetryable(err)
	}
}

// isRetryable reports whether err says a repeat may succeed: the first
// IsRetryable() bool in its chain, else true only for a context deadline.
// Unclassified errors (bugs, plain errors) are not model failures.
func isRetryable(err error) bool {
	var r interface{ IsRetryable() bool }
	if errors.As(err, &r) {
		return r.IsRetryable()
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// The guard's own failures, for errors.Is. Every *Error is one of them.
var (
	// ErrTimeout: the stage's timeout fired before the model answered.
	ErrTimeout = errors.New("aiguard: stage timeout")
	// ErrOverloaded: the call was rejected without reaching the model
	// (bulkhead full, circuit breaker open or rate limit reached).
	ErrOverloaded = errors.New("aiguard: stage overloaded")
)

// Error is a call failed by the guard itself rather than by fn. It is
// retryable; Message names the stage and says what happened.
type Error struct {
	Stage   string
	Message string
	// Timeout is true for a stage timeout, false for a rejection.
	Timeout bool
	// Err is the failsafe-go error behind it.
	Err error
}

// Error returns the message and its cause.
func (e *Error) Error() string { return e.Message + ": " + e.Err.Error() }

// Unwrap returns the failsafe-go error.
func (e *Error) Unwrap() error { return e.Err }

// Is matches ErrTimeout or ErrOverloaded.
func (e *Error) Is(target error) bool {
	return target == ErrTimeout && e.Timeout || target == ErrOverloaded && !e.Timeout
}

// IsRetryable reports true: a later call may find the model faster or free.
func (e *Error) IsRetryable() bool { return true }

// classify maps the execution's error to the error Do returns and the result
// label of the call.
func (s *stageGuard) classify(ctx context.Context, err error) (string, error) {
	if err == nil {
		return resultSuccess, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return resultCanceled, ctxErr
	}
	switch err {
	case timeout.ErrExceeded:
		return resultTimeout, &Error{Stage: s.name, Timeout: true, Err: err, Message: fmt.Sprintf(
			"the AI model did not answer stage %q within %s", s.name, s.policy.Timeout)}
	case bulkhead.ErrFull:
		return resultRejectedBulkhead, &Error{Stage: s.name, Err: err, Message: fmt.Sprintf(
			"AI stage %q is busy: %d model calls already in flight (bulkhead full), try again shortly",
			s.name, s.policy.MaxConcurrent)}
	case circuitbreaker.ErrOpen:
		return resultRejectedBreaker, &Error{Stage: s.name, Err: err, Message: fmt.Sprintf(
			"AI stage %q is paused after repeated model failures (circuit breaker open), try again shortly",
			s.name)}
	case ratelimiter.ErrExceeded:
		return resultRejectedRate, &Error{Stage: s.name, Err: err, Message: fmt.Sprintf(
			"AI stage %q is busy: model call rate limit of %g/s reached, try again shortly",
			s.name, s.policy.RatePerSecond)}
	}
	return resultFailure, err
}

// panicError is a panic in fn, re-raised by Do with fn's stack.
type panicError struct {
	value any
	stack []byte
}

// Error implements error.
func (p *panicError) Error() string {
	return fmt.Sprintf("aiguard: panic in guarded call: %v\n\n%s", p.value, p.stack)
}

// Unwrap returns the panic value when it is an error.
func (p *panicError) Unwrap() error {
	err, _ := p.value.(error)
	return err
}
