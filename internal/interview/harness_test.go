package interview_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// The tests in this file run the interview service in-process on the real
// store (SQLite, and MariaDB when TEST_MYSQL_DSN reaches one), with the
// fake interview model behind llmtest and a local single-flight: no
// subprocess, no Redis. Model calls are ordered with gates (channels), never
// with sleeps.

// errInjected is the failure hookStore injects.
var errInjected = errors.New("injected store failure")

// hookStore is the real store with hooks: before(method) runs before each
// call and may fail it; a hook may also act on the real store first, as a
// concurrent instance would.
type hookStore struct {
	interview.Store

	mu    sync.Mutex // protects hooks and calls
	hooks map[string]func(n int) error
	calls map[string]int
}

// on installs fn before every call of method; n counts the calls from 1.
func (h *hookStore) on(method string, fn func(n int) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hooks[method] = fn
}

// before runs the hook of method, if any.
func (h *hookStore) before(method string) error {
	h.mu.Lock()
	h.calls[method]++
	n, fn := h.calls[method], h.hooks[method]
	h.mu.Unlock()
	if fn == nil {
		return nil
	}
	return fn(n)
}

// failOn makes call number n (0: every call) of method fail.
func (h *hookStore) failOn(method string, n int) {
	h.on(method, func(i int) error {
		if n == 0 || i == n {
			return errInjected
		}
		return nil
	})
}

func (h *hookStore) Session(ctx context.Context, userID, id string) (interview.Session, error) {
	if err := h.before("Session"); err != nil {
		return interview.Session{}, err
	}
	return h.Store.Session(ctx, userID, id)
}

func (h *hookStore) ClaimUpload(ctx context.Context, s interview.Session, hash string, now, staleBefore time.Time) (bool, error) {
	if err := h.before("ClaimUpload"); err != nil {
		return false, err
	}
	return h.Store.ClaimUpload(ctx, s, hash, now, staleBefore)
}

func (h *hookStore) FailUpload(ctx context.Context, id, hash string, now time.Time) error {
	if err := h.before("FailUpload"); err != nil {
		return err
	}
	return h.Store.FailUpload(ctx, id, hash, now)
}

func (h *hookStore) CompleteUpload(ctx context.Context, s interview.Session, f interview.File, qs []interview.Question) ([]interview.File, bool, error) {
	if err := h.before("CompleteUpload"); err != nil {
		return nil, false, err
	}
	return h.Store.CompleteUpload(ctx, s, f, qs)
}

func (h *hookStore) TurnByRequest(ctx context.Context, sessionID, requestID string) (interview.Turn, error) {
	if err := h.before("TurnByRequest"); err != nil {
		return interview.Turn{}, err
	}
	return h.Store.TurnByRequest(ctx, sessionID, requestID)
}

func (h *hookStore) AnswerState(ctx context.Context, userID, sessionID, requestID string) (interview.AnswerView, error) {
	if err := h.before("AnswerState"); err != nil {
		return interview.AnswerView{}, err
	}
	return h.Store.AnswerState(ctx, userID, sessionID, requestID)
}

func (h *hookStore) ClaimAnswer(ctx context.Context, s interview.Session, t interview.Turn, retryOf string, now, staleBefore time.Time) (bool, error) {
	if err := h.before("ClaimAnswer"); err != nil {
		return false, err
	}
	return h.Store.ClaimAnswer(ctx, s, t, retryOf, now, staleBefore)
}

func (h *hookStore) CompleteAnswer(ctx context.Context, sessionID string, version int64, t interview.Turn, flow, next string,
	followUp *interview.Question, traces []interview.TraceEntry) (bool, error) {
	if err := h.before("CompleteAnswer"); err != nil {
		return false, err
	}
	return h.Store.CompleteAnswer(ctx, sessionID, version, t, flow, next, followUp, traces)
}

func (h *hookStore) FailAnswer(ctx context.Context, sessionID string, version int64, t interview.Turn) error {
	if err := h.before("FailAnswer"); err != nil {
		return err
	}
	return h.Store.FailAnswer(ctx, sessionID, version, t)
}

// gate holds the model's replies of one stage: each request is announced
// on arrived and answered when the test sends a reply on its held call.
type gate struct{ arrived chan held }

// held is one request waiting for its reply.
type held struct {
	req   llmtest.RecordedRequest
	reply chan llmtest.Reply // buffered: answering never blocks the test
}

// env is one test's world: a store on db, the fake model and services.
type env struct {
	t     *testing.T
	gdb   *gorm.DB
	store *hookStore
	model *interviewtest.Model
	srv   *llmtest.Server
	svc   *interview.Service
	cfg   interview.Config
	// filesDir is the directory of the file store (cfg.Files).
	filesDir string
	done     chan struct{} // closed at cleanup: releases held replies

	mu    sync.Mutex // protects gates and override
	gates map[string]*gate
	// override, when set for a stage, replaces the model's reply.
	override map[string]func(llmtest.RecordedRequest) llmtest.Reply
}

// option tunes an env before its first service is built.
type option func(*interview.Config, *singleflight.Config)

// staleAfter makes phases stale after d.
func staleAfter(d time.Duration) option {
	return func(c *interview.Config, _ *singleflight.Config) { c.StaleAfter = d }
}

// followerWait bounds how long a joined caller waits for the flight.
func followerWait(d time.Duration) option {
	return func(_ *interview.Config, c *singleflight.Config) { c.FollowerMaxWait = d }
}

