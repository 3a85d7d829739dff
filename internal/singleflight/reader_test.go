package singleflight

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// Many flights followed at once by one process share its reader: the set
// of awaited streams changes while the XREAD blocks, and every follower is
// still woken by its stream (the poll fallback is far slower than the test).
func TestReaderFansOutManyFlights(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, _ := groups(t, b, 2, func(c *Config) { c.PollFallback = time.Minute })
		owner, follower := gs[0], gs[1]
		p := newProbe(follower)
		follower.testHookJoin = nil
		ctx := context.Background()
		const n = 50
		var c counter
		release := make(chan struct{})
		var owners, followers []<-chan doResult
		for i := range n {
			key := "fan|" + strconv.Itoa(i)
			running := make(chan struct{})
			owners = append(owners, goDo(ctx, owner, key, started(running, c.fn(release, "v"+strconv.Itoa(i), nil))))
			waitClosed(t, running, "owner "+key)
			followers = append(followers, goDo(ctx, follower, key, c.fn(nil, "duplicate", nil)))
		}
		p.waitFollowers(t, n)
		start := time.Now()
		close(release)
		for i, ch := range followers {
			r := recv(t, ch)
			if r.err != nil || string(r.res.Value) != "v"+strconv.Itoa(i) || r.res.Outcome != Follower {
				t.Fatalf("follower %d: %q, %s, %v", i, r.res.Value, r.res.Outcome, r.err)
			}
		}
		took := time.Since(start)
		for _, ch := range owners {
			recv(t, ch)
		}
		t.Logf("%d followers woken in %v", n, took)
		if took > 5*time.Second {
			t.Errorf("followers took %v: not woken by their streams", took)
		}
		if got := c.get(); got != n {
			t.Errorf("fn calls = %d, want %d", got, n)
		}
	})
}
