// Package airouting chooses the model of each AI stage and accounts for
// what the models cost. An admin routes a stage (an interview stage, or
// "chat" for chats that name no model) to an ordered list of ai-properties:
// a call tries them in order and moves to the next one only when the
// current one is unavailable (timeout, 429, 5xx, connection refused, its
// breaker open), never on a content error. A stage without a route uses
// the default provider of application.yaml.
//
// The routes live in the database, which is the truth for every instance:
// each instance re-reads them at most every refresh interval (1 s by
// default), so a change applies cluster-wide within that interval without a
// restart, with or without Redis.
//
// Every model call is recorded as a usage event (stage, ai-property, model,
// tokens, latency, outcome, session or conversation) by a Recorder that
// writes in batches from a bounded queue: recording never blocks or fails
// the caller's request, and a full queue drops the event and counts it.
// Calls that single-flight avoided are recorded as saved.
package airouting

import (
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// The stages a route may be set for. The interview's names are repeated
// here (this package does not import the interview).
const (
	StageExtraction = "interview-extraction"
	StageProfile    = "resume-profile-extraction"
	StageEvaluation = "interview-evaluation"
	StageReview     = "interview-review"
	StageFollowUp   = "interview-followup"
	StageDemeanor   = "interview-demeanor"
	StageChat       = llm.StageChat
)

// Stages lists the routable stages in the order the admin page shows them.
var Stages = []string{StageExtraction, StageProfile, StageEvaluation, StageReview, StageFollowUp, StageDemeanor, StageChat}

// IsStage reports whether stage may be routed.
func IsStage(stage string) bool { return slices.Contains(Stages, stage) }

// MaxTargets bounds the models of one route.
const MaxTargets = 5

// Route is the ordered ai-property ids a stage tries.
type Route struct {
	AIIDs []string `json:"aiIds"`
}

// Routes maps a stage to its route. A stage absent from the map has none.
type Routes map[string]Route

// StagesUsing lists, in Stages order, the stages whose route names id.
func (r Routes) StagesUsing(id string) []string {
	var out []string
	for _, st := range Stages {
		if slices.Contains(r[st].AIIDs, id) {
			out = append(out, st)
		}
	}
	return out
}

// Target is one model a call may be served by.
type Target struct {
	// ID is the ai-property id; "" for the default provider.
	ID string
	// Model names the model for usage accounting.
	Model    string
	Provider llm.Provider
}

// Outcomes of a usage event.
const (
	OutcomeOK        = "ok"        // the call answered and its answer was used
	OutcomeRetryable = "retryable" // the call failed and the same model was tried again
	OutcomeFailed    = "failed"    // the call failed and nothing else was tried
	OutcomeFallback  = "fallback"  // the call failed and the next model of the route was tried
	OutcomeSaved     = "saved"     // no call: single-flight shared or replayed another's result
)

// Event is one model call, or one call saved by single-flight.
type Event struct {
	At               time.Time
	Stage            string
	AIID             string // "" for the default provider
	Model            string
	PromptTokens     int
	CompletionTokens int
	// Estimated is true when the tokens were estimated from the text
	// because the provider reported none (the offline model included).
	Estimated      bool
	Latency        time.Duration
	Outcome        string
	SessionID      string // the interview session served, if any
	ConversationID string // the chat conversation served, if any
}

// Usage grouping keys.
const (
	GroupByStage = "stage"
	GroupByModel = "model"
	GroupByDay   = "day"
)

// UsageQuery selects usage events in [From, To) and groups them.
type UsageQuery struct {
	From, To time.Time
	GroupBy  string
}

// UsageRow is the usage of one group (or the totals).
type UsageRow struct {
	Key              string `json:"key"`
	Calls            int64  `json:"calls"`
	SavedCalls       int64  `json:"savedCalls"`
	PromptTokens     int64  `json:"promptTokens"`
	CompletionTokens int64  `json:"completionTokens"`
	Failures         int64  `json:"failures"`
	Fallbacks        int64  `json:"fallbacks"`
	// EstimatedCalls counts the calls whose tokens were estimated (the
	// provider reported none).
	EstimatedCalls int64 `json:"estimatedCalls"`
	P50Ms          int64 `json:"p50Ms"`
	P95Ms          int64 `json:"p95Ms"`
}

// UsageReport is the answer of GET /ai-usage.
type UsageReport struct {
	From   string     `json:"from"`
	To     string     `json:"to"`
	Rows   []UsageRow `json:"rows"`
	Totals UsageRow   `json:"totals"`
}

// EstimateTokens guesses the tokens of s when a provider reports none: one
// per CJK character, one per four other characters, at least one for a
// non-empty text.
func EstimateTokens(s string) int {
	var cjk, other int
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf { // ASCII, most of a prompt: no table lookups
			other++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			cjk++
		default:
			other++
		}
	}
	n := cjk + (other+3)/4
	if n == 0 && s != "" {
		n = 1
	}
	return n
}

// RequestText is the text of a request's messages, for EstimateTokens.
func RequestText(req llm.Request) string {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	b := make([]byte, 0, n)
	for _, m := range req.Messages {
		b = append(b, m.Content...)
	}
	return string(b)
}
