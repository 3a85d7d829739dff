package interview

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the interview's counters of what the answer path served
// without evaluating (the original exported the same two).
type metrics struct {
	// replays counts answers answered with the stored response of the same
	// request (a double click, a retry, a copy that lost the race).
	replays prometheus.Counter
	// stale counts answers rejected because their question is not the
	// current one (409).
	stale prometheus.Counter
}

// newMetrics registers the counters on reg (nil: unregistered counters);
// a second service on the same registry shares the first one's.
func newMetrics(reg prometheus.Registerer) metrics {
	m := metrics{
		replays: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "interview", Name: "answer_replays_total",
			Help: "Answers served from the stored response of the same request (idempotent replays).",
		}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "aimeeting", Subsystem: "interview", Name: "stale_answers_total",
			Help: "Answers rejected because their question is not the current one.",
		}),
	}
	if reg == nil {
		return m
	}
	m.replays = registerCounter(reg, m.replays)
	m.stale = registerCounter(reg, m.stale)
	return m
}

func registerCounter(reg prometheus.Registerer, c prometheus.Counter) prometheus.Counter {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(prometheus.Counter); ok {
				return existing
			}
		}
	}
	return c
}
