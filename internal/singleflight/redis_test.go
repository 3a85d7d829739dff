package singleflight

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// groups returns n Groups of one deployment, each with its own client and
// instance id and the same key prefix.
func groups(t *testing.T, b backend, n int, edit func(*Config)) ([]*Group, []redis.UniversalClient) {
	t.Helper()
	clients, prefix := b.clients(t, n)
	var gs []*Group
	for i, c := range clients {
		cfg := testConfig(prefix)
		cfg.InstanceID = "inst" + string(rune('A'+i))
		if edit != nil {
			edit(&cfg)
		}
		gs = append(gs, MustNew(t, cfg, c))
	}
	return gs, clients
}

func TestDistributedOneCallAcrossGroups(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, _ := groups(t, b, 3, func(c *Config) {
			c.Stages = map[string]Policy{"short": {ResultTTL: 300 * time.Millisecond}}
		})
		p := newProbe(gs...)
		var c counter
		release := make(chan struct{})
		const perGroup = 30
		key := "interview-evaluation|s1|3|" + strings.Repeat("ab", 8)
		var results []<-chan doResult
		for _, g := range gs {
			for range perGroup {
				results = append(results, goDo(context.Background(), g, key, c.fn(release, `{"score":87}`, nil)))
			}
		}
		p.waitJoins(t, len(gs)*perGroup)
		p.waitFollowers(t, len(gs)-1) // every other Group's leader follows the owner
		close(release)
		outcomes := map[Outcome]int{}
		for _, ch := range results {
			r := recv(t, ch)
			if r.err != nil || string(r.res.Value) != `{"score":87}` {
				t.Fatalf("got %q, %v; want the owner's result", r.res.Value, r.err)
			}
			outcomes[r.res.Outcome]++
		}
		if got := c.get(); got != 1 {
			t.Fatalf("fn calls = %d, want 1", got)
		}
		want := map[Outcome]int{OwnerNew: 1, Follower: 2, LocalShared: 87}
		for o, n := range want {
			if outcomes[o] != n {
				t.Errorf("outcomes = %v, want %v", outcomes, want)
				break
			}
		}

		// A repeat within ResultTTL replays.
		r, err := gs[2].Do(context.Background(), testStage, key, c.fn(nil, "other", nil))
		if err != nil || string(r.Value) != `{"score":87}` || r.Outcome != ReplayRedis || c.get() != 1 {
			t.Errorf("repeat: got %q, %s, %v, calls %d; want replay, 1 call", r.Value, r.Outcome, err, c.get())
		}

		// A repeat after a (short) ResultTTL calls again, once.
		var c2 counter
		if _, err := gs[0].Do(context.Background(), "short", key+"|short", c2.fn(nil, "v1", nil)); err != nil {
			t.Fatal(err)
		}
		if r, _ := gs[1].Do(context.Background(), "short", key+"|short", c2.fn(nil, "v2", nil)); string(r.Value) != "v1" || c2.get() != 1 {
			t.Errorf("within TTL: got %q, calls %d; want v1, 1", r.Value, c2.get())
		}
		time.Sleep(400 * time.Millisecond) // the TTL is the point
		r, err = gs[1].Do(context.Background(), "short", key+"|short", c2.fn(nil, "v2", nil))
		if err != nil || string(r.Value) != "v2" || r.Outcome != OwnerNew || c2.get() != 2 {
			t.Errorf("after TTL: got %q, %s, %v, calls %d; want v2, owner_new, 2 calls", r.Value, r.Outcome, err, c2.get())
		}
	})
}

