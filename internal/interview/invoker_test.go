package interview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// instance is one simulated server: its own Redis client, flights and guard.
func MustInvoker(tb testing.TB, prefix string, id int, guardCfg aiguard.Config) *Invoker {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr()})
	tb.Cleanup(func() { _ = rdb.Close() })
	cfg := singleflight.DefaultConfig()
	cfg.KeyPrefix = prefix
	cfg.InstanceID = fmt.Sprintf("instance-%d", id)
	cfg.Stages = FlightStages()
	g, err := singleflight.New(cfg, rdb, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = g.Close() })
	guard, err := aiguard.New(guardCfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return NewInvoker(g, guard, nil)
}

// guardConfig is the guard configuration of the server: the defaults with
// the interview's stages.
func guardConfig() aiguard.Config {
	cfg := aiguard.DefaultConfig()
	cfg.Stages = GuardStages()
	return cfg
}

func MustProvider(tb testing.TB, url string) llm.Provider {
	tb.Helper()
	p, err := llm.New(llm.Config{Type: "other", BaseURL: url, Model: "fake-model"})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

type scored struct {
	Score int    `json:"score"`
	Text  string `json:"text"`
}

func parseScored(r llm.Response) (scored, error) {
	var n int
	if _, err := fmt.Sscanf(r.Content, "score=%d", &n); err != nil {
		return scored{}, apperr.New(apperr.KindUpstream, "model output is not a score: %q", r.Content).AsRetryable()
	}
	return scored{Score: n, Text: r.Content}, nil
}

func evalCall(p llm.Provider, answer string) Call {
	return Call{Stage: StageEvaluation, SessionID: "s1", QuestionNumber: "3", Answer: answer, Provider: p,
		Request: llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: answer}}}}
}

// A double submit storm across three instances makes exactly one model
// call, every caller gets the same answer, and the guard's bulkhead (one
// slot here) is not consumed by followers.
func TestInvokerOneModelCallAcrossInstances(t *testing.T) {
	_, prefix := testenv.Redis(t)
	release := make(chan struct{})
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Content: "score=77", Hold: release}
	}))
	guardCfg := guardConfig()
	pol := guardCfg.Policy(StageEvaluation)
	pol.MaxConcurrent = 1
	guardCfg.Stages[StageEvaluation] = pol
	var invokers []*Invoker
	for i := range 3 {
		invokers = append(invokers, MustInvoker(t, prefix, i, guardCfg))
	}
	provider := MustProvider(t, fake.URL())

	const callers = 30
	var wg sync.WaitGroup
	results := make([]scored, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The same answer with different spacing is the same request.
			answer := "Use a   mutex.\n"
			if i%2 == 0 {
				answer = " Use a mutex. "
			}
			results[i], _, errs[i] = Invoke(context.Background(), invokers[i%3], evalCall(provider, answer), parseScored)
		}()
	}
	// Let the owner's model call start, then finish it.
	deadline := time.Now().Add(10 * time.Second)
	for fake.Calls() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if results[i] != results[0] || results[i].Score != 77 {
			t.Fatalf("caller %d got %+v, caller 0 got %+v", i, results[i], results[0])
		}
	}
	if got := fake.Calls(); got != 1 {
		t.Fatalf("model calls = %d, want 1", got)
	}
	// A repeat within the result TTL is a replay: no model call.
	if _, out, err := Invoke(context.Background(), invokers[1], evalCall(provider, "Use a mutex."), parseScored); err != nil || fake.Calls() != 1 {
		t.Fatalf("repeat: outcome %s err %v calls %d; want a replay", out, err, fake.Calls())
	}
	// A different answer to the same question is a different request.
	if _, _, err := Invoke(context.Background(), invokers[2], evalCall(provider, "Use a channel."), parseScored); err != nil || fake.Calls() != 2 {
		t.Fatalf("different answer: err %v calls %d; want a second model call", err, fake.Calls())
	}
}

