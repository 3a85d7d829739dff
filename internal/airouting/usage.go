package airouting

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// UsageStore persists usage events.
type UsageStore interface {
	InsertUsage(ctx context.Context, events []Event) error
	Usage(ctx context.Context, from, to time.Time, limit int) ([]Event, error)
}

// RecorderConfig tunes a Recorder.
type RecorderConfig struct {
	// Queue bounds the events waiting to be written; more are dropped.
	Queue int
	// Batch is the most events written at once.
	Batch int
	// Flush is how long an event may wait for its batch to fill.
	Flush time.Duration
	// MaxRange bounds the period of one report.
	MaxRange time.Duration
}

// maxReportEvents bounds the events one report reads.
const maxReportEvents = 1_000_000

// Recorder records usage: Record queues an event and returns at once; a
// writer goroutine stores the queue in batches. Report aggregates the
// stored events.
type Recorder struct {
	store UsageStore
	cfg   RecorderConfig
	log   *slog.Logger
	queue chan Event
	done  chan struct{} // closed by Close: the writer drains and exits
	wg    sync.WaitGroup
	once  sync.Once

	calls   *prometheus.CounterVec // stage, model, outcome
	saved   *prometheus.CounterVec // stage
	tokens  *prometheus.CounterVec // stage, model, type
	dropped prometheus.Counter
	failed  prometheus.Counter // events lost to a failed write
}

// NewRecorder starts a recorder writing to store, with its metrics on reg
// (may be nil). Close stops it.
func NewRecorder(store UsageStore, cfg RecorderConfig, log *slog.Logger, reg prometheus.Registerer) *Recorder {
	if cfg.Queue <= 0 {
		cfg.Queue = 10000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 200
	}
	if cfg.Flush <= 0 {
		cfg.Flush = 500 * time.Millisecond
	}
	if cfg.MaxRange <= 0 {
		cfg.MaxRange = 366 * 24 * time.Hour
	}
	const ns, sub = "aimeeting", "ai_usage"
	r := &Recorder{store: store, cfg: cfg, log: log, queue: make(chan Event, cfg.Queue), done: make(chan struct{}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "calls_total",
			Help: "Model calls by stage, model and outcome (ok, retryable, failed, fallback)."}, []string{"stage", "model", "outcome"}),
		saved: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "saved_calls_total",
			Help: "Model calls avoided by single-flight (followers, replays, local shares), by stage."}, []string{"stage"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "tokens_total",
			Help: "Tokens by stage, model and type (prompt, completion); estimated where the provider reports none."}, []string{"stage", "model", "type"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "dropped_total",
			Help: "Usage events dropped because the write queue was full."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "write_failed_total",
			Help: "Usage events lost because writing their batch to the database failed."}),
	}
	if reg != nil {
		r.calls = register(reg, r.calls)
		r.saved = register(reg, r.saved)
		r.tokens = register(reg, r.tokens)
		r.dropped = register(reg, r.dropped)
		r.failed = register(reg, r.failed)
	}
	r.wg.Add(1)
	go r.write()
	return r
}

// register registers c, or returns the equal collector already there.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

// Record counts e in the metrics and queues it for the database; it never
// blocks: when the queue is full the event is dropped and counted.
func (r *Recorder) Record(e Event) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	e.At = e.At.UTC()
	if e.Outcome == OutcomeSaved {
		r.saved.WithLabelValues(e.Stage).Inc()
	} else {
		r.calls.WithLabelValues(e.Stage, e.Model, e.Outcome).Inc()
		r.tokens.WithLabelValues(e.Stage, e.Model, "prompt").Add(float64(e.PromptTokens))
		r.tokens.WithLabelValues(e.Stage, e.Model, "completion").Add(float64(e.CompletionTokens))
	}
	select {
	case <-r.done:
		r.dropped.Inc()
		return
	default:
	}
	select {
	case r.queue <- e:
	default:
		r.dropped.Inc()
	}
}

// Saved records a call avoided by single-flight.
func (r *Recorder) Saved(stage, sessionID string) {
	r.Record(Event{Stage: stage, Outcome: OutcomeSaved, SessionID: sessionID})
}

// write stores the queue in batches until Close, then drains it.
func (r *Recorder) write() {
	defer r.wg.Done()
	batch := make([]Event, 0, r.cfg.Batch)
	tick := time.NewTicker(r.cfg.Flush)
	defer tick.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := r.store.InsertUsage(ctx, batch)
		cancel()
		if err != nil {
			r.failed.Add(float64(len(batch)))
			if r.log != nil {
				r.log.Warn("ai usage: write failed; events lost", "events", len(batch), "err", err)
			}
		}
		batch = batch[:0]
	}
	for {
		select {
		case e := <-r.queue:
			batch = append(batch, e)
			if len(batch) >= r.cfg.Batch {
				flush()
			}
		case <-tick.C:
			flush()
		case <-r.done:
			for {
				select {
				case e := <-r.queue:
					batch = append(batch, e)
					if len(batch) >= r.cfg.Batch {
						flush()
					}
				default:
					flush()
					return
				}
			}
		}
	}
}

// Close writes what is queued and stops the writer.
func (r *Recorder) Close() error {
	r.once.Do(func() { close(r.done) })
	r.wg.Wait()
	return nil
}

