package redisx_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// copies is a map of copies, safe for concurrent use.
type copies struct {
	mu sync.Mutex
	m  map[string]uint64 // key → the state it was copied at
}

func newCopies() *copies { return &copies{m: map[string]uint64{}} }

func (c *copies) Remove(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		delete(c.m, k)
	}
}

func (c *copies) Purge() { c.mu.Lock(); defer c.mu.Unlock(); clear(c.m) }

func (c *copies) add(k string, state uint64) { c.mu.Lock(); defer c.mu.Unlock(); c.m[k] = state }

func (c *copies) has(k string) bool { _, ok := c.state(k); return ok }

func (c *copies) state(k string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[k]
	return s, ok
}

func (c *copies) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ks []string
	for k := range c.m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// instance is one process's invalidations, live before it returns.
func instance(t *testing.T, rdb redis.UniversalClient, channel string) (*redisx.Invalidations, *copies) {
	t.Helper()
	c := newCopies()
	inv := redisx.NewInvalidations(rdb, channel, c)
	t.Cleanup(func() { _ = inv.Close() })
	for deadline := time.Now().Add(5 * time.Second); !inv.Live(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the subscription is not confirmed")
		}
	}
	return inv, c
}

// keep copies key from a read stamped at st.
func keep(inv *redisx.Invalidations, c *copies, st redisx.Stamp, key string) bool {
	return inv.Keep(st, key, func() { c.add(key, st.State()) })
}

// waitGone waits until the copy of key is dropped.
func waitGone(t *testing.T, c *copies, key string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); c.has(key); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the copy of %s was not dropped: copies %v", key, c.keys())
		}
	}
}

// A change published by one instance drops the other's copies of the keys
// it names, and only those; a read that a drop of its key overtook is not
// copied, on a single Redis and on a Redis Cluster.
func TestInvalidationsAcrossInstances(t *testing.T) {
	for _, mode := range []string{"single", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			var rdb redis.UniversalClient
			var prefix string
			if mode == "single" {
				rdb, prefix = testenv.Redis(t)
			} else {
				rdb, prefix = testenv.RedisCluster(t)
			}
			ctx := context.Background()
			a, ac := instance(t, rdb, prefix+"changed")
			b, bc := instance(t, rdb, prefix+"changed")

			for _, k := range []string{"s1", "s2", "s3"} {
				if !keep(b, bc, b.Stamp(), k) {
					t.Fatalf("%s: not copied while nothing changed", k)
				}
			}
			if !keep(a, ac, a.Stamp(), "s1") {
				t.Fatal("a: s1 not copied")
			}
			if err := a.Publish(ctx, "s1", "s2"); err != nil {
				t.Fatal(err)
			}
			if ac.has("s1") {
				t.Fatal("the publisher kept its own copy")
			}
			waitGone(t, bc, "s1")
			waitGone(t, bc, "s2")
			if state, ok := bc.state("s3"); !ok || !b.Valid(state) {
				t.Fatalf("s3 did not change but its copy went: %v", bc.keys())
			}

			// A read begun before a change of its key is not copied; a read
			// of another key, or begun after, is.
			st := b.Stamp()
			if err := a.Publish(ctx, "s4"); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(2 * time.Second); keep(b, bc, st, "s4"); time.Sleep(time.Millisecond) {
				bc.Remove("s4") // copied before the message arrived: the message would drop it
				if time.Now().After(deadline) {
					t.Fatal("a read overtaken by a change of its key is still copied")
				}
			}
			if !keep(b, bc, st, "s5") {
				t.Fatal("a change of s4 kept a read of s5 from being copied")
			}
			if !keep(b, bc, b.Stamp(), "s4") {
				t.Fatal("a read begun after the change is not copied")
			}
		})
	}
}

// Copies are made and used only while the subscription is up: a client
// that cannot reach Redis never goes live; a lost subscription drops every
// copy, and copies made before the loss stay unused once it is back.
func TestInvalidationsFailSafe(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = down.Close() })
	c := newCopies()
	inv := redisx.NewInvalidations(down, "x:changed", c)
	time.Sleep(100 * time.Millisecond)
	if inv.Live() || keep(inv, c, inv.Stamp(), "k") {
		t.Fatal("copies without a subscription")
	}
	if err := inv.Close(); err != nil {
		t.Fatal(err)
	}

	proc := testenv.StartRedis(t)
	inv, c = instance(t, proc.Client(t), "p:changed")
	st := inv.Stamp()
	if !keep(inv, c, st, "k") {
		t.Fatal("not copied while live")
	}
	proc.Kill()
	waitGone(t, c, "k")
	if inv.Valid(st.State()) || keep(inv, c, st, "k") {
		t.Fatal("a copy of before the loss is still valid")
	}
	proc.Restart(t)
	for deadline := time.Now().Add(10 * time.Second); !inv.Live(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the subscription did not come back")
		}
	}
	if inv.Valid(st.State()) {
		t.Fatal("a copy of before the loss is valid again")
	}
	if !keep(inv, c, inv.Stamp(), "k") {
		t.Fatal("not copied once the subscription is back")
	}
}

// Drops of more keys than are remembered make older reads uncopyable
// rather than forgetting a drop.
func TestInvalidationsForgetConservatively(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	inv, c := instance(t, rdb, prefix+"changed")
	st := inv.Stamp()
	inv.Drop("k")
	for i := range 5000 {
		inv.Drop(fmt.Sprint("other", i))
	}
	if keep(inv, c, st, "k") || keep(inv, c, st, "unrelated") {
		t.Fatal("a read older than the remembered drops was copied")
	}
	if !keep(inv, c, inv.Stamp(), "k") {
		t.Fatal("a new read was not copied")
	}
}
