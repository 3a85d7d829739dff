package singleflight

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// throwawayRedis is a redis-server of the test's own, which the test may
// stop and restart (the shared server on 6379 is never stopped).
type throwawayRedis struct {
	tb   testing.TB
	port int
	cmd  *exec.Cmd
}

func startThrowawayRedis(tb testing.TB) *throwawayRedis {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis-server is required under CI=true: %v", err)
		}
		tb.Skipf("redis-server not installed (%v); run `make test`", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	r := &throwawayRedis{tb: tb, port: port}
	r.start()
	tb.Cleanup(r.stop)
	return r
}

func (r *throwawayRedis) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

func (r *throwawayRedis) start() {
	r.tb.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		r.tb.Fatalf("start redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: r.addr(), MaxRetries: -1})
	defer c.Close()
	for range 100 {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.tb.Fatalf("redis-server on %s did not start", r.addr())
}

func (r *throwawayRedis) stop() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

func TestHybridRedisOutage(t *testing.T) {
	srv := startThrowawayRedis(t)
	newGroup := func(id string) *Group {
		rdb := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1})
		t.Cleanup(func() { _ = rdb.Close() })
		cfg := testConfig("hybrid:")
		cfg.Mode = ModeHybrid
		cfg.InstanceID = id
		cfg.RedisTimeout = 200 * time.Millisecond
		cfg.RedisBackoff = 300 * time.Millisecond
		return MustNew(t, cfg, rdb)
	}
	g1, g2 := newGroup("one"), newGroup("two")
	p := newProbe(g1, g2)
	ctx := context.Background()

	// oneCallAcrossGroups checks distributed dedup: g1 owns, g2 follows.
	oneCallAcrossGroups := func(t *testing.T, key string) {
		t.Helper()
		var c counter
		release, running := make(chan struct{}), make(chan struct{})
		owner := goDo(ctx, g1, key, started(running, c.fn(release, "v-"+key, nil)))
		waitClosed(t, running, "the owner")
		follower := goDo(ctx, g2, key, c.fn(nil, "duplicate", nil))
		p.waitFollowers(t, 1)
		close(release)
		ro, rf := recv(t, owner), recv(t, follower)
		if ro.err != nil || rf.err != nil || string(rf.res.Value) != "v-"+key || rf.res.Outcome != Follower || c.get() != 1 {
			t.Fatalf("owner %s %v, follower %q %s %v, calls %d; want one call, followed",
				ro.res.Outcome, ro.err, rf.res.Value, rf.res.Outcome, rf.err, c.get())
		}
	}

	t.Run("redis up: distributed dedup", func(t *testing.T) { oneCallAcrossGroups(t, "before") })

	t.Run("redis slow: counts as failed", func(t *testing.T) {
		admin := redis.NewClient(&redis.Options{Addr: srv.addr()})
		defer admin.Close()
		// Every client waits 800 ms: slower than RedisTimeout (200 ms).
		if err := admin.Do(ctx, "CLIENT", "PAUSE", 800, "ALL").Err(); err != nil {
			t.Fatal(err)
		}
		var c counter
		start := time.Now()
		r, err := g1.Do(ctx, testStage, "slow", c.fn(nil, "v", nil))
		took := time.Since(start)
		if err != nil || r.Outcome != LocalFallback || c.get() != 1 {
			t.Errorf("got %s, %v, calls %d; want local_fallback, 1 call", r.Outcome, err, c.get())
		}
		if took > 600*time.Millisecond {
			t.Errorf("took %v: the slow Redis was waited for", took)
		}
		time.Sleep(time.Second) // let the pause and the backoff end: the durations are the point
	})

	srv.stop()

	t.Run("redis down: in-process dedup, one call", func(t *testing.T) {
		p.drain()
		var c counter
		release := make(chan struct{})
		const n = 20
		var results []<-chan doResult
		for range n {
			results = append(results, goDo(ctx, g1, "down", c.fn(release, "local", nil)))
		}
		p.waitJoins(t, n)
		close(release)
		fallbacks := 0
		for _, ch := range results {
			r := recv(t, ch)
			if r.err != nil || string(r.res.Value) != "local" {
				t.Fatalf("got %q, %v; want local, nil", r.res.Value, r.err)
			}
			if r.res.Outcome == LocalFallback {
				fallbacks++
			}
		}
		if fallbacks != 1 {
			t.Errorf("local_fallback outcomes = %d, want 1 (the others share it)", fallbacks)
		}
		if got := c.get(); got != 1 {
			t.Errorf("fn calls = %d, want 1", got)
		}
	})

	t.Run("redis down: a model failure is not re-run", func(t *testing.T) {
		var c counter
		fail := &classified{code: "B000417", msg: "model returned garbage"}
		_, err := g1.Do(ctx, testStage, "down-fail", c.fn(nil, "", fail))
		if !errors.Is(err, fail) || c.get() != 1 {
			t.Errorf("err = %v, calls = %d; want the model error, 1 call", err, c.get())
		}
	})

	t.Run("redis dies during the call: result kept, no second call", func(t *testing.T) {
		srv.start()
		time.Sleep(400 * time.Millisecond) // let the backoff of the previous subtests pass
		var c counter
		release, running := make(chan struct{}), make(chan struct{})
		owner := goDo(ctx, g1, "dies", started(running, c.fn(release, "paid for", nil)))
		waitClosed(t, running, "the owner")
		srv.stop()
		close(release)
		r := recv(t, owner)
		if r.err != nil || string(r.res.Value) != "paid for" || r.res.Outcome != OwnerNew || c.get() != 1 {
			t.Errorf("got %q, %s, %v, calls %d; want the result, 1 call", r.res.Value, r.res.Outcome, r.err, c.get())
		}
	})

	t.Run("redis back: distributed dedup resumes", func(t *testing.T) {
		srv.start()
		time.Sleep(400 * time.Millisecond) // RedisBackoff (300 ms) is the point
		oneCallAcrossGroups(t, "after")
	})
}

func TestDistributedRedisDownIsAnError(t *testing.T) {
	srv := startThrowawayRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	cfg := testConfig("dist:")
	cfg.RedisTimeout = 200 * time.Millisecond
	g := MustNew(t, cfg, rdb)
	srv.stop()
	var c counter
	_, err := g.Do(context.Background(), testStage, "k", c.fn(nil, "v", nil))
	if !errors.Is(err, ErrRedisUnavailable) || c.get() != 0 {
		t.Fatalf("err = %v, calls = %d; want ErrRedisUnavailable, no call", err, c.get())
	}
	t.Logf("distributed mode, Redis down: %v", err)
}