// Report aggregates the events of q.
func (r *Recorder) Report(ctx context.Context, q UsageQuery) (UsageReport, error) {
	switch q.GroupBy {
	case "":
		q.GroupBy = GroupByStage
	case GroupByStage, GroupByModel, GroupByDay:
	default:
		return UsageReport{}, apperr.Invalid("groupBy must be stage, model or day, not %q", q.GroupBy)
	}
	now := time.Now().UTC()
	if q.To.IsZero() {
		q.To = now.Add(time.Minute)
	}
	if q.From.IsZero() {
		q.From = q.To.Add(-30 * 24 * time.Hour)
	}
	if !q.From.Before(q.To) {
		return UsageReport{}, apperr.Invalid("from must be before to")
	}
	if q.To.Sub(q.From) > r.cfg.MaxRange {
		return UsageReport{}, apperr.Invalid("the period from..to must be at most %d days", int(r.cfg.MaxRange/(24*time.Hour)))
	}
	events, err := r.store.Usage(ctx, q.From.UTC(), q.To.UTC(), maxReportEvents)
	if err != nil {
		return UsageReport{}, err
	}
	return Aggregate(events, q), nil
}

// Aggregate groups events by q.GroupBy, with totals.
func Aggregate(events []Event, q UsageQuery) UsageReport {
	type acc struct {
		row       UsageRow
		latencies []int64
	}
	groups := map[string]*acc{}
	total := &acc{row: UsageRow{Key: "total"}}
	add := func(a *acc, e Event) {
		if e.Outcome == OutcomeSaved {
			a.row.SavedCalls++
			return
		}
		a.row.Calls++
		a.row.PromptTokens += int64(e.PromptTokens)
		a.row.CompletionTokens += int64(e.CompletionTokens)
		if e.Estimated {
			a.row.EstimatedCalls++
		}
		switch e.Outcome {
		case OutcomeFailed, OutcomeRetryable:
			a.row.Failures++
		case OutcomeFallback:
			a.row.Failures++
			a.row.Fallbacks++
		}
		a.latencies = append(a.latencies, e.Latency.Milliseconds())
	}
	for _, e := range events {
		var key string
		switch q.GroupBy {
		case GroupByModel:
			key = e.Model
			if e.Outcome == OutcomeSaved {
				key = "(saved)"
			}
		case GroupByDay:
			key = e.At.UTC().Format(time.DateOnly)
		default:
			key = e.Stage
		}
		a := groups[key]
		if a == nil {
			a = &acc{row: UsageRow{Key: key}}
			groups[key] = a
		}
		add(a, e)
		add(total, e)
	}
	finish := func(a *acc) UsageRow {
		slices.Sort(a.latencies)
		a.row.P50Ms, a.row.P95Ms = percentile(a.latencies, 0.50), percentile(a.latencies, 0.95)
		return a.row
	}
	rep := UsageReport{From: q.From.UTC().Format(time.RFC3339), To: q.To.UTC().Format(time.RFC3339), Rows: []UsageRow{}}
	for _, a := range groups {
		rep.Rows = append(rep.Rows, finish(a))
	}
	sort.Slice(rep.Rows, func(i, j int) bool { return rep.Rows[i].Key < rep.Rows[j].Key })
	rep.Totals = finish(total)
	return rep
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// subjectKey carries the chat conversation a call serves (interview calls
// name their session in the event itself).
type subjectKey struct{}

type subject struct{ conversation string }

// WithConversation marks ctx as serving a chat conversation, for usage.
func WithConversation(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, subjectKey{}, subject{conversation: id})
}

func subjectOf(ctx context.Context) subject {
	s, _ := ctx.Value(subjectKey{}).(subject)
	return s
}

// Recorded wraps p so that each call is recorded as a usage event of its
// request's stage, for ai-property aiID ("" for the default) and model.
func (r *Recorder) Recorded(p llm.Provider, aiID, model string) llm.Provider {
	if _, ok := p.(recorded); ok {
		return p
	}
	return recorded{Provider: p, rec: r, aiID: aiID, model: model}
}

type recorded struct {
	llm.Provider
	rec         *Recorder
	aiID, model string
}

func (p recorded) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := p.Provider.Generate(ctx, req)
	p.record(ctx, req, resp, err, start)
	return resp, err
}

func (p recorded) Stream(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	start := time.Now()
	resp, err := p.Provider.Stream(ctx, req, onChunk)
	p.record(ctx, req, resp, err, start)
	return resp, err
}

func (p recorded) record(ctx context.Context, req llm.Request, resp llm.Response, err error, start time.Time) {
	e := UsageOf(req, resp, err)
	e.Latency = time.Since(start)
	e.AIID, e.Model = p.aiID, p.model
	if e.Model == "" {
		e.Model = resp.Model
	}
	e.ConversationID = subjectOf(ctx).conversation
	p.rec.Record(e)
}

// UsageOf is the usage event of one call (outcome ok or failed), with
// tokens estimated when the provider reported none.
func UsageOf(req llm.Request, resp llm.Response, err error) Event {
	e := Event{At: time.Now(), Stage: req.Stage, Model: resp.Model, PromptTokens: resp.PromptTokens,
		CompletionTokens: resp.CompletionTokens, Outcome: OutcomeOK}
	if e.Stage == "" {
		e.Stage = StageChat
	}
	if err != nil {
		e.Outcome = OutcomeFailed
	}
	if e.PromptTokens == 0 && e.CompletionTokens == 0 {
		e.Estimated = true
		e.PromptTokens = EstimateTokens(RequestText(req))
		e.CompletionTokens = EstimateTokens(resp.Content)
	}
	return e
}
