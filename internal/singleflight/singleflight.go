// Package singleflight makes one real model call per business request across
// a cluster: concurrent and repeated calls of the same flight key share one
// execution and replay its result.
//
// It has two layers. In-process, concurrent callers of a key share one
// execution (its first caller leads, the others wait), as in
// golang.org/x/sync/singleflight. Across instances, the leader coordinates
// through Redis: every state change of a flight is one Lua script (acquire,
// heartbeat, complete), liveness uses Redis server time, every owner write is
// a compare-and-set on (owner id, fencing token), followers are woken by a
// per-flight Redis Stream read by one shared reader per process (on Redis
// Cluster, rung by a pub/sub doorbell), and results are replayed for the
// stage's result TTL (from an in-process L1 cache first). All keys of a
// flight share one hash tag, so it runs on Redis Cluster.
//
// Modes: local (in-process only), distributed (Redis required) and hybrid
// (the default: in-process dedup alone while Redis fails). See
// docs/singleflight.md for the protocol, the key layout and measurements.
//
// The package never logs; it returns errors and exposes Prometheus metrics.
// Besides its client libraries it imports only two standard-library-only
// helpers it shares with other packages: internal/redisx (the Redis
// backoff, with the rate limiter) and internal/lease (the heartbeat, with
// the TTS worker).
package singleflight

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// Outcome says how a Do call got its result. The values are the metric labels.
type Outcome string

// The outcomes.
const (
	// OwnerNew: this call's flight ran fn as the first owner.
	OwnerNew Outcome = "owner_new"
	// Takeover: this call's flight ran fn after taking over from a dead
	// owner, a retryable failure or a corrupt stored result.
	Takeover Outcome = "takeover"
	// Follower: another instance's owner ran fn; the result was waited for.
	Follower Outcome = "follower"
	// ReplayL1: replayed from the in-process cache, no Redis access.
	ReplayL1 Outcome = "replay_l1"
	// ReplayRedis: a stored success was replayed by acquire.
	ReplayRedis Outcome = "replay_redis"
	// ReplayFailure: a stored non-retryable failure was replayed.
	ReplayFailure Outcome = "replay_failure"
	// LocalShared: the call joined a flight already in progress in this
	// process and got its result.
	LocalShared Outcome = "local_shared"
	// LocalFallback: Redis failed (or is in backoff) in hybrid mode; fn ran
	// with in-process deduplication only.
	LocalFallback Outcome = "local_fallback"
	// LostLease is counted in metrics when an owner loses its lease; the
	// call then continues as a follower of the new owner.
	LostLease Outcome = "lost_lease"
)

// Result is what Do returns. Value is shared by every caller of the flight
// and must not be modified.
type Result struct {
	Value   []byte
	Outcome Outcome
}

var (
	// ErrInProgress is returned when FollowerMaxWait ran out while a live
	// owner still runs the flight: a retry later finds its result. The
	// caller decides what that means to its clients (an HTTP 409, a 202).
	ErrInProgress error = retryable("singleflight: the same request is still being processed")
	// ErrRedisUnavailable is wrapped by the errors of distributed mode when
	// Redis fails or is slow; a retry may succeed.
	ErrRedisUnavailable error = retryable("singleflight: coordination store (Redis) unavailable")
	// ErrClosed is returned by Do after Close.
	ErrClosed = errors.New("singleflight: group closed")

	errUnsupportedClient = errors.New("singleflight: Redis client must be *redis.Client or *redis.ClusterClient")
)

// retryable is a sentinel error that a retry may get past. It says so with
// IsRetryable, the method DefaultErrorCodec and the callers' classifiers read.
type retryable string

func (e retryable) Error() string { return string(e) }

// IsRetryable reports true.
func (retryable) IsRetryable() bool { return true }

