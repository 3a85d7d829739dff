package interview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// Bounds of a trace entry's texts.
const (
	// MaxTraceRawChars bounds the model's raw text kept per call
	// (characters); longer text is cut and RawTruncated set.
	MaxTraceRawChars = 8000
	// MaxTraceParsedBytes bounds the parsed result kept per call; a larger
	// one is kept as a cut JSON string.
	MaxTraceParsedBytes = 16 << 10
	// maxTraceErrorChars bounds the error message kept per call.
	maxTraceErrorChars = 1000
)

// TraceEntry is one AI stage call of an interview, as its trace shows it.
type TraceEntry struct {
	At             time.Time `json:"at"`
	SessionID      string    `json:"sessionId"`
	Stage          string    `json:"stage"`
	QuestionNumber string    `json:"questionNumber,omitempty"`
	// Provider is the provider type ("openai", "ollama", "offline").
	Provider string `json:"provider"`
	// Model is the model that answered; "" when this instance did not call
	// it (the result was shared or replayed by single-flight).
	Model         string `json:"model"`
	PromptVersion string `json:"promptVersion"`
	LatencyMs     int64  `json:"latencyMs"`
	// PromptTokens and CompletionTokens are the usage the model reported
	// (0 when it reported none or was not called here).
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	// Outcome is the single-flight outcome (owner_new, follower,
	// replay_l1, replay_redis, ...); "" when the call failed before it.
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// Parsed is the stage's parsed result (null when it failed).
	Parsed json.RawMessage `json:"parsed"`
	// Raw is the model's text, credentials masked; "" when this instance
	// did not call the model.
	Raw          string `json:"raw"`
	RawTruncated bool   `json:"rawTruncated,omitempty"`
}

// tracedInvoke is Invoke that records the call in the session's trace:
// stored now, or added to batch when it is not nil (the answer path stores
// its entries with its result). The trace is best effort: a failure to
// store it is logged, never the caller's error.
func tracedInvoke[T any](ctx context.Context, s *Service, batch *traceBatch, c Call, parse func(llm.Response) (T, error)) (T, singleflight.Outcome, error) {
	var (
		mu   sync.Mutex // protects last: a retry parses again
		last llm.Response
	)
	capture := func(r llm.Response) (T, error) {
		mu.Lock()
		last = r
		mu.Unlock()
		return parse(r)
	}
	start := time.Now()
	v, outcome, err := Invoke(ctx, s.inv, c, capture)
	latency := time.Since(start)
	mu.Lock()
	e := TraceEntry{At: s.now(), SessionID: c.SessionID, Stage: c.Stage, QuestionNumber: c.QuestionNumber,
		Model: last.Model, PromptVersion: s.prompts[c.Stage].Version, LatencyMs: latency.Milliseconds(),
		PromptTokens: last.PromptTokens, CompletionTokens: last.CompletionTokens, Outcome: string(outcome)}
	e.Raw, e.RawTruncated = boundRunes(redact.FreeText(last.Content), MaxTraceRawChars)
	mu.Unlock()
	if c.Provider != nil {
		e.Provider = c.Provider.Name()
	}
	if err != nil {
		msg := err.Error()
		if ae := apperr.As(err); ae != nil {
			msg = ae.Message // the cause may hold details meant for logs only
		}
		e.Error, _ = boundRunes(redact.FreeText(msg), maxTraceErrorChars)
	} else {
		e.Parsed = boundJSON(v)
	}
	if batch != nil {
		batch.entries = append(batch.entries, e)
		return v, outcome, err
	}
	if terr := s.store.AddTrace(context.WithoutCancel(ctx), e); terr != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "interview: trace not stored",
			slog.String("session", c.SessionID), slog.String("stage", c.Stage), slog.Any("err", terr))
	}
	return v, outcome, err
}

// boundRunes cuts s to at most n characters; cut says it was.
func boundRunes(s string, n int) (out string, cut bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

// boundJSON is v as JSON with credentials masked, or, when that is larger
// than MaxTraceParsedBytes, a JSON string of its cut text.
func boundJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	masked := redact.FreeText(string(b))
	if len(masked) <= MaxTraceParsedBytes && json.Valid([]byte(masked)) {
		return json.RawMessage(masked)
	}
	cut, _ := boundRunes(masked, MaxTraceParsedBytes/4) // ≤ 4 bytes a rune
	b, _ = json.Marshal(cut + "…")
	return b
}

// Trace returns the AI trace of a session, oldest call first: to its
// owner, or to any admin; anyone else gets the session's 404.
func (s *Service) Trace(ctx context.Context, userID string, admin bool, sessionID string) ([]TraceEntry, error) {
	var err error
	if admin {
		_, err = s.store.AnySession(ctx, sessionID)
	} else {
		_, err = s.store.Session(ctx, userID, sessionID)
	}
	if err != nil {
		return nil, err
	}
	return s.store.Traces(ctx, sessionID)
}

// WriteJSONL writes entries as JSON Lines, one entry a line.
func WriteJSONL(entries []TraceEntry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return nil, fmt.Errorf("encode trace: %w", err)
		}
	}
	return buf.Bytes(), nil
}
