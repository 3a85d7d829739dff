// Package interview is the AI mock interview: sessions, resume to rubric
// questions, answers scored by rules over model-extracted evidence,
// follow-ups, demeanor and the report. Every AI stage goes through the
// Invoker.
package interview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/airouting"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// The AI stages of an interview.
const (
	StageProfile    = "resume-profile-extraction"
	StageExtraction = "interview-extraction"
	StageEvaluation = "interview-evaluation"
	StageReview     = "interview-review"
	StageFollowUp   = "interview-followup"
	StageDemeanor   = "interview-demeanor"
)

// FlightStages is the single-flight stage table of the interview: each AI
// stage's policy (interview.md, "Single-flight"), with ErrorCodec so that a
// replayed failure maps to the same HTTP answer as the original. Stages not
// tuned here (profile, review) get the evaluation's policy.
func FlightStages() map[string]singleflight.Policy {
	const kib = 1024
	eval := singleflight.DefaultPolicy()
	eval.Codec = ErrorCodec{}
	return map[string]singleflight.Policy{
		StageEvaluation: eval,
		StageReview:     eval,
		StageProfile:    eval,
		StageFollowUp: {
			ResultTTL: 3 * time.Minute, FailedTTL: 30 * time.Second,
			RunningLease: 12 * time.Second, Heartbeat: 2500 * time.Millisecond, TakeoverDetect: 8 * time.Second,
			L1Enabled: true, L1TTL: 15 * time.Second, CompressOver: 2 * kib, Codec: ErrorCodec{},
		},
		StageExtraction: {
			ResultTTL: 30 * time.Minute, FailedTTL: 60 * time.Second,
			RunningLease: 20 * time.Second, Heartbeat: 4 * time.Second, TakeoverDetect: 12 * time.Second,
			L1Enabled: true, L1TTL: 60 * time.Second, CompressOver: 1 * kib, Codec: ErrorCodec{},
		},
		StageDemeanor: {
			ResultTTL: 15 * time.Minute, FailedTTL: 60 * time.Second,
			RunningLease: 30 * time.Second, Heartbeat: 5 * time.Second, TakeoverDetect: 15 * time.Second,
			L1Enabled: false, CompressOver: 2 * kib, Codec: ErrorCodec{},
		},
	}
}

// GuardStages is the AI guard's stage table of the interview: each AI
// stage's timeout and limits (interview.md, "Stage timeouts and limits"),
// with aiguard's default breaker.
func GuardStages() map[string]aiguard.StagePolicy {
	stage := func(timeout time.Duration, maxConcurrent, retries int, retryDelay time.Duration) aiguard.StagePolicy {
		return aiguard.StagePolicy{Timeout: timeout, MaxConcurrent: maxConcurrent, Retries: retries,
			RetryDelay: retryDelay, Breaker: aiguard.DefaultBreakerPolicy()}
	}
	const retryDelay = 100 * time.Millisecond
	return map[string]aiguard.StagePolicy{
		StageEvaluation: stage(20*time.Second, 30, 1, retryDelay),
		StageReview:     stage(20*time.Second, 30, 1, retryDelay),
		StageFollowUp:   stage(20*time.Second, 20, 1, retryDelay),
		StageExtraction: stage(60*time.Second, 8, 0, 0),
		StageProfile:    stage(60*time.Second, 8, 0, 0),
		StageDemeanor:   stage(20*time.Second, 6, 0, 0),
	}
}

// Invoker runs interview AI calls: single-flight (in-process, then Redis)
// around the AI guard around the model call and the parsing of its output.
// Followers and replays therefore use no guard capacity, and one business
// request makes at most one model call across the cluster.
type Invoker struct {
	flights *singleflight.Group
	guard   *aiguard.Guard
	calls   *prometheus.CounterVec
	router  Router    // nil: every stage uses the call's provider
	usage   UsageSink // nil: usage is not recorded
	// defaultModel names the call's own provider in usage records.
	defaultModel string
}

// Router gives the models a stage is routed to, in order (airouting.Service);
// none means the call's own (default) provider.
type Router interface {
	Targets(ctx context.Context, stage string) ([]airouting.Target, error)
}

// UsageSink records model calls and saved calls (airouting.Recorder). It
// must not block.
type UsageSink interface {
	Record(e airouting.Event)
}

// InvokerOption configures an Invoker.
type InvokerOption func(*Invoker)

// WithRouting routes each stage through router.
func WithRouting(router Router) InvokerOption { return func(inv *Invoker) { inv.router = router } }

// WithUsage records every model call, and every call single-flight saved,
// on sink.
func WithUsage(sink UsageSink, defaultModel string) InvokerOption {
	return func(inv *Invoker) { inv.usage, inv.defaultModel = sink, defaultModel }
}