// Group runs flights. Create it with New; it is safe for concurrent use.
type Group struct {
	cfg Config
	st  store
	rd  *reader // nil in local mode
	l1  *expirable.LRU[string, l1Entry]
	met *metrics

	// ctxTimeouts reports whether the client applies context deadlines to
	// socket I/O; when it does not, RedisTimeout is enforced by a watchdog.
	ctxTimeouts bool
	// redis is the hybrid backoff: after a Redis failure, flights skip Redis
	// for RedisBackoff (in the other modes it never skips).
	redis *redisx.Breaker

	base   context.Context // cancelled by Close
	cancel context.CancelFunc

	mu     sync.Mutex       // protects m and closed
	m      map[string]*call // in-process flights by key
	closed bool             // Close was called: every flight is cancelled

	stages sync.Map // stage name → *stageState, resolved on first use

	// Owner ids are unique per call: ownerPrefix (instance id and 8 random
	// bytes drawn once per Group) and a sequence number, so a flight needs
	// no random bytes of its own.
	ownerPrefix string
	ownerSeq    atomic.Uint64

	// test hooks, set only by tests before use.
	testHookJoin     func(key string, leader bool) // after create-or-join
	testHookFollower func(key string)              // when a Redis follower starts waiting
}

// l1Entry is an L1 value with its stage's expiry.
type l1Entry struct {
	v   []byte
	exp time.Time
}

// call is an in-process flight: its first caller starts it (see lead), the
// other callers wait on done.
type call struct {
	done chan struct{} // closed after res and err are set

	res Result
	err error

	// refs counts the callers still waiting (protected by Group.mu); the
	// flight is cancelled when it drops to zero (every caller has gone).
	refs int

	// The flight's context (callctx.go): base is the Group's, values the
	// first caller's; cmu protects cdone (made on demand), cerr and afters.
	base, values context.Context
	cmu          sync.Mutex
	cdone        chan struct{}
	cerr         error
	afters       []*afterFunc

	// f is the flight this process runs for the key. When the first steps
	// (lead) leave work to wait for, local names the outcome of running fn
	// without Redis, or first holds the reply of the first acquire.
	f     flight
	local Outcome
	first *acquired
}

// New returns a Group. rdb may be nil in local mode; reg may be nil (no
// metrics are registered).
func New(cfg Config, rdb redis.UniversalClient, reg prometheus.Registerer) (*Group, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeHybrid
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.InstanceID == "" {
		host, _ := os.Hostname()
		cfg.InstanceID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	g := &Group{cfg: cfg, m: make(map[string]*call), redis: redisx.NewBreaker(0), ownerPrefix: cfg.InstanceID + ":" + randomHex(8) + ":"}
	if cfg.Mode == ModeHybrid {
		g.redis = cfg.Breaker
		if g.redis == nil {
			g.redis = redisx.NewBreaker(cfg.RedisBackoff)
		}
	}
	if cfg.L1MaxEntries > 0 {
		g.l1 = expirable.NewLRU[string, l1Entry](cfg.L1MaxEntries, nil, cfg.maxL1TTL())
	}
	met, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("singleflight: register metrics: %w", err)
	}
	g.met = met
	if cfg.Mode != ModeLocal {
		switch c := rdb.(type) {
		case *redis.Client:
			g.ctxTimeouts = c.Options().ContextTimeoutEnabled
		case *redis.ClusterClient:
			g.ctxTimeouts = c.Options().ContextTimeoutEnabled
		case nil:
			return nil, fmt.Errorf("singleflight: mode %s needs a Redis client", cfg.Mode)
		default:
			return nil, errUnsupportedClient
		}
		g.st = store{rdb: rdb}
		if _, ok := rdb.(*redis.ClusterClient); ok {
			g.st.bell = doorbell(cfg.KeyPrefix)
		}
		timeout := cfg.RedisTimeout
		if timeout <= 0 {
			timeout = time.Second
		}
		g.rd = newReader(rdb, cfg.KeyPrefix, cfg.InstanceID+":"+randomHex(8), cfg.StreamBlock, min(cfg.PollFallback, time.Second), timeout)
	}
	g.base, g.cancel = context.WithCancel(context.Background())
	return g, nil
}

// Close stops the shared stream reader and cancels the flights in progress
// (their heartbeats stop, fn's context is cancelled). Do returns ErrClosed
// afterwards. Close does not close the Redis client.
func (g *Group) Close() error {
	g.cancel()
	g.mu.Lock()
	g.closed = true
	for _, c := range g.m {
		c.cancel()
	}
	g.mu.Unlock()
	if g.rd != nil {
		g.rd.close(g.cfg.StreamBlock + time.Second)
	}
	return nil
}

