package speech

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the speech sockets' Prometheus metrics. A nil *Metrics
// records nothing.
type Metrics struct {
	open      prometheus.Gauge
	rejects   *prometheus.CounterVec
	drops     *prometheus.CounterVec
	audioRecv prometheus.Counter
}

// NewMetrics registers the metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "speech_sockets_open",
			Help: "Speech transcription WebSockets currently open."}),
		rejects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "speech_sockets_rejected_total",
			Help: "Speech sockets refused after the upgrade, by reason."}, []string{"reason"}),
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "speech_sockets_dropped_total",
			Help: "Speech sockets closed by the server, by reason (slow_consumer, audio_flood, idle, ...)."}, []string{"reason"}),
		audioRecv: prometheus.NewCounter(prometheus.CounterOpts{Name: "speech_audio_received_bytes_total",
			Help: "PCM bytes received on speech sockets."}),
	}
	reg.MustRegister(m.open, m.rejects, m.drops, m.audioRecv)
	return m
}

func (m *Metrics) opened() {
	if m != nil {
		m.open.Inc()
	}
}

func (m *Metrics) closed() {
	if m != nil {
		m.open.Dec()
	}
}

func (m *Metrics) rejected(reason string) {
	if m != nil {
		m.rejects.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) dropped(reason string) {
	if m != nil {
		m.drops.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) audio(n int) {
	if m != nil {
		m.audioRecv.Add(float64(n))
	}
}