// NewInvoker returns an invoker. reg may be nil.
func NewInvoker(flights *singleflight.Group, guard *aiguard.Guard, reg prometheus.Registerer, opts ...InvokerOption) *Invoker {
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "aimeeting", Subsystem: "interview", Name: "model_calls_total",
		Help: "Model calls made by the interview invoker (after single-flight), by stage and result.",
	}, []string{"stage", "result"})
	if reg != nil {
		if err := reg.Register(calls); err != nil {
			if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
				calls = are.ExistingCollector.(*prometheus.CounterVec)
			}
		}
	}
	inv := &Invoker{flights: flights, guard: guard, calls: calls}
	for _, o := range opts {
		o(inv)
	}
	return inv
}

// Call is one interview AI request. The flight key is made from Stage,
// SessionID and either QuestionNumber + Answer (evaluation, review,
// follow-up) or BusinessKey (extraction, demeanor: a file or image hash).
type Call struct {
	Stage          string
	SessionID      string
	QuestionNumber string
	Answer         string
	BusinessKey    string
	Provider       llm.Provider
	Request        llm.Request
}

// Key returns the call's flight key; the only place keys are built.
func (c Call) Key() string {
	if c.BusinessKey != "" {
		return BusinessFlightKey(c.Stage, c.SessionID, c.BusinessKey)
	}
	return AnswerFlightKey(c.Stage, c.SessionID, c.QuestionNumber, c.Answer)
}

// AnswerFlightKey is stage|sessionId|questionNumber|answerHash.
func AnswerFlightKey(stage, sessionID, questionNumber, answer string) string {
	return stage + "|" + sessionID + "|" + questionNumber + "|" + AnswerHash(answer)
}

// BusinessFlightKey is stage|sessionId|businessKey.
func BusinessFlightKey(stage, sessionID, businessKey string) string {
	return stage + "|" + sessionID + "|" + businessKey
}

// AnswerHash is the first 16 hex characters of the SHA-256 of the
// normalised answer (trimmed, inner white space folded to one space), so
// that answers differing only in spacing are the same request.
func AnswerHash(answer string) string {
	sum := sha256.Sum256([]byte(NormalizeAnswer(answer)))
	return hex.EncodeToString(sum[:])[:16]
}

// NormalizeAnswer trims and folds white space.
func NormalizeAnswer(answer string) string { return strings.Join(strings.Fields(answer), " ") }

// HashBytes is the full hex SHA-256 of b, for business keys.
func HashBytes(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p)) // length-prefixed: no ambiguity between parts
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Invoke runs c through single-flight and the guard, and parses the model's
// response with parse inside the guarded call: an unusable output is a
// retryable upstream error that the guard may retry, and what is shared and
// replayed is the parsed value, never raw garbage.
//
// When the stage is routed, the route's models are tried in order, each
// under its own breaker and bulkhead (aiguard.DoFor); the next one is used
// only when the current one is unavailable (airouting.ShouldFallback). The
// flight key does not depend on the route: duplicates cost one call
// whichever model serves it.
func Invoke[T any](ctx context.Context, inv *Invoker, c Call, parse func(llm.Response) (T, error)) (T, singleflight.Outcome, error) {
	var zero T
	if c.Provider == nil {
		return zero, "", apperr.Internal(fmt.Errorf("interview: no provider for stage %s", c.Stage))
	}
	c.Request.Stage = c.Stage
	trackStage(ctx, c.Stage) // the request's progress moves on to this stage's step
	targets := []airouting.Target{{Model: inv.defaultModel, Provider: c.Provider}}
	if inv.router != nil {
		routed, err := inv.router.Targets(ctx, c.Stage)
		if err != nil {
			return zero, "", err
		}
		if len(routed) > 0 {
			targets = routed
		}
	}
	res, err := inv.flights.Do(ctx, c.Stage, c.Key(), func(ctx context.Context) ([]byte, error) {
		var v T
		var err error
		for i, tg := range targets {
			v, err = invokeTarget(ctx, inv, c, tg, parse, i < len(targets)-1)
			if err == nil || i == len(targets)-1 || !airouting.ShouldFallback(ctx, err) {
				break
			}
		}
		if err != nil {
			// Mapped before the flight stores it, so a replay says the same.
			return nil, GuardError(err)
		}
		return json.Marshal(v)
	})
	if inv.usage != nil && savedCall(res.Outcome) {
		inv.usage.Record(airouting.Event{Stage: c.Stage, Outcome: airouting.OutcomeSaved, SessionID: c.SessionID})
	}
	if err != nil {
		return zero, res.Outcome, FlightError(err)
	}
	var v T
	if err := json.Unmarshal(res.Value, &v); err != nil {
		return zero, res.Outcome, apperr.Internal(fmt.Errorf("interview: decode shared %s result: %w", c.Stage, err))
	}
	return v, res.Outcome, nil
}

// routedProvider is the first model stage is routed to, or nil when it has
// no route (or the route cannot be read: the caller's default applies).
func (inv *Invoker) routedProvider(ctx context.Context, stage string) llm.Provider {
	if inv.router == nil {
		return nil
	}
	ts, err := inv.router.Targets(ctx, stage)
	if err != nil || len(ts) == 0 {
		return nil
	}
	return ts[0].Provider
}