func TestDistributedFailureReplay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, _ := groups(t, b, 3, nil)
		ctx := context.Background()

		t.Run("non-retryable is replayed", func(t *testing.T) {
			p := newProbe(gs...)
			var c counter
			release := make(chan struct{})
			invalid := &classified{code: "A000400", msg: "answer is empty"}
			running := make(chan struct{})
			owner := goDo(ctx, gs[0], "fail-hard", started(running, c.fn(release, "", invalid)))
			waitClosed(t, running, "the owner")
			follower := goDo(ctx, gs[1], "fail-hard", c.fn(nil, "v", nil))
			p.waitFollowers(t, 1)
			close(release)
			if r := recv(t, owner); !errors.Is(r.err, invalid) {
				t.Errorf("owner: err = %v, want the original error", r.err)
			}
			r := recv(t, follower)
			var re *ReplayedError
			if !errors.As(r.err, &re) || re.Code != "A000400" || re.Message != invalid.Error() || re.IsRetryable() {
				t.Errorf("follower: err = %#v, want replayed non-retryable A000400", r.err)
			}
			later, err := gs[2].Do(ctx, testStage, "fail-hard", c.fn(nil, "v", nil))
			if !errors.As(err, &re) || later.Outcome != ReplayFailure {
				t.Errorf("later caller: %s, %v; want replay_failure", later.Outcome, err)
			}
			if got := c.get(); got != 1 {
				t.Errorf("fn calls = %d, want 1", got)
			}
		})

		t.Run("retryable lets a waiting follower take over at once", func(t *testing.T) {
			p := newProbe(gs...)
			var c counter
			release := make(chan struct{})
			unavailable := &classified{code: "B000503", msg: "model unavailable", retry: true}
			running := make(chan struct{})
			owner := goDo(ctx, gs[0], "fail-soft", started(running, c.fn(release, "", unavailable)))
			waitClosed(t, running, "the owner")
			follower := goDo(ctx, gs[1], "fail-soft", c.fn(nil, "recovered", nil))
			p.waitFollowers(t, 1)
			start := time.Now()
			close(release)
			if r := recv(t, owner); !errors.Is(r.err, unavailable) {
				t.Errorf("owner: err = %v", r.err)
			}
			r := recv(t, follower)
			if r.err != nil || string(r.res.Value) != "recovered" || r.res.Outcome != Takeover {
				t.Errorf("follower: %q, %s, %v; want recovered, takeover", r.res.Value, r.res.Outcome, r.err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("follower took over after %v, want at once", d)
			}
			if r, _ := gs[2].Do(ctx, testStage, "fail-soft", c.fn(nil, "x", nil)); string(r.Value) != "recovered" {
				t.Errorf("later caller got %q", r.Value)
			}
			if got := c.get(); got != 2 {
				t.Errorf("fn calls = %d, want 2", got)
			}
		})

		t.Run("retryable lets the next caller take over", func(t *testing.T) {
			var c counter
			unavailable := &classified{code: "B000503", msg: "model unavailable", retry: true}
			if _, err := gs[0].Do(ctx, testStage, "fail-soft-2", c.fn(nil, "", unavailable)); !errors.Is(err, unavailable) {
				t.Fatalf("first: %v", err)
			}
			r, err := gs[1].Do(ctx, testStage, "fail-soft-2", c.fn(nil, "v", nil))
			if err != nil || r.Outcome != Takeover || c.get() != 2 {
				t.Errorf("next: %s, %v, calls %d; want takeover, 2", r.Outcome, err, c.get())
			}
			r, err = gs[2].Do(ctx, testStage, "fail-soft-2", c.fn(nil, "x", nil))
			if err != nil || string(r.Value) != "v" || c.get() != 2 {
				t.Errorf("then: %q, %v, calls %d; want replay of v, 2", r.Value, err, c.get())
			}
		})
	})
}