func newEnv(t *testing.T, gdb *gorm.DB, opts ...option) *env {
	t.Helper()
	e := &env{t: t, gdb: gdb, model: &interviewtest.Model{}, done: make(chan struct{}),
		store: &hookStore{Store: interview.NewGormStore(gdb), hooks: map[string]func(int) error{}, calls: map[string]int{}},
		gates: map[string]*gate{}, override: map[string]func(llmtest.RecordedRequest) llmtest.Reply{}}
	e.srv = llmtest.NewServer(t, llmtest.WithResponder(e.respond))
	t.Cleanup(func() { close(e.done) }) // runs before the server's Close
	// Short resumes keep the tests readable; the length rule has tests of
	// its own (resume_e2e_test.go).
	e.filesDir = t.TempDir()
	e.cfg = interview.Config{Files: s3test.Files(t, e.filesDir), QuestionCount: 5, MinChars: -1}
	e.svc = e.instance(opts...)
	return e
}

// instance builds another service on the same store and model with its
// own single-flight group: a second server instance without Redis.
func (e *env) instance(opts ...option) *interview.Service {
	e.t.Helper()
	cfg := e.cfg
	sf := singleflight.DefaultConfig()
	sf.Mode = singleflight.ModeLocal
	sf.Stages = interview.FlightStages()
	for _, o := range opts {
		o(&cfg, &sf)
	}
	e.cfg = cfg
	flights, err := singleflight.New(sf, nil, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = flights.Close() })
	gc := aiguard.DefaultConfig()
	gc.Stages = interview.GuardStages()
	for name, p := range gc.Stages {
		p.Retries = 0 // one model call per failure: the tests count calls
		gc.Stages[name] = p
	}
	guard, err := aiguard.New(gc, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	provider, err := llm.New(llm.Config{Type: "other", BaseURL: e.srv.URL(), Model: "fake-model"})
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := interview.NewService(e.store, interview.NewInvoker(flights, guard, nil), provider, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

func (e *env) respond(req llmtest.RecordedRequest) llmtest.Reply {
	stage := req.Stage()
	e.mu.Lock()
	g, fn := e.gates[stage], e.override[stage]
	e.mu.Unlock()
	if g != nil {
		h := held{req: req, reply: make(chan llmtest.Reply, 1)}
		select {
		case g.arrived <- h:
		case <-e.done:
			return llmtest.Reply{Status: 503}
		}
		select {
		case r := <-h.reply:
			return r
		case <-e.done:
			return llmtest.Reply{Status: 503}
		}
	}
	if fn != nil {
		return fn(req)
	}
	return e.model.Reply(req)
}

// hold gates the replies of stage.
func (e *env) hold(stage string) *gate {
	g := &gate{arrived: make(chan held)}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gates[stage] = g
	return g
}

// setReply replaces the model's replies of stage (nil restores them).
func (e *env) setReply(stage string, fn func(llmtest.RecordedRequest) llmtest.Reply) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if fn == nil {
		delete(e.override, stage)
		return
	}
	e.override[stage] = fn
}

// wait receives the next held request of g.
func (e *env) wait(g *gate) held {
	e.t.Helper()
	select {
	case h := <-g.arrived:
		return h
	case <-time.After(10 * time.Second):
		e.t.Fatal("no model request arrived within 10s")
		return held{}
	}
}

// answer releases h with the model's normal reply.
func (e *env) answer(h held) { h.reply <- e.model.Reply(h.req) }

// count returns how many calls of method the store saw.
func (h *hookStore) count(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[method]
}

const resumeText = "Jane Doe - Backend Engineer\nBuilt Go services on MySQL and Redis.\nLed a payment service.\n"

// session creates a DRAFT session of user.
func (e *env) session(user string) interview.Session {
	e.t.Helper()
	s, err := e.svc.Create(context.Background(), user)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// ready creates a session with an uploaded resume, its first question served.
func (e *env) ready(user string) interview.Session {
	e.t.Helper()
	s := e.session(user)
	if _, err := e.svc.Upload(context.Background(), user, s.ID, "resume.txt", []byte(resumeText), ""); err != nil {
		e.t.Fatalf("upload: %v", err)
	}
	if _, err := e.svc.CurrentQuestion(context.Background(), user, s.ID); err != nil {
		e.t.Fatal(err)
	}
	return e.load(user, s.ID)
}

// load reads a session back from the store.
func (e *env) load(user, id string) interview.Session {
	e.t.Helper()
	s, err := e.store.Store.Session(context.Background(), user, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// turn reads the turn of a request back from the store.
func (e *env) turn(sessionID, requestID string) interview.Turn {
	e.t.Helper()
	t, err := e.store.Store.TurnByRequest(context.Background(), sessionID, requestID)
	if err != nil {
		e.t.Fatalf("turn %s: %v", requestID, err)
	}
	return t
}

// setSession changes columns of a session row directly, as another
// instance (or a crash) would have left it.
func (e *env) setSession(id string, cols map[string]any) {
	e.t.Helper()
	if err := e.gdb.Table("interview_sessions").Where("id = ?", id).Updates(cols).Error; err != nil {
		e.t.Fatal(err)
	}
}

func answer(no, text, requestID string) interview.AnswerInput {
	return interview.AnswerInput{QuestionNumber: no, AnswerContent: text, RequestID: requestID}
}

// wantKind fails unless err is an *apperr.Error of kind (and code, if set).
func wantKind(t *testing.T, err error, kind apperr.Kind, code string) *apperr.Error {
	t.Helper()
	e := apperr.As(err)
	if e == nil || e.Kind != kind || (code != "" && e.Code != code) {
		t.Fatalf("err = %v (%#v), want kind %v code %q", err, e, kind, code)
	}
	return e
}

// each runs f on SQLite and, when it is up, MariaDB.
func each(t *testing.T, f func(t *testing.T, gdb *gorm.DB)) {
	t.Helper()
	dbtest.Each(t, f)
}
