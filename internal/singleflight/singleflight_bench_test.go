package singleflight

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	xsync "golang.org/x/sync/singleflight"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

var benchValue = []byte(`{"score":87,"comment":"complete answer"}`)

func benchFn(context.Context) ([]byte, error) { return benchValue, nil }

// benchLocalGroup is an in-process Group without L1, so every Do runs a flight.
func benchLocalGroup(b *testing.B) *Group {
	cfg := testConfig("")
	cfg.Mode = ModeLocal
	cfg.L1MaxEntries = 0
	return MustNew(b, cfg, nil)
}

// requestCtx is a caller's context as a server request has one: it can be
// cancelled, so the flight must let its caller leave (fn runs on a goroutine
// of the flight). A context that can never end (context.Background) lets
// Do run fn on the caller's goroutine: BenchmarkLocalDoUncancellable.
func requestCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return ctx
}

// In-process layer vs golang.org/x/sync/singleflight: one caller per flight.
func BenchmarkLocalDo(b *testing.B) {
	g := benchLocalGroup(b)
	ctx := requestCtx(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Do(ctx, testStage, "k", benchFn); err != nil {
			b.Fatal(err)
		}
	}
}

// The same from a caller that cannot leave (no goroutine is started).
func BenchmarkLocalDoUncancellable(b *testing.B) {
	g := benchLocalGroup(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Do(ctx, testStage, "k", benchFn); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkXSyncDo(b *testing.B) {
	var g xsync.Group
	b.ReportAllocs()
	for b.Loop() {
		if _, err, _ := g.Do("k", func() (any, error) { return benchFn(context.TODO()) }); err != nil {
			b.Fatal(err)
		}
	}
}

// handOff runs benchFn on a goroutine of its own and waits for it through
// a channel: the floor of a flight that its first caller may leave.
func handOff(ctx context.Context) []byte {
	done := make(chan struct{})
	var v []byte
	go func() {
		v, _ = benchFn(ctx)
		close(done)
	}()
	<-done
	return v
}

// The floor of a flight that its first caller may leave: one goroutine
// started and waited for through a channel.
func BenchmarkGoroutineHandoff(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if handOff(ctx) == nil {
			b.Fatal("no value")
		}
	}
}

// The in-process flight against one goroutine hand-off measured in the
// same iterations (one of each per iteration, timed separately): on the
// shared 2-vCPU machine the hand-off alone moved from 0.73 to 1.15 µs
// between runs, which moved the ratio of the separate benchmarks more
// than any change of Do.
func BenchmarkLocalDoVsHandoff(b *testing.B) {
	g := benchLocalGroup(b)
	ctx := requestCtx(b)
	bctx := context.Background()
	var do, handoff time.Duration
	i := 0
	for b.Loop() {
		i++
		t0 := time.Now()
		if _, err := g.Do(ctx, testStage, "k", benchFn); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		v := handOff(bctx)
		t2 := time.Now()
		if v == nil {
			b.Fatal("no value")
		}
		do, handoff = do+t1.Sub(t0), handoff+t2.Sub(t1)
	}
	b.ReportMetric(float64(do.Nanoseconds())/float64(i)/1000, "do-µs")
	b.ReportMetric(float64(handoff.Nanoseconds())/float64(i)/1000, "handoff-µs")
	b.ReportMetric(float64(do)/float64(handoff), "do/handoff")
}

// The same, with every goroutine calling one key.
func BenchmarkLocalDoParallel(b *testing.B) {
	g := benchLocalGroup(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := g.Do(ctx, testStage, "k", benchFn); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkXSyncDoParallel(b *testing.B) {
	var g xsync.Group
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err, _ := g.Do("k", func() (any, error) { return benchFn(context.TODO()) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchRedis is the test Redis with the production client's options
// (internal/app): context deadlines apply to the socket, so a Redis call
// needs no watchdog goroutine.
func benchRedis(b *testing.B) (redis.UniversalClient, string) {
	_, prefix := testenv.Redis(b)
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr(), ContextTimeoutEnabled: true})
	b.Cleanup(func() { _ = rdb.Close() })
	return rdb, prefix
}

// benchRedisGroup is a distributed Group without L1.
func benchRedisGroup(b *testing.B, rdb redis.UniversalClient, prefix, id string) *Group {
	cfg := testConfig(prefix)
	cfg.InstanceID = id
	cfg.L1MaxEntries = 0
	// Production leases: the benchmarks measure the paths, not takeovers.
	cfg.Default.RunningLease, cfg.Default.Heartbeat, cfg.Default.TakeoverDetect = 15*time.Second, 3*time.Second, 10*time.Second
	g := MustNew(b, cfg, rdb)
	_, _ = g.Do(context.Background(), testStage, "warm-up|"+id, benchFn) // load the scripts
	return g
}

// The distributed owner path (acquire + complete, distinct keys) vs a bare
// EVALSHA round trip.
func BenchmarkDistributedOwner(b *testing.B) {
	rdb, prefix := benchRedis(b)
	g := benchRedisGroup(b, rdb, prefix, "owner")
	ctx := requestCtx(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := g.Do(ctx, testStage, "owner|"+strconv.Itoa(i), benchFn); err != nil {
			b.Fatal(err)
		}
	}
}

// The distributed replay path (one acquire that returns the payload).
func BenchmarkDistributedReplay(b *testing.B) {
	rdb, prefix := benchRedis(b)
	g := benchRedisGroup(b, rdb, prefix, "replay")
	ctx := requestCtx(b)
	if _, err := g.Do(ctx, testStage, "replayed", benchFn); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Do(ctx, testStage, "replayed", benchFn); err != nil {
			b.Fatal(err)
		}
	}
}

var bareScript = redis.NewScript(`return 1`)

func BenchmarkBareEvalsha(b *testing.B) {
	rdb, prefix := benchRedis(b)
	ctx := context.Background()
	keys := []string{prefix + "bare"}
	_ = bareScript.Load(ctx, rdb)
	b.ReportAllocs()
	for b.Loop() {
		if err := bareScript.Run(ctx, rdb, keys).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// The owner and replay paths against a bare EVALSHA measured in the same
// iterations (one of each per iteration, timed separately), so that a
// change of load between benchmarks cannot move the ratios: on a shared
// 2-vCPU machine BenchmarkBareEvalsha, run seconds after
// BenchmarkDistributedOwner, varied from 23 to 58 µs.
func BenchmarkDistributedVsBare(b *testing.B) {
	rdb, prefix := benchRedis(b)
	g := benchRedisGroup(b, rdb, prefix, "vsbare")
	ctx := requestCtx(b)
	bctx := context.Background()
	keys := []string{prefix + "bare"}
	_ = bareScript.Load(bctx, rdb)
	if _, err := g.Do(ctx, testStage, "replayed", benchFn); err != nil {
		b.Fatal(err)
	}
	var owner, replay, bare time.Duration
	i := 0
	for b.Loop() {
		i++
		t0 := time.Now()
		if _, err := g.Do(ctx, testStage, "owner|"+strconv.Itoa(i), benchFn); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := bareScript.Run(bctx, rdb, keys).Err(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := g.Do(ctx, testStage, "replayed", benchFn); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		owner, bare, replay = owner+t1.Sub(t0), bare+t2.Sub(t1), replay+t3.Sub(t2)
	}
	b.ReportMetric(float64(bare.Microseconds())/float64(i), "bare-µs")
	b.ReportMetric(float64(owner)/float64(bare), "owner/bare")
	b.ReportMetric(float64(replay)/float64(bare), "replay/bare")
}

// Distinct-key flights per second against one Redis (50 concurrent callers,
// as redis-benchmark's default 50 clients).
func BenchmarkDistributedFlightsParallel(b *testing.B) {
	rdb, prefix := benchRedis(b)
	g := benchRedisGroup(b, rdb, prefix, "parallel")
	ctx := context.Background()
	var seq atomic.Int64
	b.SetParallelism(25) // x GOMAXPROCS (2) = 50 goroutines
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := "par|" + strconv.FormatInt(seq.Add(1), 10)
			if _, err := g.Do(ctx, testStage, key, benchFn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "flights/s")
}

// Follower wake-up latency: from the owner's fn returning (the completion
// script then runs) to the follower in another Group returning the result,
// woken by the stream. Run with -benchtime=1000x or more.
func BenchmarkFollowerWakeup(b *testing.B) {
	for _, bk := range backends {
		b.Run(bk.name, func(b *testing.B) {
			clients, prefix := bk.clients(b, 2)
			owner := benchRedisGroup(b, clients[0], prefix, "owner")
			follower := benchRedisGroup(b, clients[1], prefix, "follower")
			p := newProbe(follower)
			follower.testHookJoin = nil // only follower events are waited for
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				i++
				key := "wake|" + strconv.Itoa(i)
				release, running := make(chan struct{}), make(chan struct{})
				var releasedAt time.Time
				od := goDo(ctx, owner, key, started(running, func(context.Context) ([]byte, error) {
					<-release
					releasedAt = time.Now()
					return benchValue, nil
				}))
				waitClosed(b, running, "the owner")
				fd := goDo(ctx, follower, key, benchFn)
				p.waitFollowers(b, 1)
				close(release)
				r := recv(b, fd)
				done := time.Now()
				recv(b, od)
				if r.err != nil || r.res.Outcome != Follower {
					b.Fatalf("follower: %s %v", r.res.Outcome, r.err)
				}
				lat = append(lat, done.Sub(releasedAt))
			}
			slices.Sort(lat)
			q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Microseconds()) }
			b.ReportMetric(q(0.50), "p50-µs")
			b.ReportMetric(q(0.99), "p99-µs")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// The bare EVALSHA round trip from 50 goroutines: what go-redis itself
// reaches on this machine, the ceiling of two-script flights.
func BenchmarkBareEvalshaParallel(b *testing.B) {
	rdb, prefix := benchRedis(b)
	ctx := context.Background()
	keys := []string{prefix + "bare"}
	_ = bareScript.Load(ctx, rdb)
	b.SetParallelism(25)
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := bareScript.Run(ctx, rdb, keys).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}
