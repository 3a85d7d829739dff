package singleflight

import (
	"errors"
	"sync/atomic"
	"time"

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

// outcomeList indexes the outcomes for stageState's counters.
var outcomeList = [...]Outcome{OwnerNew, Takeover, Follower, ReplayL1, ReplayRedis, ReplayFailure, LocalShared, LocalFallback, LostLease}

// stageState is what a flight needs of its stage, resolved once per stage
// (a map lookup and the policy's defaults) and, for each counter, once per
// outcome: Prometheus label lookups hash the labels under a lock, which
// cost more than the in-process flight itself.
type stageState struct {
	name string
	pol  Policy
	met  *metrics

	outcomes   [len(outcomeList)]atomic.Pointer[prometheus.Counter]
	modelCalls atomic.Pointer[prometheus.Counter]
	redisErrs  atomic.Pointer[prometheus.Counter]
	followWait atomic.Pointer[prometheus.Observer]
}

// counter returns the counter in p, resolving it with resolve the first time.
func resolved(p *atomic.Pointer[prometheus.Counter], resolve func() prometheus.Counter) prometheus.Counter {
	if c := p.Load(); c != nil {
		return *c
	}
	c := resolve()
	p.Store(&c)
	return c
}

// outcome counts one outcome.
func (s *stageState) outcome(o Outcome) {
	for i, x := range outcomeList {
		if x == o {
			resolved(&s.outcomes[i], func() prometheus.Counter { return s.met.outcomes.WithLabelValues(s.name, string(o)) }).Inc()
			return
		}
	}
	s.met.outcomes.WithLabelValues(s.name, string(o)).Inc()
}

func (s *stageState) modelCall() {
	resolved(&s.modelCalls, func() prometheus.Counter { return s.met.modelCalls.WithLabelValues(s.name) }).Inc()
}

func (s *stageState) redisErr() {
	resolved(&s.redisErrs, func() prometheus.Counter { return s.met.redisErrs.WithLabelValues(s.name) }).Inc()
}

func (s *stageState) followed(d time.Duration) {
	o := s.followWait.Load()
	if o == nil {
		v := s.met.followWait.WithLabelValues(s.name)
		o = &v
		s.followWait.Store(o)
	}
	(*o).Observe(d.Seconds())
}

// stage returns the resolved state of stage.
func (g *Group) stage(name string) *stageState {
	if s, ok := g.stages.Load(name); ok {
		return s.(*stageState)
	}
	s, _ := g.stages.LoadOrStore(name, &stageState{name: name, pol: g.cfg.Policy(name), met: g.met})
	return s.(*stageState)
}
