package interview

import (
	"context"
	"errors"
	"log/slog"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// Versions gives every session a version shared by all instances, changed
// after every change of the session (its state, questions or answers):
// an instance may answer the current question from memory while the
// session's version is the one it read before loading it.
type Versions interface {
	// Version returns the session's current version (made when it has
	// none). An error means: do not trust any copy.
	Version(ctx context.Context, sessionID string) (string, error)
	// Bump gives the sessions new versions, after they changed.
	Bump(ctx context.Context, sessionIDs ...string) error
}

// currentTTL bounds how long a copy of a current question is used: it is
// only the bound of a failure (a change whose Bump Redis did not take
// while it still answered reads); otherwise a change ends it at once.
const currentTTL = 3 * time.Second

// currentCacheSize bounds the copies kept (a few hundred bytes each).
const currentCacheSize = 4096

// currentCache keeps this instance's copies of current questions, each
// with the session version read before it was loaded.
type currentCache struct {
	lru *lru.Cache[string, currentEntry] // by session id
}

type currentEntry struct {
	userID  string // the session's owner: another user gets no copy
	version string
	resp    AnswerResp
	body    []byte // resp encoded
	expires time.Time
}

func newCurrentCache(size int) *currentCache {
	c, _ := lru.New[string, currentEntry](size) // size > 0: no error
	return &currentCache{lru: c}
}

// get returns the copy of userID's session when it was loaded at version
// and is still fresh at now.
func (c *currentCache) get(userID, sessionID, version string, now time.Time) (currentEntry, bool) {
	e, ok := c.lru.Get(sessionID)
	if !ok || e.userID != userID || e.version != version || !now.Before(e.expires) {
		return currentEntry{}, false
	}
	return e, true
}

func (c *currentCache) put(userID, sessionID, version string, resp AnswerResp, body []byte, now time.Time) {
	c.lru.Add(sessionID, currentEntry{userID: userID, version: version, resp: resp, body: body, expires: now.Add(currentTTL)})
}

// forget drops the copies of the sessions.
func (c *currentCache) forget(sessionIDs ...string) {
	for _, id := range sessionIDs {
		c.lru.Remove(id)
	}
}

// versionedStore is the Store of a service with Versions: every call that
// may change a session gives it a new version once it returns, whatever it
// returned (a failed call may still have committed), before the service
// answers the request that made the change. So after an answer, an upload
// or a finish has been answered, no instance uses a copy made before it.
type versionedStore struct {
	Store
	versions Versions
	local    *currentCache // this instance's copies, dropped at once
	log      *slog.Logger
}

// changed bumps the versions of sessionIDs; a failure is logged (copies
// elsewhere then live until currentTTL) and this instance's copies go.
func (st *versionedStore) changed(ctx context.Context, sessionIDs ...string) {
	st.local.forget(sessionIDs...)
	if err := st.versions.Bump(context.WithoutCancel(ctx), sessionIDs...); err != nil {
		st.log.LogAttrs(ctx, slog.LevelWarn, "interview: session version not changed in Redis; other instances may show its "+
			"current question as it was for up to "+currentTTL.String(), slog.Any("sessions", sessionIDs), slog.Any("err", err))
	}
}

func (st *versionedStore) CreateSession(ctx context.Context, s Session) ([]string, error) {
	abandoned, err := st.Store.CreateSession(ctx, s)
	st.changed(ctx, append(abandoned, s.ID)...)
	return abandoned, err
}

func (st *versionedStore) ClaimUpload(ctx context.Context, s Session, hash string, now, staleBefore time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.ClaimUpload(ctx, s, hash, now, staleBefore)
}

func (st *versionedStore) FailUpload(ctx context.Context, id, hash string, now time.Time) error {
	defer st.changed(ctx, id)
	return st.Store.FailUpload(ctx, id, hash, now)
}

func (st *versionedStore) CompleteUpload(ctx context.Context, s Session, f File, qs []Question) ([]File, bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.CompleteUpload(ctx, s, f, qs)
}

func (st *versionedStore) StartInterview(ctx context.Context, id string, now time.Time) error {
	defer st.changed(ctx, id)
	return st.Store.StartInterview(ctx, id, now)
}

func (st *versionedStore) ClaimAnswer(ctx context.Context, s Session, t Turn, retryOf string, now, staleBefore time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.ClaimAnswer(ctx, s, t, retryOf, now, staleBefore)
}

func (st *versionedStore) CompleteAnswer(ctx context.Context, sessionID string, version int64, t Turn, flow, next string,
	followUp *Question, traces []TraceEntry) (bool, error) {
	defer st.changed(ctx, sessionID)
	return st.Store.CompleteAnswer(ctx, sessionID, version, t, flow, next, followUp, traces)
}

func (st *versionedStore) FailAnswer(ctx context.Context, sessionID string, version int64, t Turn) error {
	defer st.changed(ctx, sessionID)
	return st.Store.FailAnswer(ctx, sessionID, version, t)
}

func (st *versionedStore) FinishSession(ctx context.Context, s Session, rep Report, now time.Time) (bool, error) {
	defer st.changed(ctx, s.ID)
	return st.Store.FinishSession(ctx, s, rep, now)
}

// currentFromMemory returns this instance's copy of the current question of
// userID's session when the session's version is still the one the copy
// was loaded at; version is the version read ("" when none could be: then
// nothing may be cached either).
func (s *Service) currentFromMemory(ctx context.Context, userID, sessionID string) (e currentEntry, version string, ok bool) {
	if s.versions == nil {
		return currentEntry{}, "", false
	}
	v, err := s.versions.Version(ctx, sessionID)
	if err != nil {
		return currentEntry{}, "", false
	}
	e, ok = s.current.get(userID, sessionID, v, s.now())
	return e, v, ok
}

// RedisVersions keeps session versions in Redis, shared by every instance:
// a version is a fresh unique id (ids.New), replaced at every change (not
// a counter, which a Redis that lost its data would count again from zero).
type RedisVersions struct {
	rdb     redis.UniversalClient
	prefix  string
	breaker *redisx.Breaker
	timeout time.Duration
	batch   *redisBatch // commands batched while one is on its way
}

// versionTTL is how long an unchanged session keeps its version in Redis;
// then the next read makes a new one (and copies made before are unused).
const versionTTL = 24 * time.Hour

// NewRedisVersions returns session versions on rdb under prefix. Each
// command gets timeout; failures open breaker (nil: a breaker of its own),
// and while it is open Version fails at once (no copy is used).
func NewRedisVersions(rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) *RedisVersions {
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	r := &RedisVersions{rdb: rdb, prefix: prefix + "interview:version:", breaker: breaker, timeout: timeout}
	r.batch = &redisBatch{rdb: rdb, guard: r.do}
	return r
}

var _ Versions = (*RedisVersions)(nil)

func (r *RedisVersions) do(ctx context.Context, cmd func(ctx context.Context) error) error {
	return r.breaker.Do(ctx, r.timeout, redis.Nil, cmd)
}

var errVersionsSkipped = errors.New("redis is down: session versions skipped")

// Version implements Versions.
func (r *RedisVersions) Version(ctx context.Context, sessionID string) (string, error) {
	if !r.breaker.Allow() {
		return "", errVersionsSkipped
	}
	key := r.prefix + sessionID
	get := redis.NewStringCmd(ctx, "get", key)
	err := r.batch.do(ctx, get)
	v := get.Val()
	if !errors.Is(err, redis.Nil) {
		return v, err
	}
	// None yet (or expired, or lost): make one, unless another instance
	// just did.
	v = ids.New()
	err = r.do(ctx, func(ctx context.Context) error {
		set, err := r.rdb.SetNX(ctx, key, v, versionTTL).Result()
		if err == nil && !set {
			v, err = r.rdb.Get(ctx, key).Result()
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return v, nil
}

// Bump implements Versions. It tries even while the breaker is open: a
// change must not leave the old version in place.
func (r *RedisVersions) Bump(ctx context.Context, sessionIDs ...string) error {
	var errs []error
	for _, id := range sessionIDs {
		errs = append(errs, r.batch.do(ctx, redis.NewStatusCmd(ctx, "set", r.prefix+id, ids.New(), "px", versionTTL.Milliseconds())))
	}
	return errors.Join(errs...)
}
