package singleflight

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the Group's Prometheus collectors.
type metrics struct {
	outcomes   *prometheus.CounterVec   // stage, outcome: one per Do, plus lost_lease events
	modelCalls *prometheus.CounterVec   // stage: fn invocations
	followWait *prometheus.HistogramVec // stage: time Redis followers waited
	redisErrs  *prometheus.CounterVec   // stage: Redis failures seen
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "singleflight", Name: "outcomes_total",
			Help: "Single-flight calls by stage and outcome (owner_new, takeover, follower, replay_l1, replay_redis, replay_failure, local_shared, local_fallback), plus lost_lease events.",
		}, []string{"stage", "outcome"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "singleflight", Name: "model_calls_total",
			Help: "Real calls made (fn invocations) by stage.",
		}, []string{"stage"}),
		followWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "aimeeting", Subsystem: "singleflight", Name: "follower_wait_seconds",
			Help:    "How long Redis followers waited for the owner, by stage.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 2.5, 5, 10, 20, 30, 60},
		}, []string{"stage"}),
		redisErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "singleflight", Name: "redis_errors_total",
			Help: "Redis failures (errors and timeouts) seen by single-flight, by stage.",
		}, []string{"stage"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.outcomes = register(reg, m.outcomes, &err)
	m.modelCalls = register(reg, m.modelCalls, &err)
	m.followWait = register(reg, m.followWait, &err)
	m.redisErrs = register(reg, m.redisErrs, &err)
	return m, err
}

// register registers c, or returns the collector already registered under
// its name (several Groups may share a registry).
func register[C prometheus.Collector](reg prometheus.Registerer, c C, errp *error) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		if *errp == nil {
			*errp = err
		}
	}
	return c
}