// Do returns the result of fn for key, calling fn at most once across the
// cluster while its result (or non-retryable failure) is kept: concurrent
// callers in this process share one execution, other instances follow the
// owner through Redis, and later callers replay.
//
// key is the business flight key and must include the stage
// ("interview-evaluation|sid|3|ab12..."); stage selects the Policy.
//
// fn runs on a context detached from any single caller: it is cancelled only
// when every caller of the flight has gone, the owner lost its lease, or the
// Group closed. A caller leaves early when ctx is done (ctx.Err()) and, if it
// joined a flight already in progress, after FollowerMaxWait (ErrInProgress).
// fn's error is returned to every caller of the flight and stored for
// replay as described by the stage policy's Codec; a panic in fn becomes a *PanicError.
func (g *Group) Do(ctx context.Context, stage, key string, fn func(ctx context.Context) ([]byte, error)) (Result, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return Result{}, ErrClosed
	}
	if c, ok := g.m[key]; ok {
		c.refs++
		g.mu.Unlock()
		if g.testHookJoin != nil {
			g.testHookJoin(key, false)
		}
		res, err := g.wait(ctx, key, c, g.cfg.FollowerMaxWait)
		res.Outcome = LocalShared
		g.stage(stage).outcome(LocalShared)
		return res, err
	}
	// The flight's context keeps the first caller's values but not its
	// cancellation: the leader's caller may leave without failing the others.
	c := &call{done: make(chan struct{}), refs: 1, base: g.base, values: ctx}
	g.m[key] = c
	g.mu.Unlock()
	if g.testHookJoin != nil {
		g.testHookJoin(key, true)
	}
	ss := g.stage(stage)
	if g.lead(ctx, c, ss, key, fn) {
		// Finished on this goroutine (a replay, a failure, or every step
		// because ctx cannot end): nothing to wait for.
		if c.res.Outcome != "" {
			ss.outcome(c.res.Outcome)
		}
		return c.res, c.err
	}
	res, err := g.wait(ctx, key, c, 0)
	if res.Outcome != "" {
		ss.outcome(res.Outcome)
	}
	return res, err
}

// lead starts the flight c for its first caller, whose context is ctx, and
// reports whether c is finished. The steps that never wait long run on the
// caller's goroutine: the L1 lookup and the first Redis acquire, bounded by
// Config.RedisTimeout, which replays a stored result. What may wait long
// (fn, or following another instance's owner) runs on a goroutine of the
// flight, so that the caller may leave, unless ctx can never end: then it
// runs here too, and no goroutine is started at all.
func (g *Group) lead(ctx context.Context, c *call, ss *stageState, key string, fn func(context.Context) ([]byte, error)) (finished bool) {
	handedOff := false
	defer func() {
		if handedOff {
			return
		}
		if r := recover(); r != nil { // a bug of ours: still never hang the waiters
			c.err = &PanicError{Value: r, Stack: debug.Stack()}
		}
		g.finish(key, c)
	}()
	c.f = flight{g: g, ss: ss, key: key, fn: fn}
	if g.start(c, c) {
		return true
	}
	if ctx.Done() != nil {
		handedOff = true
		go g.rest(c)
		return false
	}
	c.res, c.err = g.execute(c, c)
	return true
}

// rest runs what lead left of the flight c on the flight's goroutine.
func (g *Group) rest(c *call) {
	defer func() {
		if r := recover(); r != nil {
			c.err = &PanicError{Value: r, Stack: debug.Stack()}
		}
		g.finish(c.f.key, c)
	}()
	c.res, c.err = g.execute(c, c)
}

// finish publishes c's result to its waiters and removes the flight.
func (g *Group) finish(key string, c *call) {
	c.cancel()
	g.mu.Lock()
	if g.m[key] == c {
		delete(g.m, key)
	}
	g.mu.Unlock()
	close(c.done)
}

// wait waits for c on behalf of one caller, at most maxWait when positive.
func (g *Group) wait(ctx context.Context, key string, c *call, maxWait time.Duration) (Result, error) {
	if maxWait <= 0 { // the leader: a select of two cases is cheaper than of three
		select {
		case <-c.done:
			return c.res, c.err
		case <-ctx.Done():
			g.leave(key, c)
			return Result{}, ctx.Err()
		}
	}
	t := time.NewTimer(maxWait)
	defer t.Stop()
	timeout := t.C
	select {
	case <-c.done:
		return c.res, c.err
	case <-ctx.Done():
		g.leave(key, c)
		return Result{}, ctx.Err()
	case <-timeout:
		g.leave(key, c)
		return Result{}, ErrInProgress
	}
}

