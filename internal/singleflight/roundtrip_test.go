package singleflight

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// roundTrips counts the round trips a client makes: one per command or
// pipeline, by name (EVALSHA by script).
type roundTrips struct {
	mu sync.Mutex // protects n
	n  map[string]int
}

var _ redis.Hook = (*roundTrips)(nil)

func (rt *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (rt *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		rt.add(cmdName(cmd))
		return next(ctx, cmd)
	}
}

func (rt *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var names []string
		for _, c := range cmds {
			names = append(names, cmdName(c))
		}
		rt.add("pipeline(" + strings.Join(names, "+") + ")")
		return next(ctx, cmds)
	}
}

var scriptNames = map[string]string{
	acquireScript.Hash():   "acquire",
	heartbeatScript.Hash(): "heartbeat",
	completeScript.Hash():  "complete",
}

func cmdName(cmd redis.Cmder) string {
	name := cmd.Name()
	if name == "evalsha" && len(cmd.Args()) > 1 {
		if s, ok := scriptNames[fmt.Sprint(cmd.Args()[1])]; ok {
			return s
		}
	}
	return name
}

func (rt *roundTrips) add(name string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.n[name]++
}

// take returns the counts so far and their total, and resets them.
func (rt *roundTrips) take() (string, int) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var parts []string
	total := 0
	for k, v := range rt.n {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		total += v
	}
	sort.Strings(parts)
	rt.n = map[string]int{}
	return strings.Join(parts, " "), total
}

// countedClient returns a client of the test Redis whose round trips are counted.
func countedClient(tb testing.TB) (*redis.Client, *roundTrips) {
	tb.Helper()
	testenv.Redis(tb) // skips (or fails under CI) when Redis is missing
	c := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr()})
	tb.Cleanup(func() { _ = c.Close() })
	rt := &roundTrips{n: map[string]int{}}
	c.AddHook(rt)
	return c, rt
}

