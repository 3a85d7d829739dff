package aiconfig

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// Checking a provider: a tiny completion, as "Test connection" does and as
// a save does for an enabled provider. The last outcome of each provider is
// kept in process so that the list users pick from leaves out one that
// fails (each instance checks for itself, at most every HealthTTL).

// Check timeouts and how long an outcome is trusted.
const (
	TestTimeout   = 10 * time.Second // "Test connection" and the check on save
	ListTimeout   = 3 * time.Second  // a check made while listing options
	HealthTTL     = 5 * time.Minute  // a successful check is trusted this long
	FailedTTL     = 1 * time.Minute  // a failed check is trusted this long
	testPrompt    = "Reply with the single word OK."
	testMaxTokens = 8
)

// CheckResult is the outcome of a connection test.
type CheckResult struct {
	OK        bool   `json:"ok"`
	LatencyMs int64  `json:"latencyMs"`
	Reason    string `json:"reason,omitempty"` // why it failed, for the admin
	Model     string `json:"model,omitempty"`
	Offline   bool   `json:"offline"`
	CheckedAt string `json:"checkedAt"`
}

type health struct {
	ok bool
	at time.Time
}

// healthBook keeps the last check of each provider configuration.
type healthBook struct {
	mu sync.Mutex // protects m
	m  map[string]health
}

func (b *healthBook) set(id string, ok bool, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]health{}
	}
	b.m[id] = health{ok: ok, at: at}
}

// fresh returns the last outcome for id when it is still trusted at now.
func (b *healthBook) fresh(id string, now time.Time) (ok, known bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, found := b.m[id]
	if !found {
		return false, false
	}
	ttl := HealthTTL
	if !h.ok {
		ttl = FailedTTL
	}
	if now.Sub(h.at) > ttl {
		return false, false
	}
	return h.ok, true
}

func (b *healthBook) forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
}

// probe sends the tiny completion to p within timeout.
func (s *Service) probe(ctx context.Context, p Property, timeout time.Duration) CheckResult {
	res := CheckResult{Model: p.ModelName, Offline: p.Type == "offline"}
	start := time.Now()
	defer func() {
		res.LatencyMs = time.Since(start).Milliseconds()
		res.CheckedAt = s.now().Format(time.RFC3339)
		if ctx.Err() == nil { // a caller that left says nothing of the provider
			s.health.set(p.ID, res.OK, s.now())
		}
	}()
	prov, err := llm.New(toLLMConfig(p))
	if err != nil {
		res.Reason = reasonOf(err)
		return res
	}
	if s.probeWrap != nil {
		prov = s.probeWrap(prov, p.ID, p.ModelName)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = prov.Generate(cctx, llm.Request{Stage: "connection-test", Model: p.ModelName, MaxTokens: testMaxTokens,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: testPrompt}}})
	switch {
	case err == nil:
		res.OK = true
	case cctx.Err() != nil && ctx.Err() == nil:
		res.Reason = "the provider did not answer within " + timeout.String()
	default:
		res.Reason = reasonOf(err)
	}
	return res
}

// reasonOf is the admin-facing reason of a failed check: the classified
// message (the llm package redacts keys and URL secrets).
func reasonOf(err error) string {
	if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal {
		msg := e.Message
		if e.Err != nil && !strings.Contains(msg, e.Err.Error()) {
			msg += ": " + e.Err.Error()
		}
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the provider did not answer in time"
	}
	return err.Error()
}

// Test checks the stored configuration id with a tiny completion (timeout
// TestTimeout), whether or not it is enabled.
func (s *Service) Test(ctx context.Context, id string) (CheckResult, error) {
	p, err := s.store.Get(ctx, strings.TrimSpace(id))
	if err != nil {
		return CheckResult{}, err
	}
	return s.probe(ctx, p, TestTimeout), nil
}

// TestInput checks a configuration before it is saved: in applied to the
// stored configuration in.ID (its key is kept when in masks it), or to a new
// one. It is validated as a save would be.
func (s *Service) TestInput(ctx context.Context, in Input) (CheckResult, error) {
	p := Property{IsEnabled: true}
	if id := strings.TrimSpace(in.ID); id != "" {
		var err error
		if p, err = s.store.Get(ctx, id); err != nil {
			return CheckResult{}, err
		}
	}
	if err := in.apply(&p); err != nil {
		return CheckResult{}, err
	}
	if err := s.check(p); err != nil {
		return CheckResult{}, err
	}
	if p.ID == "" {
		p.ID = "unsaved"
	}
	res := s.probe(ctx, p, TestTimeout)
	if in.ID == "" {
		s.health.forget("unsaved")
	}
	return res, nil
}

// Saved is a saved configuration with the outcome of its connection check
// (nil when none was made: disabled or offline) and a warning when the
// provider could not be reached.
type Saved struct {
	Property
	Check   *CheckResult
	Warning string
}

// checkSaved tests an enabled, non-offline configuration just saved.
func (s *Service) checkSaved(ctx context.Context, p Property) Saved {
	out := Saved{Property: p}
	if !p.IsEnabled || p.Type == "offline" {
		s.health.forget(p.ID)
		return out
	}
	res := s.probe(ctx, p, TestTimeout)
	out.Check = &res
	if !res.OK {
		out.Warning = "saved, but the provider did not answer a test request (" + res.Reason +
			"); users are not offered it until it does"
	}
	return out
}

// healthy reports whether p may be offered to users: its last check
// succeeded, or, with none trusted, a check made now (ListTimeout) does.
func (s *Service) healthy(ctx context.Context, p Property) bool {
	if p.Type == "offline" {
		return true
	}
	if ok, known := s.health.fresh(p.ID, s.now()); known {
		return ok
	}
	// Shared by concurrent lists (Service.usable): not bound to the
	// request that happened to start it.
	return s.probe(context.WithoutCancel(ctx), p, ListTimeout).OK
}
