package airouting

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

func TestAggregate(t *testing.T) {
	day1 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	events := []Event{
		{At: day1, Stage: StageEvaluation, Model: "a", Outcome: OutcomeRetryable, Latency: ms(100), PromptTokens: 10, CompletionTokens: 1},
		{At: day1, Stage: StageEvaluation, Model: "a", Outcome: OutcomeFallback, Latency: ms(200), PromptTokens: 10, CompletionTokens: 1},
		{At: day1, Stage: StageEvaluation, Model: "b", Outcome: OutcomeOK, Latency: ms(300), PromptTokens: 10, CompletionTokens: 5, Estimated: true},
		{At: day2, Stage: StageEvaluation, Outcome: OutcomeSaved},
		{At: day2, Stage: StageChat, Model: "b", Outcome: OutcomeFailed, Latency: ms(400)},
	}
	tests := []struct {
		groupBy string
		want    map[string]UsageRow
	}{
		{GroupByStage, map[string]UsageRow{
			StageEvaluation: {Key: StageEvaluation, Calls: 3, SavedCalls: 1, PromptTokens: 30, CompletionTokens: 7, Failures: 2, Fallbacks: 1, EstimatedCalls: 1, P50Ms: 200, P95Ms: 300},
			StageChat:       {Key: StageChat, Calls: 1, Failures: 1, P50Ms: 400, P95Ms: 400},
		}},
		{GroupByModel, map[string]UsageRow{
			"a":       {Key: "a", Calls: 2, PromptTokens: 20, CompletionTokens: 2, Failures: 2, Fallbacks: 1, P50Ms: 100, P95Ms: 200},
			"b":       {Key: "b", Calls: 2, PromptTokens: 10, CompletionTokens: 5, Failures: 1, EstimatedCalls: 1, P50Ms: 300, P95Ms: 400},
			"(saved)": {Key: "(saved)", SavedCalls: 1},
		}},
		{GroupByDay, map[string]UsageRow{
			"2026-11-01": {Key: "2026-11-01", Calls: 3, PromptTokens: 30, CompletionTokens: 7, Failures: 2, Fallbacks: 1, EstimatedCalls: 1, P50Ms: 200, P95Ms: 300},
			"2026-11-02": {Key: "2026-11-02", Calls: 1, SavedCalls: 1, Failures: 1, P50Ms: 400, P95Ms: 400},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.groupBy, func(t *testing.T) {
			rep := Aggregate(events, UsageQuery{GroupBy: tt.groupBy})
			if len(rep.Rows) != len(tt.want) {
				t.Fatalf("rows %+v, want %d", rep.Rows, len(tt.want))
			}
			for _, got := range rep.Rows {
				if got != tt.want[got.Key] {
					t.Errorf("row %s = %+v, want %+v", got.Key, got, tt.want[got.Key])
				}
			}
			want := UsageRow{Key: "total", Calls: 4, SavedCalls: 1, PromptTokens: 30, CompletionTokens: 7, Failures: 3, Fallbacks: 1, EstimatedCalls: 1, P50Ms: 200, P95Ms: 400}
			if rep.Totals != want {
				t.Errorf("totals %+v, want %+v", rep.Totals, want)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{{"", 0}, {"a", 1}, {"abcdefgh", 2}, {"你好世界", 4}, {"你好 abcd", 2 + 2}}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// The offline model reports no usage: its tokens are estimated and marked.
func TestUsageOfEstimatesWithoutProviderUsage(t *testing.T) {
	ctx := context.Background()
	off := llm.NewOffline()
	req := llm.Request{Stage: StageChat, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Hello, how are you today?"}}}
	resp, err := off.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	e := UsageOf(req, resp, nil)
	if resp.PromptTokens == 0 && resp.CompletionTokens == 0 {
		if !e.Estimated || e.PromptTokens != EstimateTokens("Hello, how are you today?") || e.CompletionTokens != EstimateTokens(resp.Content) {
			t.Fatalf("offline usage %+v, want estimated tokens", e)
		}
	} else if e.Estimated {
		t.Fatalf("usage %+v marked estimated although the provider reported tokens", e)
	}
	reported := UsageOf(req, llm.Response{Content: "x", PromptTokens: 12, CompletionTokens: 3}, nil)
	if reported.Estimated || reported.PromptTokens != 12 || reported.CompletionTokens != 3 || reported.Outcome != OutcomeOK {
		t.Fatalf("reported usage %+v", reported)
	}
	if failed := UsageOf(req, llm.Response{}, errors.New("down")); failed.Outcome != OutcomeFailed {
		t.Fatalf("failed call outcome %q", failed.Outcome)
	}
}

func TestShouldFallback(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"5xx", ctx, apperr.New(apperr.KindUpstream, "HTTP 503").AsRetryable(), true},
		{"429", ctx, apperr.New(apperr.KindOverloaded, "HTTP 429").AsRetryable(), true},
		{"timeout", ctx, apperr.New(apperr.KindTimeout, "slow").AsRetryable(), true},
		{"refused", ctx, apperr.New(apperr.KindUnavailable, "cannot reach").AsRetryable(), true},
		{"guard: breaker open or stage timeout", ctx, &aiguard.Error{Stage: "s", Message: "open", Err: errors.New("open")}, true},
		{"400", ctx, apperr.New(apperr.KindUpstream, "HTTP 400"), false},
		{"unparsable output", ctx, ContentError(apperr.New(apperr.KindUpstream, "bad JSON").AsRetryable()), false},
		{"caller gone", cancelled, apperr.New(apperr.KindTimeout, "slow").AsRetryable(), false},
		{"a bug", ctx, errors.New("nil map"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldFallback(tt.ctx, tt.err); got != tt.want {
				t.Errorf("ShouldFallback(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// blockingStore holds every insert until release is closed.
type blockingStore struct {
	entered chan struct{} // receives once per insert
	release chan struct{}

	mu     sync.Mutex // protects events
	events []Event
}

func (s *blockingStore) InsertUsage(_ context.Context, events []Event) error {
	s.entered <- struct{}{}
	<-s.release
	s.mu.Lock()
	s.events = append(s.events, events...)
	s.mu.Unlock()
	return nil
}

func (s *blockingStore) Usage(context.Context, time.Time, time.Time, int) ([]Event, error) {
	return nil, nil
}

// A full queue drops and counts instead of blocking the caller; Close
// writes what was queued.
func TestRecorderDropsWhenFull(t *testing.T) {
	store := &blockingStore{entered: make(chan struct{}, 10), release: make(chan struct{})}
	reg := prometheus.NewRegistry()
	r := NewRecorder(store, RecorderConfig{Queue: 2, Batch: 1, Flush: time.Hour}, nil, reg)
	r.Record(Event{Stage: StageChat, Outcome: OutcomeOK}) // taken by the writer, which blocks in the store
	<-store.entered
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 5 { // 2 fill the queue, 3 are dropped
			r.Record(Event{Stage: StageChat, Outcome: OutcomeOK})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Record blocked on a full queue")
	}
	if got := testutil.ToFloat64(r.dropped); got != 3 {
		t.Fatalf("dropped = %v, want 3", got)
	}
	close(store.release)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.events) != 3 {
		t.Fatalf("written %d events, want 3", len(store.events))
	}
	if got := testutil.ToFloat64(r.calls.WithLabelValues(StageChat, "", OutcomeOK)); got != 6 {
		t.Fatalf("calls metric %v, want 6 (dropped events are still counted)", got)
	}
}
