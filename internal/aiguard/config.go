package aiguard

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// StagePolicy is how the guard protects the model calls of one stage.
//
// The policies apply in this order, outermost first:
//
//	rate limit → bulkhead → retries → circuit breaker → timeout → fn
//
// so a call rejected by the rate limiter or the bulkhead never reaches the
// breaker (it is not a model failure), every attempt, retries included, is
// seen by the breaker and gets its own timeout, and a call keeps its bulkhead
// permit across its retries.
type StagePolicy struct {
	// Timeout bounds each attempt. When it fires the context passed to fn is
	// cancelled, so an HTTP request made with it is aborted. Must be positive.
	Timeout time.Duration

	// MaxConcurrent bounds the calls of the stage in flight at once (a
	// bulkhead). 0 means unlimited.
	MaxConcurrent int
	// MaxWait is how long a call waits for a bulkhead permit before it is
	// rejected. 0 rejects at once.
	MaxWait time.Duration

	// Retries is how many times a failed attempt is repeated. Only retryable
	// failures are repeated: fn errors whose chain says IsRetryable() true (or a context deadline),
	// and attempts cut by Timeout. Rejections by the rate limiter, the
	// bulkhead or the breaker are never retried. In the worst case a call
	// takes (Retries+1)*Timeout + Retries*RetryDelay.
	Retries int
	// RetryDelay is the pause before each retry.
	RetryDelay time.Duration

	// Breaker configures the stage's circuit breaker.
	Breaker BreakerPolicy

	// RatePerSecond limits how many calls of the stage start per second on
	// this instance. 0 turns the limit off. A call takes one permit however
	// many retries it makes.
	RatePerSecond float64
	// Burst is how many calls may start at once above the steady rate. With
	// Burst <= 1 calls are spaced evenly at 1/RatePerSecond; with Burst > 1
	// up to Burst calls may start in each window of Burst/RatePerSecond.
	Burst int
}

// BreakerPolicy configures a count-based circuit breaker.
//
// While closed, the breaker opens when at least FailureRatio of the last
// Window attempts failed, that is when ceil(FailureRatio*Window) of them
// failed. Before Window attempts have happened the missing ones count as
// successes, so the breaker never opens on a handful of early failures
// unless they already decide the ratio (with the defaults, 25 failures).
//
// Failures are attempts cut by the stage timeout and fn errors that are
// retryable (IsRetryable() true): the model is down or misbehaving. A
// non-retryable error (the model rejected a bad request) and a call the
// caller cancelled count as successes: the model answered, or we don't know.
// failsafe-go has no "ignore" outcome; every admitted attempt is recorded as
// one or the other.
//
// Once open, the breaker rejects calls for Open, then half-opens and lets
// HalfOpenCalls trial calls through; it closes when all of them succeeded and
// opens again at the first failure.
type BreakerPolicy struct {
	// FailureRatio is the share of failed attempts in Window that opens the
	// breaker, in (0, 1].
	FailureRatio float64
	// Window is the number of most recent attempts the ratio is taken over.
	Window int
	// Open is how long the breaker rejects calls before half-opening.
	Open time.Duration
	// HalfOpenCalls is the number of trial calls let through when half-open,
	// all of which must succeed to close the breaker.
	HalfOpenCalls int
}

// failureThreshold is the number of failures in the window that opens the
// breaker.
func (b BreakerPolicy) failureThreshold() uint {
	return uint(math.Ceil(b.FailureRatio * float64(b.Window)))
}

// Config is the guard's configuration: a policy per stage name, and one for
// every stage not listed.
type Config struct {
	// Default applies to stages missing from Stages.
	Default StagePolicy
	// Stages maps a stage name (e.g. "interview-evaluation") to its policy.
	Stages map[string]StagePolicy
}

// Policy returns the policy of stage: its entry in Stages, else Default.
func (c Config) Policy(stage string) StagePolicy {
	if p, ok := c.Stages[stage]; ok {
		return p
	}
	return c.Default
}

