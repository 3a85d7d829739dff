package singleflight

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// counterValue reads a counter of reg by name and labels (0 when absent).
func counterValue(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func TestLostLeaseCancelsFnAndFollowsTheNewOwner(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	reg := prometheus.NewRegistry()
	cfg := testConfig(prefix)
	g, err := New(cfg, rdb, reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx := context.Background()
	const key = "lost-lease"

	running, fnErr := make(chan struct{}), make(chan error, 1)
	owner := goDo(ctx, g, key, started(running, func(ctx context.Context) ([]byte, error) {
		<-ctx.Done() // only losing the lease ends this call
		fnErr <- ctx.Err()
		return []byte("stale"), nil
	}))
	waitClosed(t, running, "the owner")

	// Another owner takes the flight over (as if our heartbeats had stopped)
	// and completes it.
	st, k := store{rdb: rdb}, keysFor(prefix, key)
	stale := cfg.Default
	stale.TakeoverDetect = 0
	time.Sleep(2 * time.Millisecond)
	a, err := st.acquire(ctx, k, "intruder", stale, "")
	if err != nil || a.status != statusOwnerTakeover {
		t.Fatalf("takeover: %+v, %v", a, err)
	}
	if ok, err := st.completeSuccess(ctx, k, "intruder", a.token, cfg.Default, encodePayload([]byte("newer"), 0)); !ok || err != nil {
		t.Fatalf("intruder complete: %v, %v", ok, err)
	}

	r := recv(t, owner)
	if r.err != nil || string(r.res.Value) != "newer" {
		t.Errorf("got %q, %v; want the newer owner's result", r.res.Value, r.err)
	}
	if err := <-fnErr; !errors.Is(err, context.Canceled) {
		t.Errorf("fn ctx: %v, want cancelled on lost lease", err)
	}
	if v, _ := rdb.HGet(ctx, k.meta, "data").Result(); v != "newer" {
		t.Errorf("stored result %q, want newer (the stale owner must not write)", v)
	}
	if got := counterValue(t, reg, "aimeeting_singleflight_outcomes_total", map[string]string{"outcome": "lost_lease"}); got != 1 {
		t.Errorf("lost_lease counter = %v, want 1", got)
	}
	if got := counterValue(t, reg, "aimeeting_singleflight_model_calls_total", map[string]string{"stage": testStage}); got != 1 {
		t.Errorf("model calls counter = %v, want 1", got)
	}
}

func TestFollowerMaxWaitWithLiveOwnerIsInProgress(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, _ := groups(t, b, 2, func(c *Config) { c.FollowerMaxWait = 300 * time.Millisecond })
		ctx := context.Background()
		var c counter
		release, running := make(chan struct{}), make(chan struct{})
		owner := goDo(ctx, gs[0], "slow", started(running, c.fn(release, "done", nil)))
		waitClosed(t, running, "the owner")
		r, err := gs[1].Do(ctx, testStage, "slow", c.fn(nil, "duplicate", nil))
		if !errors.Is(err, ErrInProgress) || r.Outcome != Follower {
			t.Errorf("follower: %s, %v; want follower, ErrInProgress", r.Outcome, err)
		}
		close(release)
		recv(t, owner)
		if got := c.get(); got != 1 {
			t.Errorf("fn calls = %d, want 1", got)
		}
	})
}

func TestPollFallbackCatchesALostNotification(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	cfg := testConfig(prefix)
	cfg.PollFallback = 100 * time.Millisecond
	g := MustNew(t, cfg, rdb)
	p := newProbe(g)
	ctx := context.Background()
	st, k := store{rdb: rdb}, keysFor(prefix, "lost-event")
	a, err := st.acquire(ctx, k, "ghost", cfg.Default, "")
	if err != nil || a.status != statusOwnerNew {
		t.Fatalf("acquire: %+v, %v", a, err)
	}
	var c counter
	follower := goDo(ctx, g, "lost-event", c.fn(nil, "duplicate", nil))
	p.waitFollowers(t, 1)
	// Lose the notification: completion publishes only for followed flights.
	if err := rdb.HDel(ctx, k.meta, "followed").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.heartbeat(ctx, k, "ghost", a.token, cfg.Default); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.completeSuccess(ctx, k, "ghost", a.token, cfg.Default, encodePayload([]byte("ghost result"), 0)); !ok || err != nil {
		t.Fatalf("complete: %v, %v", ok, err)
	}
	if n, _ := rdb.XLen(ctx, k.stream).Result(); n != 0 {
		t.Fatalf("stream has %d events, want none", n)
	}
	r := recv(t, follower)
	if r.err != nil || string(r.res.Value) != "ghost result" || r.res.Outcome != Follower || c.get() != 0 {
		t.Errorf("got %q, %s, %v, calls %d; want the result by polling", r.res.Value, r.res.Outcome, r.err, c.get())
	}
}

// The age of an owner's last heartbeat is its lease minus the meta hash's
// PTTL (server time, no clock call): the expiry is moved instead of waiting.
func TestTakeoverAgeIsLeaseMinusPTTL(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	st := store{rdb: rdb}
	pol := testConfig(prefix).Default
	pol.RunningLease, pol.TakeoverDetect = 10*time.Second, 4*time.Second
	tests := []struct {
		name  string
		age   func(meta string) error // makes the owner's last heartbeat look this old
		want  string
		token string
	}{
		{"fresh", func(string) error { return nil }, statusFollowerWait, "1"},
		{"younger than takeover-detect", func(meta string) error {
			return rdb.PExpire(ctx, meta, pol.RunningLease-3*time.Second).Err()
		}, statusFollowerWait, "1"},
		{"older than takeover-detect", func(meta string) error {
			return rdb.PExpire(ctx, meta, pol.RunningLease-5*time.Second).Err()
		}, statusOwnerTakeover, "2"},
		{"no expiry", func(meta string) error { return rdb.Persist(ctx, meta).Err() }, statusOwnerTakeover, "2"},
		{"the owner's own lease, kept in the hash", func(meta string) error {
			// The owner's lease is 20 s and 14 s are left: 6 s old, although
			// the follower's own lease (10 s) would make it look fresh.
			if err := rdb.HSet(ctx, meta, "lease", 20000).Err(); err != nil {
				return err
			}
			return rdb.PExpire(ctx, meta, 14*time.Second).Err()
		}, statusOwnerTakeover, "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := keysFor(prefix, "age|"+tc.name)
			if a, err := st.acquire(ctx, k, "owner", pol, ""); err != nil || a.status != statusOwnerNew {
				t.Fatalf("acquire owner = %+v, %v", a, err)
			}
			if err := tc.age(k.meta); err != nil {
				t.Fatal(err)
			}
			a, err := st.acquire(ctx, k, "other", pol, "")
			if err != nil || a.status != tc.want || a.token != tc.token {
				t.Errorf("acquire = %s %s, %v; want %s %s", a.status, a.token, err, tc.want, tc.token)
			}
		})
	}
}
