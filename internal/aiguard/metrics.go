package aiguard

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// The result label of aimeeting_aiguard_calls_total.
const (
	resultSuccess          = "success"           // fn returned no error
	resultFailure          = "failure"           // fn's own error, after retries
	resultTimeout          = "timeout"           // the stage timeout cut the last attempt
	resultCanceled         = "canceled"          // the caller's context ended
	resultRejectedBulkhead = "rejected_bulkhead" // no bulkhead permit
	resultRejectedBreaker  = "rejected_breaker"  // circuit breaker open
	resultRejectedRate     = "rejected_rate"     // rate limit reached
)

// Breaker state values of aimeeting_aiguard_breaker_state.
const (
	gaugeClosed   = 0
	gaugeOpen     = 1
	gaugeHalfOpen = 2
)

// metrics are the guard's Prometheus collectors, labelled by stage.
type metrics struct {
	calls    *prometheus.CounterVec   // stage, result
	retries  *prometheus.CounterVec   // stage
	duration *prometheus.HistogramVec // stage
	breaker  *prometheus.GaugeVec     // stage
	// targetBreaker is the breaker of each routed target (DoFor).
	targetBreaker *prometheus.GaugeVec // stage, target
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	const ns, sub = "aimeeting", "aiguard"
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "calls_total",
			Help: "Guarded model calls by stage and result (success, failure, timeout, canceled, rejected_bulkhead, rejected_breaker, rejected_rate).",
		}, []string{"stage", "result"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "retries_total",
			Help: "Retried model call attempts by stage.",
		}, []string{"stage"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "call_duration_seconds",
			Help:    "Duration of guarded model calls that were not rejected, retries included, by stage.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120},
		}, []string{"stage"}),
		breaker: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "breaker_state",
			Help: "Circuit breaker state by stage: 0 closed, 1 open, 2 half-open.",
		}, []string{"stage"}),
		targetBreaker: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "target_breaker_state",
			Help: "Circuit breaker state by stage and routed target (ai-property id): 0 closed, 1 open, 2 half-open.",
		}, []string{"stage", "target"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	// A second Guard on the same registry (tests, a restart of a component)
	// shares the collectors already registered instead of failing.
	if m.calls, err = register(reg, m.calls); err != nil {
		return nil, err
	}
	if m.retries, err = register(reg, m.retries); err != nil {
		return nil, err
	}
	if m.duration, err = register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.breaker, err = register(reg, m.breaker); err != nil {
		return nil, err
	}
	if m.targetBreaker, err = register(reg, m.targetBreaker); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c on reg, or returns the equal collector already there.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("aiguard: register metrics: %w", err)
}
