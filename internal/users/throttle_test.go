package users

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// testThrottle is the policy of these tests: 3 failures per account, 6 per
// address, 2 registrations per address, then 40 ms doubling to 200 ms.
var testThrottle = ThrottleConfig{AccountFailures: 3, AddressFailures: 6, AddressRegistrations: 2,
	BaseDelay: 40 * time.Millisecond, MaxDelay: 200 * time.Millisecond, Window: time.Minute}

// MustThrottle returns a throttle on rdb (nil: local only).
func MustThrottle(tb testing.TB, rdb redis.UniversalClient, prefix string) *Throttle {
	tb.Helper()
	th, err := NewThrottle(testThrottle, rdb, prefix, nil, time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	return th
}

// throttles runs fn on a local throttle and on one shared through Redis.
func throttles(t *testing.T, fn func(t *testing.T, th *Throttle)) {
	t.Run("local", func(t *testing.T) { fn(t, MustThrottle(t, nil, "")) })
	t.Run("redis", func(t *testing.T) {
		rdb, prefix := testenv.Redis(t)
		fn(t, MustThrottle(t, rdb, prefix))
	})
}

func wantThrottled(t *testing.T, err error, atMost time.Duration) time.Duration {
	t.Helper()
	var te *ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *ThrottledError", err)
	}
	if te.RetryAfter <= 0 || te.RetryAfter > atMost {
		t.Fatalf("RetryAfter = %v, want in (0, %v]", te.RetryAfter, atMost)
	}
	return te.RetryAfter
}

func TestLockFor(t *testing.T) {
	tests := []struct {
		n    int
		want time.Duration
	}{{1, 0}, {2, 0}, {3, 40 * time.Millisecond}, {4, 80 * time.Millisecond},
		{5, 160 * time.Millisecond}, {6, 200 * time.Millisecond}, {1000, 200 * time.Millisecond}}
	for _, tt := range tests {
		if got := lockFor(tt.n, 3, testThrottle); got != tt.want {
			t.Errorf("lockFor(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// After the threshold each attempt waits, the waits double, a refused
// attempt is not counted, and a success resets the account.
func TestThrottleAccount(t *testing.T) {
	throttles(t, func(t *testing.T, th *Throttle) {
		ctx := context.Background()
		for i := range 3 {
			if err := th.BeginLogin(ctx, "Alice", "192.0.2.1"); err != nil {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		wantThrottled(t, th.BeginLogin(ctx, "alice", "192.0.2.2"), 40*time.Millisecond) // any case, any address
		wantThrottled(t, th.BeginLogin(ctx, "alice", "192.0.2.2"), 40*time.Millisecond) // refused: not counted
		if err := th.BeginLogin(ctx, "bob", "192.0.2.1"); err != nil {
			t.Fatalf("another account: %v", err)
		}
		time.Sleep(60 * time.Millisecond)
		if err := th.BeginLogin(ctx, "alice", "192.0.2.1"); err != nil {
			t.Fatalf("after the first wait: %v", err)
		}
		if d := wantThrottled(t, th.BeginLogin(ctx, "alice", "192.0.2.1"), 80*time.Millisecond); d <= 40*time.Millisecond {
			t.Fatalf("second wait %v, want it doubled to about 80ms", d)
		}
		th.SucceedLogin(ctx, "ALICE")
		if err := th.BeginLogin(ctx, "alice", "192.0.2.1"); err != nil {
			t.Fatalf("after a success: %v", err)
		}
	})
}

// Failures from one address lock it for every account; registrations are
// counted per address.
func TestThrottleAddress(t *testing.T) {
	throttles(t, func(t *testing.T, th *Throttle) {
		ctx := context.Background()
		for i := range 6 {
			if err := th.BeginLogin(ctx, "user"+string(rune('a'+i)), "192.0.2.9"); err != nil {
				t.Fatal(err)
			}
			th.FailLogin(ctx, "192.0.2.9")
		}
		wantThrottled(t, th.BeginLogin(ctx, "fresh", "192.0.2.9"), 40*time.Millisecond)
		if err := th.BeginLogin(ctx, "fresh", "192.0.2.10"); err != nil {
			t.Fatalf("another address: %v", err)
		}
		for i := range 2 {
			if err := th.BeginRegistration(ctx, "192.0.2.9"); err != nil {
				t.Fatalf("registration %d: %v", i+1, err)
			}
		}
		wantThrottled(t, th.BeginRegistration(ctx, "192.0.2.9"), 40*time.Millisecond)
	})
}

// Parallel guesses cannot all pass before the first is counted: exactly
// the threshold gets through.
func TestThrottleParallelGuesses(t *testing.T) {
	throttles(t, func(t *testing.T, th *Throttle) {
		const n = 20
		var wg sync.WaitGroup
		passed := make(chan struct{}, n)
		start := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if th.BeginLogin(context.Background(), "carol", "192.0.2.3") == nil {
					passed <- struct{}{}
				}
			}()
		}
		close(start)
		wg.Wait()
		if got := len(passed); got != 3 {
			t.Fatalf("%d of %d parallel attempts passed, want 3", got, n)
		}
	})
}

// With Redis down the throttle counts locally instead of failing open.
func TestThrottleRedisDownCountsLocally(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	th := MustThrottle(t, rdb, "x:")
	for range 3 {
		if err := th.BeginLogin(context.Background(), "dave", "192.0.2.4"); err != nil {
			t.Fatal(err)
		}
	}
	wantThrottled(t, th.BeginLogin(context.Background(), "dave", "192.0.2.4"), 40*time.Millisecond)
	if th.breaker.Allow() {
		t.Error("the breaker did not open on a refused connection")
	}
}

// Unknown and known usernames get the same answers: 401 until the
// threshold, then the same 429, and the right password after the wait.
func TestLoginThrottledAlikeForUnknownUsers(t *testing.T) {
	ctx := context.Background()
	svc, err := NewService(NewGormStore(dbtest.SQLite(t)), nil, MustThrottle(t, nil, ""),
		Config{TokenTTL: time.Hour, TokenIdleTTL: time.Hour, BcryptCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	MustRegister(t, svc, "erin")
	for _, name := range []string{"erin", "nobody"} {
		for i := range 3 {
			_, err := svc.Login(ctx, "192.0.2.5", name, "wrong-password")
			if apperr.KindOf(err) != apperr.KindUnauthenticated {
				t.Fatalf("%s attempt %d: %v, want 401", name, i+1, err)
			}
		}
		_, err := svc.Login(ctx, "192.0.2.5", name, "password-erin")
		wantThrottled(t, err, 40*time.Millisecond)
	}
	time.Sleep(60 * time.Millisecond)
	if _, err := svc.Login(ctx, "192.0.2.5", "erin", "password-erin"); err != nil {
		t.Fatalf("the right password after the wait: %v", err)
	}
	// The success reset the account: three new failures before a wait.
	for range 3 {
		if _, err := svc.Login(ctx, "192.0.2.6", "erin", "wrong"); apperr.KindOf(err) != apperr.KindUnauthenticated {
			t.Fatalf("after the reset: %v, want 401", err)
		}
	}
}