// A non-retryable model failure (HTTP 400) is replayed with the same status
// and code to later callers on other instances, without a model call.
func TestInvokerReplaysNonRetryableFailure(t *testing.T) {
	_, prefix := testenv.Redis(t)
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.ErrorReply(400, "bad request: prompt too long", "invalid_request_error")
	}))
	a := MustInvoker(t, prefix, 1, guardConfig())
	b := MustInvoker(t, prefix, 2, guardConfig())
	provider := MustProvider(t, fake.URL())
	_, _, err1 := Invoke(context.Background(), a, evalCall(provider, "x"), parseScored)
	_, out, err2 := Invoke(context.Background(), b, evalCall(provider, "x"), parseScored)
	e1, e2 := apperr.As(err1), apperr.As(err2)
	if e1 == nil || e2 == nil || e1.Kind != apperr.KindUpstream || e2.Kind != e1.Kind || e2.Code != e1.Code || e2.Retryable {
		t.Fatalf("errors %#v / %#v; want the same non-retryable upstream error", err1, err2)
	}
	if out != singleflight.ReplayFailure || fake.Calls() != 1 {
		t.Fatalf("second caller: outcome %s, model calls %d; want a failure replay and 1 call", out, fake.Calls())
	}
}

// Unusable model output is retried by the guard inside the flight; what is
// shared is the parsed value.
func TestInvokerRetriesUnusableOutput(t *testing.T) {
	_, prefix := testenv.Redis(t)
	var mu sync.Mutex
	n := 0
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return llmtest.Reply{Content: "I think it is good"}
		}
		return llmtest.Reply{Content: "score=90"}
	}))
	inv := MustInvoker(t, prefix, 1, guardConfig())
	got, _, err := Invoke(context.Background(), inv, evalCall(MustProvider(t, fake.URL()), "y"), parseScored)
	if err != nil || got.Score != 90 || fake.Calls() != 2 {
		t.Fatalf("got %+v err %v calls %d; want score 90 after one retry", got, err, fake.Calls())
	}
}

func TestFlightKeys(t *testing.T) {
	if got := AnswerFlightKey(StageEvaluation, "s1", "3", "  a  b "); got != "interview-evaluation|s1|3|"+AnswerHash("a b") {
		t.Fatalf("key = %s", got)
	}
	if len(AnswerHash("x")) != 16 {
		t.Fatalf("answer hash %q is not 16 hex characters", AnswerHash("x"))
	}
	if AnswerFlightKey(StageEvaluation, "s1", "3", "a") == AnswerFlightKey(StageEvaluation, "s1", "4", "a") {
		t.Fatal("different questions share a key")
	}
	if got := BusinessFlightKey(StageDemeanor, "s1", "abc"); got != "interview-demeanor|s1|abc" {
		t.Fatalf("business key = %s", got)
	}
	if HashBytes([]byte("ab"), []byte("c")) == HashBytes([]byte("a"), []byte("bc")) {
		t.Fatal("HashBytes is ambiguous across parts")
	}
	if !strings.HasPrefix(Call{Stage: StageExtraction, SessionID: "s", BusinessKey: "k"}.Key(), StageExtraction+"|s|k") {
		t.Fatal("business key not used")
	}
}

// TestFlightStages checks the interview's stage table: every AI stage is
// listed, valid for a Group, and stores failures with the interview codec.
func TestFlightStages(t *testing.T) {
	stages := FlightStages()
	for _, name := range []string{StageProfile, StageExtraction, StageEvaluation, StageReview, StageFollowUp, StageDemeanor} {
		p, ok := stages[name]
		if !ok {
			t.Errorf("stage %s missing", name)
			continue
		}
		if _, ok := p.Codec.(ErrorCodec); !ok {
			t.Errorf("stage %s codec = %T, want ErrorCodec", name, p.Codec)
		}
	}
	if got, want := stages[StageFollowUp].Heartbeat, 2500*time.Millisecond; got != want {
		t.Errorf("follow-up heartbeat = %v, want %v", got, want)
	}
	if stages[StageDemeanor].L1Enabled {
		t.Error("demeanor must not use L1 (photos are not replayed in-process)")
	}
	cfg := singleflight.DefaultConfig()
	cfg.Mode = singleflight.ModeLocal
	cfg.Stages = stages
	g, err := singleflight.New(cfg, nil, nil)
	if err != nil {
		t.Fatalf("the stage table is not a valid config: %v", err)
	}
	_ = g.Close()
}

