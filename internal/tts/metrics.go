package tts

import "github.com/prometheus/client_golang/prometheus"

// metrics are the service's Prometheus metrics.
type metrics struct {
	tasks    *prometheus.CounterVec // by event: created, done, failed, cancelled, resumed
	runs     prometheus.Counter     // whole syntheses run (single-flight owners)
	segments *prometheus.CounterVec // provider calls by result: ok, error
	cacheHit prometheus.Counter     // tasks served from an existing audio file
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tts_tasks_total",
			Help: "TTS task events by kind (created, done, failed, cancelled, resumed)."}, []string{"event"}),
		runs: prometheus.NewCounter(prometheus.CounterOpts{Name: "tts_synthesis_runs_total",
			Help: "Whole-text syntheses run by this instance (single-flight owners)."}),
		segments: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tts_segment_calls_total",
			Help: "Provider calls for one segment, by result."}, []string{"result"}),
		cacheHit: prometheus.NewCounter(prometheus.CounterOpts{Name: "tts_audio_cache_hits_total",
			Help: "Tasks answered by an audio file that already existed."}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.tasks, m.runs, m.segments, m.cacheHit} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