// leave drops one caller of c; the last one to go cancels the flight and
// removes it, so that a new caller starts afresh instead of joining a
// cancelled flight.
func (g *Group) leave(key string, c *call) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c.refs--
	if c.refs == 0 {
		c.cancel()
		if g.m[key] == c {
			delete(g.m, key)
		}
	}
}

// start takes the first steps of c that never wait long and reports
// whether they finished it (c.res and c.err are then set): an L1 hit, or a
// first acquire that replays a stored success or failure (or fails, outside
// hybrid mode). Otherwise it leaves in c what execute goes on with.
func (g *Group) start(ctx context.Context, c *call) bool {
	f := &c.f
	if v, ok := g.l1Get(f.pol(), f.key); ok {
		c.res = Result{Value: v, Outcome: ReplayL1}
		return true
	}
	switch {
	case g.cfg.Mode == ModeLocal:
		c.local = OwnerNew
		return false
	case g.cfg.Mode == ModeHybrid && !g.redis.Allow():
		c.local = LocalFallback
		return false
	}
	f.keys = keysFor(g.cfg.KeyPrefix, f.key)
	f.owner = g.ownerPrefix + strconv.FormatUint(g.ownerSeq.Add(1), 36)
	a, err := f.acquire(ctx, "")
	if err != nil {
		c.res, c.err = g.redisFailure(c, Result{}, err)
		return c.local == ""
	}
	switch a.status {
	case statusReplaySuccess:
		v, err := a.payload.decode()
		if err != nil {
			break // corrupt: run takes the flight over
		}
		g.l1Put(f.pol(), f.key, v)
		c.res = Result{Value: v, Outcome: ReplayRedis}
		return true
	case statusReplayFailure:
		c.res, c.err = Result{Outcome: ReplayFailure}, f.pol().codec().Decode(a.failure)
		return true
	}
	c.first = &a
	return false
}

// execute produces the result of the flight c after start: by fn alone
// (local mode, Redis in backoff or failed) or through the Redis protocol,
// from the first acquire's reply.
func (g *Group) execute(ctx context.Context, c *call) (Result, error) {
	f := &c.f
	if c.local != "" {
		return f.local(ctx, c.local)
	}
	res, err := f.run(ctx, c.first)
	if err == nil {
		return res, nil
	}
	if res, err = g.redisFailure(c, res, err); c.local != "" {
		return f.local(ctx, c.local)
	}
	return res, err
}

// redisFailure returns the result of the flight c whose Redis protocol
// ended in err. A Redis failure before any model call in hybrid mode sets
// c.local to run fn with in-process deduplication only (a model failure
// never gets there, so it is never re-run); other Redis failures are
// wrapped with ErrRedisUnavailable, other errors returned as they are.
func (g *Group) redisFailure(c *call, res Result, err error) (Result, error) {
	var re *redisError
	if !errors.As(err, &re) {
		return res, err
	}
	if g.cfg.Mode == ModeHybrid && !c.f.called {
		c.local = LocalFallback
		return Result{}, nil
	}
	return res, fmt.Errorf("singleflight: %s: %w: %w", re.op, ErrRedisUnavailable, re.err)
}

// l1Get returns the L1 value of key when the stage uses L1 and it is fresh.
func (g *Group) l1Get(pol *Policy, key string) ([]byte, bool) {
	if g.l1 == nil || !pol.L1Enabled {
		return nil, false
	}
	e, ok := g.l1.Get(key)
	if !ok || time.Now().After(e.exp) {
		return nil, false
	}
	return e.v, true
}

// l1Put caches v for the stage's L1 TTL.
func (g *Group) l1Put(pol *Policy, key string, v []byte) {
	if g.l1 == nil || !pol.L1Enabled {
		return
	}
	g.l1.Add(key, l1Entry{v: v, exp: time.Now().Add(pol.L1TTL)})
}

// redisFailed counts a Redis failure and starts the hybrid backoff.
func (g *Group) redisFailed(ss *stageState, err error) {
	ss.redisErr()
	g.redis.Fail(err)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