// TestFlightError checks the HTTP meaning given to the single-flight's
// sentinels, and that the sentinel stays in the chain.
func TestFlightError(t *testing.T) {
	tests := []struct {
		err  error
		kind apperr.Kind
	}{
		{singleflight.ErrInProgress, apperr.KindConflict},
		{fmt.Errorf("singleflight: acquire: %w: %w", singleflight.ErrRedisUnavailable, errors.New("dial tcp: refused")), apperr.KindUnavailable},
	}
	for _, tt := range tests {
		got := FlightError(tt.err)
		if e := apperr.As(got); e == nil || e.Kind != tt.kind || !e.Retryable || !errors.Is(got, tt.err) {
			t.Errorf("FlightError(%v) = %v, want retryable kind %v wrapping it", tt.err, got, tt.kind)
		}
	}
	plain := errors.New("model said no")
	if got := FlightError(plain); got != plain {
		t.Errorf("FlightError(plain) = %v, want it unchanged", got)
	}
}

// TestGuardStages checks the interview's guard table (interview.md, "Stage
// timeouts and limits") and that it is a valid guard configuration.
func TestGuardStages(t *testing.T) {
	tests := []struct {
		stage         string
		timeout       time.Duration
		maxConcurrent int
		retries       int
		retryDelay    time.Duration
	}{
		{StageEvaluation, 20 * time.Second, 30, 1, 100 * time.Millisecond},
		{StageReview, 20 * time.Second, 30, 1, 100 * time.Millisecond},
		{StageFollowUp, 20 * time.Second, 20, 1, 100 * time.Millisecond},
		{StageExtraction, 60 * time.Second, 8, 0, 0},
		{StageProfile, 60 * time.Second, 8, 0, 0},
		{StageDemeanor, 20 * time.Second, 6, 0, 0},
	}
	cfg := guardConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("guard config is invalid: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			got := cfg.Policy(tt.stage)
			want := aiguard.StagePolicy{Timeout: tt.timeout, MaxConcurrent: tt.maxConcurrent, Retries: tt.retries,
				RetryDelay: tt.retryDelay, Breaker: aiguard.DefaultBreakerPolicy()}
			if got != want {
				t.Errorf("Policy(%q) = %+v, want %+v", tt.stage, got, want)
			}
		})
	}
	if got, want := len(cfg.Stages), len(tests); got != want {
		t.Errorf("%d stages, want %d", got, want)
	}
}

// TestGuardError checks the HTTP meaning of the guard's own errors: a
// stage timeout is a retryable 504, a rejection a retryable 503, with the
// guard's message; other errors pass unchanged.
func TestGuardError(t *testing.T) {
	cfg := aiguard.DefaultConfig()
	cfg.Default.Timeout = 20 * time.Millisecond
	cfg.Default.MaxConcurrent = 1
	g, err := aiguard.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = aiguard.Do(context.Background(), g, "busy", func(ctx context.Context) (int, error) {
			close(started)
			<-release
			return 0, nil
		})
	}()
	<-started
	_, rejected := aiguard.Do(context.Background(), g, "busy", func(context.Context) (int, error) { return 1, nil })
	close(release)
	_, timedOut := aiguard.Do(context.Background(), g, "slow", func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	})
	tests := []struct {
		name string
		err  error
		kind apperr.Kind
		code string
	}{
		{"timeout", timedOut, apperr.KindTimeout, apperr.CodeAITimeout},
		{"bulkhead full", rejected, apperr.KindOverloaded, apperr.CodeAIOverloaded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apperr.As(GuardError(tt.err))
			if e == nil || e.Kind != tt.kind || e.Code != tt.code || !e.Retryable || !strings.Contains(e.Message, "AI") {
				t.Fatalf("GuardError(%v) = %#v, want retryable %s", tt.err, e, tt.code)
			}
		})
	}
	plain := errors.New("model said no")
	if got := GuardError(plain); got != plain {
		t.Errorf("GuardError(plain) = %v, want it unchanged", got)
	}
}
