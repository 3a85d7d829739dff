package pocketsphinx

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// engineMetrics are the engine's Prometheus metrics; nil records nothing.
type engineMetrics struct {
	rejections *prometheus.CounterVec
	frees      prometheus.Counter
}

// newEngineMetrics registers the metrics of e on reg (nil: none).
func newEngineMetrics(reg prometheus.Registerer, e *Engine) (*engineMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &engineMetrics{
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "speech_decoder_rejections_total",
			Help: "Recognitions refused because the user's share (user) or every decoder (global) was in use."}, []string{"limit"}),
		frees: prometheus.NewCounter(prometheus.CounterOpts{Name: "speech_decoders_freed_total",
			Help: "pocketsphinx decoders freed (idle too long, failed or at shutdown)."}),
	}
	decoders := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "speech_decoders",
		Help: "pocketsphinx decoders alive (busy plus idle)."}, func() float64 {
		busy, idle := e.Stats()
		return float64(busy + idle)
	})
	idle := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "speech_decoders_idle",
		Help: "pocketsphinx decoders kept idle for reuse."}, func() float64 {
		_, idle := e.Stats()
		return float64(idle)
	})
	for _, c := range []prometheus.Collector{m.rejections, m.frees, decoders, idle} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("pocketsphinx: register metrics: %w", err)
		}
	}
	return m, nil
}

func (m *engineMetrics) rejected(limit string) {
	if m != nil {
		m.rejections.WithLabelValues(limit).Inc()
	}
}

func (m *engineMetrics) freed(n int) {
	if m != nil {
		m.frees.Add(float64(n))
	}
}