// savedCall reports whether a flight outcome avoided a model call.
func savedCall(o singleflight.Outcome) bool {
	switch o {
	case singleflight.Follower, singleflight.ReplayL1, singleflight.ReplayRedis, singleflight.ReplayFailure, singleflight.LocalShared:
		return true
	}
	return false
}

// invokeTarget runs c on one target under the guard, recording each model
// call: the last failed one as a fallback when another target may follow
// (canFall) and the failure allows it, the earlier ones as retryable.
func invokeTarget[T any](ctx context.Context, inv *Invoker, c Call, tg airouting.Target, parse func(llm.Response) (T, error), canFall bool) (T, error) {
	var zero T
	var attempts []airouting.Event
	v, err := aiguard.DoFor(ctx, inv.guard, c.Stage, tg.ID, func(ctx context.Context) (T, error) {
		start := time.Now()
		resp, err := tg.Provider.Generate(ctx, c.Request)
		e := airouting.UsageOf(c.Request, resp, err)
		e.Latency, e.AIID, e.Model, e.SessionID = time.Since(start), tg.ID, tg.Model, c.SessionID
		if e.Model == "" {
			e.Model = resp.Model
		}
		attempts = append(attempts, e)
		if err != nil {
			inv.calls.WithLabelValues(c.Stage, "error").Inc()
			return zero, err
		}
		inv.calls.WithLabelValues(c.Stage, "ok").Inc()
		v, err := parse(resp)
		if err != nil {
			attempts[len(attempts)-1].Outcome = airouting.OutcomeFailed
			return zero, airouting.ContentError(err)
		}
		return v, nil
	})
	if inv.usage != nil {
		for i, e := range attempts {
			last := i == len(attempts)-1
			switch {
			case !last && e.Outcome != airouting.OutcomeOK:
				e.Outcome = airouting.OutcomeRetryable
			case last && err != nil && canFall && airouting.ShouldFallback(ctx, err):
				e.Outcome = airouting.OutcomeFallback
			case last && err != nil:
				e.Outcome = airouting.OutcomeFailed
			}
			inv.usage.Record(e)
		}
	}
	return v, err
}

// The single-flight's own errors as the interview's clients see them.
var (
	errInProgress       = apperr.Conflict("the same request is still being processed; retry shortly").AsRetryable()
	errRedisUnavailable = apperr.New(apperr.KindUnavailable, "single-flight coordination store (Redis) unavailable").AsRetryable()
)

// FlightError gives the single-flight's sentinel errors their HTTP meaning:
// ErrInProgress is a retryable conflict (409), ErrRedisUnavailable a
// retryable 503. The sentinel stays in the chain (errors.Is still finds it);
// other errors are returned unchanged.
func FlightError(err error) error {
	switch {
	case errors.Is(err, singleflight.ErrInProgress):
		return fmt.Errorf("%w: %w", errInProgress, err)
	case errors.Is(err, singleflight.ErrRedisUnavailable):
		return fmt.Errorf("%w: %w", errRedisUnavailable, err)
	}
	return err
}

// GuardError gives the AI guard's own errors their HTTP meaning: a stage
// timeout is a retryable 504 (CodeAITimeout), a rejection (bulkhead full,
// breaker open, rate limit) a retryable 503 (CodeAIOverloaded), both with
// the guard's message. Other errors are returned unchanged.
func GuardError(err error) error {
	var ge *aiguard.Error
	if !errors.As(err, &ge) {
		return err
	}
	kind := apperr.KindOverloaded
	if ge.Timeout {
		kind = apperr.KindTimeout
	}
	return apperr.New(kind, "%s", ge.Message).AsRetryable().WithCause(err)
}

// ErrorCodec stores *apperr.Error failures with their kind, code, message
// and retryable flag, so a replayed failure maps to the same HTTP status and
// envelope as the original. The cause is not stored: it may hold details
// meant for logs only.
type ErrorCodec struct{}

var _ singleflight.ErrorCodec = ErrorCodec{}

const kindPrefix = "apperr.kind:"

// Encode implements singleflight.ErrorCodec.
func (ErrorCodec) Encode(err error) singleflight.Failure {
	if e := apperr.As(err); e != nil {
		return singleflight.Failure{Type: kindPrefix + strconv.Itoa(int(e.Kind)), Code: e.Code, Message: e.Message, Retryable: e.Retryable}
	}
	return singleflight.DefaultErrorCodec{}.Encode(err)
}

// Decode implements singleflight.ErrorCodec.
func (ErrorCodec) Decode(f singleflight.Failure) error {
	if k, ok := strings.CutPrefix(f.Type, kindPrefix); ok {
		if n, err := strconv.Atoi(k); err == nil {
			return &apperr.Error{Kind: apperr.Kind(n), Code: f.Code, Message: f.Message, Retryable: f.Retryable}
		}
	}
	return &apperr.Error{Kind: apperr.KindUpstream, Code: apperr.CodeAIUpstream, Message: f.Message, Retryable: f.Retryable}
}
