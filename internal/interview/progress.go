package interview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// This file reports the progress of the long AI work of one request (a
// resume upload, an answer) so that a page waiting on a slow model can show
// which step it is at and for how long. The client chooses the request id
// (the answer's requestId; for an upload the requestId form field or the
// X-Request-Id header) and polls GET …/sessions/{sid}/progress/{requestId}
// while the request runs. Progress lives in Redis when configured, so any
// instance answers the poll, and in process otherwise.

// Kinds of tracked work and their steps, in order.
const (
	ProgressUpload = "upload"
	ProgressAnswer = "answer"

	StepReading   = "reading"   // reading the file (text layer or OCR)
	StepProfile   = "profile"   // building the profile from the resume
	StepQuestions = "questions" // writing the questions
	StepScoring   = "scoring"   // scoring the answer
	StepReview    = "review"    // a second look at a doubtful score
	StepFollowUp  = "followup"  // writing a follow-up question
	StepDone      = "done"
	StepFailed    = "failed"
)

// progressSteps are the steps a page shows for each kind (review and
// follow-up only happen when the rules ask for them).
var progressSteps = map[string][]string{
	ProgressUpload: {StepReading, StepProfile, StepQuestions},
	ProgressAnswer: {StepScoring, StepReview, StepFollowUp},
}

// stepOfStage is the step an AI stage belongs to.
var stepOfStage = map[string]string{
	StageProfile:    StepProfile,
	StageExtraction: StepQuestions,
	StageEvaluation: StepScoring,
	StageReview:     StepReview,
	StageFollowUp:   StepFollowUp,
}

// ProgressTTL is how long the progress of a request can be read.
const ProgressTTL = 15 * time.Minute

// StepTime is when a step started.
type StepTime struct {
	Step      string    `json:"step"`
	StartedAt time.Time `json:"startedAt"`
}

// Progress is the state of one tracked request.
type Progress struct {
	RequestID string `json:"requestId"`
	Kind      string `json:"kind"`
	// Step is the current step, StepDone or StepFailed.
	Step string `json:"step"`
	// Steps are the steps of Kind, in order, for the page to list.
	Steps []string `json:"steps"`
	// Entered are the steps entered so far with their start times.
	Entered    []StepTime `json:"entered"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Done       bool       `json:"done"`
	Failed     bool       `json:"failed"`
	// Message and Code describe a failure, in words for the candidate (the
	// detail is in the server log under the request id).
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`
	// ElapsedMs is the time since the request started (until it finished);
	// StepElapsedMs the time in the current step. Both are computed when
	// the progress is read.
	ElapsedMs     int64 `json:"elapsedMs"`
	StepElapsedMs int64 `json:"stepElapsedMs"`
}

// ProgressStore keeps progress by session and request id.
type ProgressStore interface {
	PutProgress(ctx context.Context, sessionID string, p Progress) error
	Progress(ctx context.Context, sessionID, requestID string) (Progress, bool, error)
}

// LocalProgress keeps progress in this process (one instance, or no Redis).
type LocalProgress struct {
	lru *expirable.LRU[string, Progress]
}

// NewLocalProgress returns an in-process progress store of up to 10000
// requests, each kept ProgressTTL.
func NewLocalProgress() *LocalProgress {
	return &LocalProgress{lru: expirable.NewLRU[string, Progress](10000, nil, ProgressTTL)}
}

var _ ProgressStore = (*LocalProgress)(nil)

func progressKey(sessionID, requestID string) string { return sessionID + "|" + requestID }

// PutProgress implements ProgressStore.
func (l *LocalProgress) PutProgress(_ context.Context, sessionID string, p Progress) error {
	l.lru.Add(progressKey(sessionID, p.RequestID), p)
	return nil
}

// Progress implements ProgressStore.
func (l *LocalProgress) Progress(_ context.Context, sessionID, requestID string) (Progress, bool, error) {
	p, ok := l.lru.Get(progressKey(sessionID, requestID))
	return p, ok, nil
}

// RedisProgress keeps progress in Redis, shared by every instance, and a
// copy in process: while Redis is down (its breaker open, or a command
// fails) this instance still answers for the requests it runs.
type RedisProgress struct {
	rdb     redis.UniversalClient
	prefix  string
	breaker *redisx.Breaker
	timeout time.Duration
	local   *LocalProgress
	batch   *redisBatch // writes batched while one is on its way
}

// NewRedisProgress returns a store on rdb with keys under prefix; each
// command gets timeout (none when 0) and reports to breaker (nil: one of
// its own).
func NewRedisProgress(rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) *RedisProgress {
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	r := &RedisProgress{rdb: rdb, prefix: prefix + "interview:progress:", breaker: breaker, timeout: timeout,
		local: NewLocalProgress()}
	r.batch = &redisBatch{rdb: rdb, guard: func(ctx context.Context, send func(ctx context.Context) error) error {
		return r.breaker.Do(ctx, r.timeout, redis.Nil, send)
	}}
	return r
}

var _ ProgressStore = (*RedisProgress)(nil)

// do runs one command under the timeout and reports it to the breaker.
func (r *RedisProgress) do(ctx context.Context, cmd func(ctx context.Context) error) error {
	if !r.breaker.Allow() {
		return errors.New("redis is down: skipped")
	}
	return r.breaker.Do(ctx, r.timeout, redis.Nil, cmd)
}