// DefaultBreakerPolicy returns the breaker of interview.md: open at 50 %
// failures over the last 50 attempts, stay open 30 s, 10 trial calls.
func DefaultBreakerPolicy() BreakerPolicy {
	return BreakerPolicy{FailureRatio: 0.5, Window: 50, Open: 30 * time.Second, HalfOpenCalls: 10}
}

// DefaultConfig returns the guard's defaults: every stage gets a 120 s
// timeout, 50 concurrent calls, no retries and DefaultBreakerPolicy. The
// callers own their stage names and limits and put them in Stages (the
// interview's are interview.GuardStages).
func DefaultConfig() Config {
	return Config{Default: StagePolicy{Timeout: 120 * time.Second, MaxConcurrent: 50, Breaker: DefaultBreakerPolicy()}}
}

// Validate reports every invalid field of c, each named by its path (for
// example `Stages["interview-review"].Breaker.Window`).
func (c Config) Validate() error {
	var errs []error
	errs = append(errs, c.Default.validate("Default")...)
	names := make([]string, 0, len(c.Stages))
	for name := range c.Stages {
		names = append(names, name)
	}
	sort.Strings(names) // a stable message
	for _, name := range names {
		if name == "" {
			errs = append(errs, errors.New(`aiguard: Stages has an entry with an empty stage name`))
			continue
		}
		errs = append(errs, c.Stages[name].validate(fmt.Sprintf("Stages[%q]", name))...)
	}
	return errors.Join(errs...)
}

func (p StagePolicy) validate(path string) []error {
	var errs []error
	bad := func(field, rule string, got any) {
		errs = append(errs, fmt.Errorf("aiguard: %s.%s %s, got %v", path, field, rule, got))
	}
	if p.Timeout <= 0 {
		bad("Timeout", "must be positive", p.Timeout)
	}
	if p.MaxConcurrent < 0 {
		bad("MaxConcurrent", "must be 0 (unlimited) or positive", p.MaxConcurrent)
	}
	if p.MaxWait < 0 {
		bad("MaxWait", "must not be negative", p.MaxWait)
	}
	if p.Retries < 0 {
		bad("Retries", "must not be negative", p.Retries)
	}
	if p.RetryDelay < 0 {
		bad("RetryDelay", "must not be negative", p.RetryDelay)
	}
	b := p.Breaker
	if !(b.FailureRatio > 0 && b.FailureRatio <= 1) { // also rejects NaN
		bad("Breaker.FailureRatio", "must be in (0, 1]", b.FailureRatio)
	}
	if b.Window < 1 {
		bad("Breaker.Window", "must be at least 1", b.Window)
	}
	if b.Open <= 0 {
		bad("Breaker.Open", "must be positive", b.Open)
	}
	if b.HalfOpenCalls < 1 {
		bad("Breaker.HalfOpenCalls", "must be at least 1", b.HalfOpenCalls)
	}
	if p.RatePerSecond != 0 && !(p.RatePerSecond >= minRate && p.RatePerSecond <= maxRate) {
		bad("RatePerSecond", fmt.Sprintf("must be 0 (off) or between %g and %g", minRate, maxRate), p.RatePerSecond)
	}
	if p.Burst < 0 || p.Burst > maxBurst {
		bad("Burst", fmt.Sprintf("must be between 0 and %d", maxBurst), p.Burst)
	}
	return errs
}

// Bounds that keep the rate limiter's durations far from overflowing.
const (
	minRate  = 1e-6 // one call in about 11.6 days
	maxRate  = 1e9  // one call a nanosecond
	maxBurst = 1_000_000
)

// rateWindow is the rate limiter's time per permit, or per Burst permits when
// Burst > 1.
func (p StagePolicy) rateWindow() time.Duration {
	permits := float64(max(p.Burst, 1))
	ns := permits * float64(time.Second) / p.RatePerSecond
	// A tiny rate with a large burst would overflow; a century is "never".
	return time.Duration(min(ns, float64(100*365*24*time.Hour)))
}