// TestRoundTrips counts the Redis round trips of each path against the
// design's goals (the original's counts in parentheses).
func TestRoundTrips(t *testing.T) {
	_, prefix := testenv.Redis(t)
	ctx := context.Background()
	newGroup := func(id string, l1 bool) (*Group, *roundTrips) {
		c, rt := countedClient(t)
		cfg := testConfig(prefix)
		cfg.InstanceID = id
		cfg.Default.L1Enabled, cfg.Default.L1TTL = l1, time.Minute
		g := MustNew(t, cfg, c)
		// Load the scripts (EVALSHA NOSCRIPT + EVAL once per server).
		_, _ = g.Do(ctx, testStage, "warm-up|"+id, func(context.Context) ([]byte, error) { return []byte("w"), nil })
		rt.take()
		return g, rt
	}
	owner, ownerRT := newGroup("owner", true)
	replayer, replayRT := newGroup("replayer", false)
	follower, followerRT := newGroup("follower", false)

	report := func(path, original string, rt *roundTrips, check func(total int) bool, want string) {
		t.Helper()
		detail, total := rt.take()
		t.Logf("%-26s original: %-62s ours: %d (%s)", path, original, total, detail)
		if !check(total) {
			t.Errorf("%s: %d round trips (%s), want %s", path, total, detail, want)
		}
	}

	if _, err := owner.Do(ctx, testStage, "rt-1", func(context.Context) ([]byte, error) { return []byte("v"), nil }); err != nil {
		t.Fatal(err)
	}
	report("owner success", "acquire, markRunning, storeResult, finishSuccess, publish: 5", ownerRT,
		func(n int) bool { return n == 2 }, "2")

	if r, _ := replayer.Do(ctx, testStage, "rt-1", nil); r.Outcome != ReplayRedis {
		t.Fatalf("outcome %s, want replay_redis", r.Outcome)
	}
	report("replay from Redis", "acquire, getMeta, getStoredResult: 3", replayRT, func(n int) bool { return n == 1 }, "1")

	if r, _ := owner.Do(ctx, testStage, "rt-1", nil); r.Outcome != ReplayL1 {
		t.Fatalf("outcome %s, want replay_l1", r.Outcome)
	}
	report("replay from L1", "0", ownerRT, func(n int) bool { return n == 0 }, "0")

	// Follower: the owner holds the flight until the follower waits.
	p := newProbe(follower)
	release, running := make(chan struct{}), make(chan struct{})
	done := goDo(ctx, owner, "rt-2", started(running, func(context.Context) ([]byte, error) {
		<-release
		return []byte("v2"), nil
	}))
	waitClosed(t, running, "the owner")
	ownerRT.take()
	fres := goDo(ctx, follower, "rt-2", nil)
	p.waitFollowers(t, 1)
	close(release)
	if r := recv(t, fres); r.res.Outcome != Follower || string(r.res.Value) != "v2" {
		t.Fatalf("follower: %s %q %v", r.res.Outcome, r.res.Value, r.err)
	}
	recv(t, done)
	report("follower", "acquire, blocking reads/polls, getStoredResult: 3+", followerRT,
		func(n int) bool { return n == 2 }, "2 (acquire + the shared XREAD that carries the result)")
	ownerRT.take()

	// Owner with heartbeats: a call of 3.5 heartbeat intervals.
	hb := owner.cfg.Default.Heartbeat
	if _, err := owner.Do(ctx, testStage, "rt-3", func(context.Context) ([]byte, error) {
		time.Sleep(3*hb + hb/2) // the duration is the point
		return []byte("v3"), nil
	}); err != nil {
		t.Fatal(err)
	}
	detail, total := ownerRT.take()
	beats := strings.Count(detail, "heartbeat=") // parse heartbeat=N
	var n int
	if beats > 0 {
		_, _ = fmt.Sscanf(detail[strings.Index(detail, "heartbeat=")+len("heartbeat="):], "%d", &n)
	}
	t.Logf("%-26s original: %-62s ours: %d (%s)", "owner success, 3.5 beats", "5 + heartbeats", total, detail)
	if total != 2+n || n < 2 || n > 4 {
		t.Errorf("owner with heartbeats: %d round trips (%s), want 2 + heartbeats (3)", total, detail)
	}
}

// On Redis Cluster a follower reads its stream once on registration and once
// when the doorbell rings.
func TestRoundTripsClusterFollower(t *testing.T) {
	clients, prefix := backends[1].clients(t, 2)
	rt := &roundTrips{n: map[string]int{}}
	clients[1].AddHook(rt)
	ctx := context.Background()
	var gs []*Group
	for i, c := range clients {
		cfg := testConfig(prefix)
		cfg.InstanceID = "rt" + strconv.Itoa(i)
		g := MustNew(t, cfg, c)
		gs = append(gs, g)
	}
	p := newProbe(gs[1])
	// Warm up: load the scripts and subscribe the doorbell.
	for i := range 2 {
		release, running := make(chan struct{}), make(chan struct{})
		key := "rt-warm|" + strconv.Itoa(i)
		done := goDo(ctx, gs[0], key, started(running, func(context.Context) ([]byte, error) { <-release; return []byte("w"), nil }))
		waitClosed(t, running, "the owner")
		if i == 1 {
			p.drain()
			rt.take()
		}
		f := goDo(ctx, gs[1], key, nil)
		p.waitFollowers(t, 1)
		close(release)
		recv(t, done)
		if r := recv(t, f); r.res.Outcome != Follower {
			t.Fatalf("warm-up follower: %s %v", r.res.Outcome, r.err)
		}
	}
	detail, total := rt.take()
	t.Logf("cluster follower: %d round trips (%s)", total, detail)
	if total != 3 {
		t.Errorf("cluster follower: %d round trips (%s), want 3: acquire, registration read, doorbell read", total, detail)
	}
}