func TestFencing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		clients, prefix := b.clients(t, 1)
		st := store{rdb: clients[0]}
		ctx := context.Background()
		k := keysFor(prefix, "fencing")
		pol := testConfig(prefix).Default

		a, err := st.acquire(ctx, k, "old", pol, "")
		if err != nil || a.status != statusOwnerNew || a.token != "1" {
			t.Fatalf("acquire old = %+v, %v; want OWNER_NEW 1", a, err)
		}
		// While the old owner heartbeats, nobody takes over.
		if ok, err := st.heartbeat(ctx, k, "old", a.token, pol); !ok || err != nil {
			t.Fatalf("heartbeat old = %v, %v", ok, err)
		}
		if f, _ := st.acquire(ctx, k, "new", pol, ""); f.status != statusFollowerWait {
			t.Fatalf("acquire while alive = %s, want FOLLOWER_WAIT", f.status)
		}
		// Make the old owner's heartbeat stale: takeover-detect of 0 ms.
		stale := pol
		stale.TakeoverDetect = 0
		time.Sleep(5 * time.Millisecond)
		n, err := st.acquire(ctx, k, "new", stale, "")
		if err != nil || n.status != statusOwnerTakeover || n.token != "2" {
			t.Fatalf("acquire new = %+v, %v; want OWNER_TAKEOVER 2", n, err)
		}

		if ok, err := st.heartbeat(ctx, k, "old", a.token, pol); ok || err != nil {
			t.Errorf("old heartbeat = %v, %v; want lost", ok, err)
		}
		if ok, err := st.completeSuccess(ctx, k, "old", a.token, pol, encodePayload([]byte("old"), 0)); ok || err != nil {
			t.Errorf("old complete = %v, %v; want lost", ok, err)
		}
		if ok, err := st.completeFailure(ctx, k, "old", a.token, pol, Failure{Message: "x"}); ok || err != nil {
			t.Errorf("old fail = %v, %v; want lost", ok, err)
		}
		// The same owner id with the old token is fenced too.
		if ok, _ := st.heartbeat(ctx, k, "new", a.token, pol); ok {
			t.Errorf("heartbeat with the old token succeeded")
		}
		if ok, err := st.completeSuccess(ctx, k, "new", n.token, pol, encodePayload([]byte("new"), 0)); !ok || err != nil {
			t.Fatalf("new complete = %v, %v; want ok", ok, err)
		}
		if ok, _ := st.completeSuccess(ctx, k, "old", a.token, pol, encodePayload([]byte("old"), 0)); ok {
			t.Errorf("old complete after new succeeded")
		}
		r, err := st.acquire(ctx, k, "reader", pol, "")
		if err != nil || r.status != statusReplaySuccess {
			t.Fatalf("acquire after = %+v, %v", r, err)
		}
		if v, err := r.payload.decode(); err != nil || string(v) != "new" {
			t.Errorf("stored result = %q, %v; want new", v, err)
		}
		// Every key of the flight expires with it.
		for _, key := range k.all() {
			if ttl, _ := clients[0].PTTL(ctx, key).Result(); ttl <= 0 {
				t.Errorf("%s has no TTL (%v)", key, ttl)
			}
		}
	})
}

func TestCorruptResultIsAMiss(t *testing.T) {
	corruptions := []struct {
		name  string
		value string // size > CompressOver (64) is stored gzip-compressed
		edit  func(ctx context.Context, rdb redis.UniversalClient, k flightKeys) error
	}{
		{"flipped byte raw", "short value", flipByte},
		{"flipped byte gzip", strings.Repeat("compressible ", 20), flipByte},
		{"wrong checksum", "short value", func(ctx context.Context, rdb redis.UniversalClient, k flightKeys) error {
			return editHeader(ctx, rdb, k, func(p *payload) { p.Sum = strings.Repeat("0", 64) })
		}},
		{"wrong size", "short value", func(ctx context.Context, rdb redis.UniversalClient, k flightKeys) error {
			return editHeader(ctx, rdb, k, func(p *payload) { p.Size = 3 })
		}},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, clients := groups(t, b, 2, nil)
		for _, tc := range corruptions {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				var c counter
				key := "corrupt|" + tc.name
				if _, err := gs[0].Do(ctx, testStage, key, c.fn(nil, tc.value, nil)); err != nil {
					t.Fatal(err)
				}
				if err := tc.edit(ctx, clients[0], keysFor(gs[0].cfg.KeyPrefix, key)); err != nil {
					t.Fatal(err)
				}
				r, err := gs[1].Do(ctx, testStage, key, c.fn(nil, "recomputed", nil))
				if err != nil || string(r.Value) != "recomputed" || r.Outcome != Takeover || c.get() != 2 {
					t.Errorf("got %q, %s, %v, calls %d; want recomputed by takeover", r.Value, r.Outcome, err, c.get())
				}
				r, _ = gs[0].Do(ctx, testStage, key, c.fn(nil, "again", nil))
				if string(r.Value) != "recomputed" {
					t.Errorf("then got %q, want the recomputed result", r.Value)
				}
			})
		}
	})
}

// flipByte corrupts the stored data in place, keeping its length.
func flipByte(ctx context.Context, rdb redis.UniversalClient, k flightKeys) error {
	data, err := rdb.HGet(ctx, k.meta, "data").Bytes()
	if err != nil {
		return err
	}
	data = bytes.Clone(data)
	data[len(data)/2] ^= 0x55
	return rdb.HSet(ctx, k.meta, "data", data).Err()
}

// editHeader rewrites the stored payload's header (encoding, sizes, checksum).
func editHeader(ctx context.Context, rdb redis.UniversalClient, k flightKeys, edit func(*payload)) error {
	h, err := rdb.HGet(ctx, k.meta, "pl").Result()
	if err != nil {
		return err
	}
	p := payloadFrom(h, "")
	edit(&p)
	return rdb.HSet(ctx, k.meta, "pl", p.header()).Err()
}
