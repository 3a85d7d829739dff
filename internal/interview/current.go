package interview

import (
	"context"
	"log/slog"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// currentTTL bounds how long a copy of a current question is used: it is
// only the bound of a failure (a change whose message was lost while the
// subscription still looked up); otherwise a change ends it at once.
const currentTTL = 3 * time.Second

// currentCacheSize bounds the copies kept (a few hundred bytes each).
const currentCacheSize = 4096

// SessionChanges lets every instance answer current questions from memory
// while their sessions are unchanged: every change of a session (its
// state, questions or answers) is published on a Redis channel to which
// every instance is subscribed, and drops the copies of that session
// (redisx.Invalidations says what that guarantees, and what it does not).
// A current question then costs no query and no round trip, as an
// authenticated request does (issue 21).
type SessionChanges struct {
	copies *currentCache
	inv    *redisx.Invalidations
	batch  *redisBatch // the messages of concurrent changes, sent together
}

// NewSessionChanges subscribes to the sessions' changes on rdb (under
// prefix) and returns them. Each message gets timeout; failures open
// breaker (nil: a breaker of its own). Close stops the subscription.
func NewSessionChanges(rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) *SessionChanges {
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	copies := newCurrentCache(currentCacheSize)
	return &SessionChanges{copies: copies, inv: redisx.NewInvalidations(rdb, prefix+"interview:changed", copies),
		batch: &redisBatch{rdb: rdb, guard: func(ctx context.Context, send func(ctx context.Context) error) error {
			return breaker.Do(ctx, timeout, nil, send)
		}}}
}

// Close stops the subscription: no copy is used afterwards.
func (c *SessionChanges) Close() error { return c.inv.Close() }

// Live reports whether copies are being made and used.
func (c *SessionChanges) Live() bool { return c.inv.Live() }

// changed tells every instance that the sessions changed. It tries even
// while the breaker is open: a change must not leave copies in place.
func (c *SessionChanges) changed(ctx context.Context, sessionIDs ...string) error {
	return c.inv.PublishVia(ctx, c.batch.do, sessionIDs...)
}

// currentCache keeps this instance's copies of current questions.
type currentCache struct {
	lru *lru.Cache[string, currentEntry] // by session id
}

type currentEntry struct {
	userID  string // the session's owner: another user gets no copy
	state   uint64 // the invalidations' state when it was loaded
	resp    AnswerResp
	body    []byte // resp encoded
	expires time.Time
}

func newCurrentCache(size int) *currentCache {
	c, _ := lru.New[string, currentEntry](size) // size > 0: no error
	return &currentCache{lru: c}
}

// Remove implements redisx.Copies.
func (c *currentCache) Remove(sessionIDs ...string) {
	for _, id := range sessionIDs {
		c.lru.Remove(id)
	}
}

// Purge implements redisx.Copies.
func (c *currentCache) Purge() { c.lru.Purge() }

// get returns the copy of userID's session while it may be used at now.
func (c *SessionChanges) get(userID, sessionID string, now time.Time) (currentEntry, bool) {
	e, ok := c.copies.lru.Get(sessionID)
	if !ok || e.userID != userID || !c.inv.Valid(e.state) || !now.Before(e.expires) {
		return currentEntry{}, false
	}
	return e, true
}

// keep copies the current question of userID's session, loaded by a read
// begun at st, unless the session changed since.
func (c *SessionChanges) keep(st redisx.Stamp, userID, sessionID string, resp AnswerResp, body []byte, now time.Time) {
	c.inv.Keep(st, sessionID, func() {
		c.copies.lru.Add(sessionID, currentEntry{userID: userID, state: st.State(), resp: resp, body: body,
			expires: now.Add(currentTTL)})
	})
}

// changingStore is the Store of a service with SessionChanges: every call
// that may change a session publishes the change once it returns, whatever
// it returned (a failed call may still have committed), before the service
// answers the request that made the change. So once an answer, an upload
// or a finish has been answered, the other instances have been sent the
// message that drops their copies.
type changingStore struct {
	Store
	changes *SessionChanges
	log     *slog.Logger
}

// changed publishes the change of sessionIDs; a failure is logged (copies
// elsewhere then live until currentTTL, unless their subscription is lost
// too).
func (st *changingStore) changed(ctx context.Context, sessionIDs ...string) {
	if err := st.changes.changed(context.WithoutCancel(ctx), sessionIDs...); err != nil {
		st.log.LogAttrs(ctx, slog.LevelWarn, "interview: session change not published; other instances may show its "+
			"current question as it was for up to "+currentTTL.String(), slog.Any("sessions", sessionIDs), slog.Any("err", err))
	}
}

func (st *changingStore) CreateSession(ctx context.Context, s Session) ([]string, error) {
	abandoned, err := st.Store.CreateSession(ctx, s)
	st.changed(ctx, append(abandoned, s.ID)...)
	return abandoned, err
}

func (st *changingStore) ClaimUpload(ctx context.Context, s Session, hash string, now, staleBefore time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.ClaimUpload(ctx, s, hash, now, staleBefore)
}

func (st *changingStore) FailUpload(ctx context.Context, id, hash string, now time.Time) error {
	defer st.changed(ctx, id)
	return st.Store.FailUpload(ctx, id, hash, now)
}

func (st *changingStore) CompleteUpload(ctx context.Context, s Session, f File, qs []Question) ([]File, bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.CompleteUpload(ctx, s, f, qs)
}

func (st *changingStore) StartInterview(ctx context.Context, id string, now time.Time) error {
	defer st.changed(ctx, id)
	return st.Store.StartInterview(ctx, id, now)
}

func (st *changingStore) ClaimAnswer(ctx context.Context, s Session, t Turn, retryOf string, now, staleBefore time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.ClaimAnswer(ctx, s, t, retryOf, now, staleBefore)
}

func (st *changingStore) CompleteAnswer(ctx context.Context, sessionID string, version int64, t Turn, flow, next string,
	followUp *Question, traces []TraceEntry) (bool, error) {
	defer st.changed(ctx, sessionID)
	return st.Store.CompleteAnswer(ctx, sessionID, version, t, flow, next, followUp, traces)
}

func (st *changingStore) FailAnswer(ctx context.Context, sessionID string, version int64, t Turn) error {
	defer st.changed(ctx, sessionID)
	return st.Store.FailAnswer(ctx, sessionID, version, t)
}

func (st *changingStore) FinishSession(ctx context.Context, s Session, rep Report, now time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.FinishSession(ctx, s, rep, now)
}