// PutProgress implements ProgressStore.
func (r *RedisProgress) PutProgress(ctx context.Context, sessionID string, p Progress) error {
	_ = r.local.PutProgress(ctx, sessionID, p)
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if !r.breaker.Allow() {
		return errors.New("redis is down: skipped")
	}
	return r.batch.do(ctx, redis.NewStatusCmd(ctx, "set", r.prefix+progressKey(sessionID, p.RequestID), b, "px",
		ProgressTTL.Milliseconds()))
}

// Progress implements ProgressStore: Redis first, this process's copy when
// Redis has none or cannot be reached.
func (r *RedisProgress) Progress(ctx context.Context, sessionID, requestID string) (Progress, bool, error) {
	var b []byte
	err := r.do(ctx, func(ctx context.Context) (err error) {
		b, err = r.rdb.Get(ctx, r.prefix+progressKey(sessionID, requestID)).Bytes()
		return err
	})
	if err == nil {
		var p Progress
		if jerr := json.Unmarshal(b, &p); jerr == nil {
			return p, true, nil
		}
	}
	return r.local.Progress(ctx, sessionID, requestID)
}

// tracker reports the progress of one request; a nil tracker reports
// nothing (no request id, or no store).
type tracker struct {
	store     ProgressStore
	log       *slog.Logger
	sessionID string
	p         Progress
}

type trackerKey struct{}

// track starts tracking requestID of kind at its first step, and returns
// ctx carrying the tracker (Invoke moves it on to each AI stage's step).
func (s *Service) track(ctx context.Context, sessionID, requestID, kind, step string) (context.Context, *tracker) {
	if s.progress == nil || requestID == "" {
		return ctx, nil
	}
	now := s.now()
	t := &tracker{store: s.progress, log: s.log, sessionID: sessionID,
		p: Progress{RequestID: requestID, Kind: kind, Steps: progressSteps[kind], StartedAt: now}}
	t.step(ctx, step, now)
	return context.WithValue(ctx, trackerKey{}, t), t
}

// trackerFrom returns the tracker in ctx, or nil.
func trackerFrom(ctx context.Context) *tracker {
	t, _ := ctx.Value(trackerKey{}).(*tracker)
	return t
}

// trackStage moves the tracker in ctx to the step of an AI stage.
func trackStage(ctx context.Context, stage string) {
	if step, ok := stepOfStage[stage]; ok {
		if t := trackerFrom(ctx); t != nil {
			t.step(ctx, step, time.Now().UTC())
		}
	}
}

// step enters step (again entering the current step changes nothing).
func (t *tracker) step(ctx context.Context, step string, now time.Time) {
	if t == nil || t.p.Step == step || t.p.Done || t.p.Failed {
		return
	}
	t.p.Step = step
	t.p.Entered = append(t.p.Entered, StepTime{Step: step, StartedAt: now})
	t.put(ctx)
}

// finish records the outcome: done, or failed with the envelope message
// and code of err. A request that goes on elsewhere (202) or whose client
// left is not finished here.
func (t *tracker) finish(ctx context.Context, err error, now time.Time) {
	if t == nil {
		return
	}
	var pending interface{ Accepted() any }
	if errors.As(err, &pending) || errors.Is(err, context.Canceled) {
		return
	}
	t.p.FinishedAt = &now
	if err == nil {
		t.p.Done, t.p.Step = true, StepDone
	} else {
		t.p.Failed, t.p.Step = true, StepFailed
		t.p.Message, t.p.Code = "something went wrong; try again", apperr.CodeInternal
		if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal {
			t.p.Message, t.p.Code = e.Message, e.Code
		}
	}
	t.p.Entered = append(t.p.Entered, StepTime{Step: t.p.Step, StartedAt: now})
	t.put(ctx)
}

// put stores the progress; it is best effort (a poll may then see an older
// step), so a failure is only logged.
func (t *tracker) put(ctx context.Context) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := t.store.PutProgress(pctx, t.sessionID, t.p); err != nil {
		t.log.LogAttrs(ctx, slog.LevelDebug, "interview: progress not stored", slog.String("session", t.sessionID),
			slog.String("requestId", t.p.RequestID), slog.Any("err", err))
	}
}

// Progress returns the progress of the caller's request requestID in the
// session; a request never tracked (or forgotten) is a 404.
func (s *Service) Progress(ctx context.Context, userID, sessionID, requestID string) (Progress, error) {
	if _, err := s.store.Session(ctx, userID, sessionID); err != nil {
		return Progress{}, err
	}
	if len(requestID) > MaxRequestIDLen {
		return Progress{}, apperr.Invalid("requestId must be at most %d characters", MaxRequestIDLen)
	}
	if s.progress == nil {
		return Progress{}, apperr.NotFound("progress of this request")
	}
	p, ok, err := s.progress.Progress(ctx, sessionID, requestID)
	if err != nil {
		return Progress{}, fmt.Errorf("read progress: %w", err)
	}
	if !ok {
		return Progress{}, apperr.NotFound("progress of this request")
	}
	end := s.now()
	if p.FinishedAt != nil {
		end = *p.FinishedAt
	}
	p.ElapsedMs = max(end.Sub(p.StartedAt).Milliseconds(), 0)
	if n := len(p.Entered); n > 0 {
		last := p.Entered[n-1]
		if p.FinishedAt != nil && n > 1 {
			last = p.Entered[n-2] // the step that ended with the request
		}
		p.StepElapsedMs = max(end.Sub(last.StartedAt).Milliseconds(), 0)
	}
	return p, nil
}
