package singleflight

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// Environment of the owner helper process.
const (
	envHelperPrefix = "SINGLEFLIGHT_HELPER_PREFIX"
	envHelperKey    = "SINGLEFLIGHT_HELPER_KEY"
	helperRunning   = "OWNER-RUNNING"
)

// TestHelperOwnerProcess is not a test: TestTakeoverAfterOwnerProcessKilled
// runs the test binary with only this function, as a separate owner process
// that starts a flight, prints helperRunning once fn runs, and hangs in fn
// until it is killed.
func TestHelperOwnerProcess(t *testing.T) {
	prefix := os.Getenv(envHelperPrefix)
	if prefix == "" {
		t.Skip("helper process of TestTakeoverAfterOwnerProcessKilled")
	}
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr()})
	cfg := testConfig(prefix)
	cfg.InstanceID = "helper-process"
	g, err := New(cfg, rdb, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = g.Do(context.Background(), testStage, os.Getenv(envHelperKey), func(ctx context.Context) ([]byte, error) {
		fmt.Println(helperRunning)
		select {} // a model call that never ends: only SIGKILL stops us
	})
}

func TestTakeoverAfterOwnerProcessKilled(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	const key = "takeover|s1|1|0123456789abcdef"
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwnerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHelperPrefix+"="+prefix, envHelperKey+"="+key)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	running := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == helperRunning {
				close(running)
				break
			}
		}
		for sc.Scan() { // drain
		}
	}()
	waitClosed(t, running, "the owner process to run fn")

	cfg := testConfig(prefix)
	cfg.InstanceID = "test-process"
	cfg.PollFallback = 50 * time.Millisecond
	g := MustNew(t, cfg, rdb)
	p := newProbe(g)
	var c counter
	calledAt := make(chan time.Time, 1)
	follower := goDo(context.Background(), g, key, func(ctx context.Context) ([]byte, error) {
		calledAt <- time.Now()
		return c.fn(nil, "recovered", nil)(ctx)
	})
	p.waitFollowers(t, 1)

	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup, heartbeats just stop
		t.Fatal(err)
	}
	killedAt := time.Now()
	r := recv(t, follower)
	if r.err != nil || string(r.res.Value) != "recovered" || r.res.Outcome != Takeover {
		t.Fatalf("follower: %q, %s, %v; want recovered by takeover", r.res.Value, r.res.Outcome, r.err)
	}
	took := (<-calledAt).Sub(killedAt)
	pol := cfg.Default
	t.Logf("owner killed; follower took over after %v (takeover-detect %v, heartbeat %v, poll %v)",
		took, pol.TakeoverDetect, pol.Heartbeat, cfg.PollFallback)
	if lo, hi := pol.TakeoverDetect-pol.Heartbeat-10*time.Millisecond, pol.TakeoverDetect+cfg.PollFallback+300*time.Millisecond; took < lo || took > hi {
		t.Errorf("takeover after %v, want between %v and %v", took, lo, hi)
	}
	if got := c.get(); got != 1 {
		t.Errorf("fn calls in this process = %d, want 1", got)
	}
}

func TestLiveOwnerIsNeverTakenOver(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		gs, _ := groups(t, b, 2, func(c *Config) { c.PollFallback = 50 * time.Millisecond })
		pol := gs[0].cfg.Default
		callTime := 4 * pol.RunningLease // several leases: only heartbeats keep it
		var c counter
		running := make(chan struct{})
		owner := goDo(context.Background(), gs[0], "long", started(running, func(ctx context.Context) ([]byte, error) {
			c.n.Add(1)
			select {
			case <-time.After(callTime): // the duration is the point
				return []byte("slow answer"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
		waitClosed(t, running, "the owner")
		follower := goDo(context.Background(), gs[1], "long", c.fn(nil, "duplicate", nil))
		for _, ch := range []<-chan doResult{owner, follower} {
			if r := recv(t, ch); r.err != nil || string(r.res.Value) != "slow answer" {
				t.Errorf("got %q, %s, %v; want the owner's answer", r.res.Value, r.res.Outcome, r.err)
			}
		}
		if got := c.get(); got != 1 {
			t.Errorf("fn calls = %d, want 1 (a live owner was taken over)", got)
		}
	})
}
