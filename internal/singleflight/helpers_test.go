package singleflight

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

const testStage = "test-stage"

// testConfig has leases small enough for tests: lease 600 ms, heartbeat
// 100 ms, takeover after 400 ms. Polling is slow (2 s) so that followers are
// woken by the stream unless a test shortens it.
func testConfig(prefix string) Config {
	cfg := DefaultConfig()
	cfg.Mode = ModeDistributed
	cfg.KeyPrefix = prefix
	cfg.FollowerMaxWait = 10 * time.Second
	cfg.StreamBlock = 3 * time.Second
	cfg.PollFallback = 2 * time.Second
	cfg.RedisTimeout = 2 * time.Second
	cfg.RedisBackoff = 300 * time.Millisecond
	cfg.Default = Policy{
		ResultTTL: time.Minute, FailedTTL: time.Minute,
		RunningLease: 600 * time.Millisecond, Heartbeat: 100 * time.Millisecond, TakeoverDetect: 400 * time.Millisecond,
		CompressOver: 64,
	}
	cfg.Stages = nil
	return cfg
}

// MustNew returns a Group closed when the test ends.
func MustNew(tb testing.TB, cfg Config, rdb redis.UniversalClient) *Group {
	tb.Helper()
	g, err := New(cfg, rdb, nil)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// backend is a Redis deployment the protocol tests run against.
type backend struct {
	name string
	// clients returns n clients of the same deployment and one key prefix.
	clients func(tb testing.TB, n int) ([]redis.UniversalClient, string)
}

var backends = []backend{
	{"single", func(tb testing.TB, n int) ([]redis.UniversalClient, string) {
		var cs []redis.UniversalClient
		var prefix string
		for i := range n {
			c, p := testenv.Redis(tb)
			if i == 0 {
				prefix = p
			}
			cs = append(cs, c)
		}
		return cs, prefix
	}},
	{"cluster", func(tb testing.TB, n int) ([]redis.UniversalClient, string) {
		var cs []redis.UniversalClient
		var prefix string
		for i := range n {
			c, p := testenv.RedisCluster(tb)
			if i == 0 {
				prefix = p
			}
			cs = append(cs, c)
		}
		return cs, prefix
	}},
}

// forEachBackend runs test against a single Redis and the Redis Cluster.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// probe records the test hooks of a Group on channels.
type probe struct {
	joins     chan bool   // leader?
	followers chan string // key
}

func newProbe(gs ...*Group) *probe {
	p := &probe{joins: make(chan bool, 1000), followers: make(chan string, 1000)}
	for _, g := range gs {
		g.testHookJoin = func(_ string, leader bool) { p.joins <- leader }
		g.testHookFollower = func(key string) { p.followers <- key }
	}
	return p
}

// drain forgets the events seen so far.
func (p *probe) drain() {
	for {
		select {
		case <-p.joins:
		case <-p.followers:
		default:
			return
		}
	}
}

// waitJoins waits for n create-or-join events.
func (p *probe) waitJoins(tb testing.TB, n int) {
	tb.Helper()
	for i := range n {
		select {
		case <-p.joins:
		case <-time.After(10 * time.Second):
			tb.Fatalf("only %d of %d callers joined", i, n)
		}
	}
}

// waitFollowers waits for n Redis followers to start waiting.
func (p *probe) waitFollowers(tb testing.TB, n int) {
	tb.Helper()
	for i := range n {
		select {
		case <-p.followers:
		case <-time.After(10 * time.Second):
			tb.Fatalf("only %d of %d followers waiting", i, n)
		}
	}
}

// counter counts fn calls.
type counter struct{ n atomic.Int32 }

// fn returns a flight function that counts its calls, waits for release
// (when not nil) and returns v, err.
func (c *counter) fn(release <-chan struct{}, v string, err error) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		c.n.Add(1)
		if release != nil {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err != nil {
			return nil, err
		}
		return []byte(v), nil
	}
}

// started wraps fn to close ch when fn starts (the owner holds the flight).
func started(ch chan struct{}, fn func(context.Context) ([]byte, error)) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		close(ch)
		return fn(ctx)
	}
}

// waitClosed waits for ch to be closed.
func waitClosed(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

func (c *counter) get() int { return int(c.n.Load()) }

type doResult struct {
	res Result
	err error
}

// goDo runs g.Do in a goroutine and returns the channel of its result.
func goDo(ctx context.Context, g *Group, key string, fn func(context.Context) ([]byte, error)) <-chan doResult {
	ch := make(chan doResult, 1)
	go func() {
		res, err := g.Do(ctx, testStage, key, fn)
		ch <- doResult{res, err}
	}()
	return ch
}

// recv waits for one result.
func recv(tb testing.TB, ch <-chan doResult) doResult {
	tb.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(15 * time.Second):
		tb.Fatal("Do did not return")
		return doResult{}
	}
}

// classified is a test error carrying the two classifications
// DefaultErrorCodec reads: an envelope code and retryability.
type classified struct {
	code, msg string
	retry     bool
}

func (e *classified) Error() string     { return e.msg }
func (e *classified) ErrorCode() string { return e.code }
func (e *classified) IsRetryable() bool { return e.retry }
