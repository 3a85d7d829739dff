package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// latencies times n sequential authenticated GETs of /users/me, each of
// which must answer 200, and returns them sorted.
func latencies(t *testing.T, base, token string, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		r := me(t, base, token)
		d := time.Since(start)
		if r.Status != 200 {
			t.Fatalf("GET /users/me = %d %s", r.Status, r.Raw)
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

func p50(ds []time.Duration) time.Duration { return ds[len(ds)/2] }

// A Redis outage costs a request nothing: the token cache, the rate limiter
// and the single-flight share one breaker, so that only the requests that
// find Redis gone wait (at most redis.timeout), and the rest skip it until
// a background probe sees it back. Measured with a private redis-server
// that the test kills and restarts, against the real binary in hybrid mode
// with the rate limiter on, on SQLite and on MariaDB.
func TestRedisOutageCostsNothingPerRequest(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { redisOutage(t) })
	t.Run("mariadb", func(t *testing.T) { redisOutage(t, "DATABASE_DRIVER=mysql", "DATABASE_DSN="+testenv.MySQL(t)) })
}

func redisOutage(t *testing.T, env ...string) {
	rp := testenv.StartRedis(t)
	prefix := "faults:" + testenv.RandomSuffix(6) + ":"
	s := servertest.Start(t, "", append([]string{"REDIS_ADDRS=" + rp.Addr, "REDIS_KEY_PREFIX=" + prefix,
		"XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=hybrid", "REDIS_TIMEOUT=300ms", "REDIS_BACKOFF=250ms",
		"RATE_LIMIT_ENABLED=true", "RATE_LIMIT_DEFAULT=100000"}, env...)...)
	token := MustRegisterLogin(t, s.URL, "outage").Token
	const n = 200
	latencies(t, s.URL, token, 20) // warm up: connections, the token cache
	before := latencies(t, s.URL, token, n)

	rp.Kill()
	// The first requests find Redis gone: each waits at most redis.timeout
	// (300 ms) for the token cache and the limiter, then the breaker is open.
	first := latencies(t, s.URL, token, 5)
	during := latencies(t, s.URL, token, n)
	if r := servertest.Do(t, "GET", s.URL+"/readyz", "", nil); r.Status != 503 || !strings.Contains(r.Raw, `"redis":"down`) {
		t.Errorf("/readyz during the outage = %d %s, want 503 naming redis", r.Status, r.Raw)
	}

	rp.Restart(t)
	rc := rp.Client(t)
	restarted := waitRecovered(t, s, token, rc, prefix)
	after := latencies(t, s.URL, token, n)

	// A frozen Redis (SIGSTOP) accepts nothing and answers nothing: the
	// requests that find it so wait redis.timeout, the rest skip it.
	rp.Freeze(t)
	firstFrozen := latencies(t, s.URL, token, 5)
	frozen := latencies(t, s.URL, token, n)
	rp.Thaw(t)
	rc.FlushAll(context.Background()) // the recovery check looks for keys written anew
	thawed := waitRecovered(t, s, token, rc, prefix)

	ratio := float64(p50(during)) / float64(p50(before))
	t.Logf("GET /users/me p50 over %d requests: before %v, killed %v (%.2fx), after restart %v, frozen %v (%.2fx); "+
		"slowest of the first 5 after the kill %v, after the freeze %v; back in use %v after the restart, %v after the thaw (redis.backoff 250ms)",
		n, p50(before), p50(during), ratio, p50(after), p50(frozen), float64(p50(frozen))/float64(p50(before)),
		first[len(first)-1], firstFrozen[len(firstFrozen)-1], restarted.Round(time.Millisecond), thawed.Round(time.Millisecond))
	// Generous bounds on a shared machine; the measured figures are in
	// docs/reliability.md. The outage this fixes cost 170-270 ms a request.
	if limit := 3*p50(before) + 5*time.Millisecond; p50(during) > limit {
		t.Errorf("p50 during the outage %v > %v (3x before %v + 5ms)", p50(during), limit, p50(before))
	}
	if limit := 3*p50(before) + 5*time.Millisecond; p50(frozen) > limit {
		t.Errorf("p50 while Redis is frozen %v > %v (3x before %v + 5ms)", p50(frozen), limit, p50(before))
	}
	for _, worst := range []time.Duration{first[len(first)-1], firstFrozen[len(firstFrozen)-1]} {
		if worst > 2*time.Second {
			t.Errorf("a request that found Redis gone took %v, want about redis.timeout (300 ms) at most", worst)
		}
	}
	if logs := s.Logs(); strings.Count(logs, "redis is down") < 2 || strings.Count(logs, "redis is back") < 2 {
		t.Errorf("the logs do not tell the outage and the recovery:\n%s", s.Logs())
	}
}

// waitRecovered waits until the server uses Redis again after an outage:
// the probe closes the breaker within redis.backoff, after which the token
// cache writes its key into the (fresh or flushed) Redis.
// It returns how long that took.
func waitRecovered(t *testing.T, s *servertest.Server, token string, rc *redis.Client, prefix string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for {
		latencies(t, s.URL, token, 1)
		keys, err := rc.Keys(context.Background(), prefix+"*auth:token:*").Result()
		if err == nil && len(keys) > 0 {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no token cache key in Redis 10 s after it came back (err %v)\n%s", err, s.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// login posts a login and returns the response and how long it took.
func loginAs(t *testing.T, base, name, password string) (servertest.Response, time.Duration) {
	t.Helper()
	start := time.Now()
	r := servertest.Do(t, "POST", base+api+"/users/login", "", map[string]string{"username": name, "password": password})
	return r, time.Since(start)
}

func retryAfter(t *testing.T, r servertest.Response) int {
	t.Helper()
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("429 with Retry-After %q: want whole seconds >= 1 (%s)", r.Header.Get("Retry-After"), r.Raw)
	}
	return secs
}

// guess sends 100 wrong passwords for name and checks that the first five
// are 401s (each spending a bcrypt compare) and the rest 429s with
// Retry-After (no bcrypt): it returns the median time of each kind.
func guess(t *testing.T, base, name string) (fail, refused time.Duration) {
	t.Helper()
	var fails, refusals []time.Duration
	for i := range 100 {
		r, d := loginAs(t, base, name, fmt.Sprintf("wrong-%d", i))
		switch {
		case i < 5 && r.Status == http.StatusUnauthorized:
			fails = append(fails, d)
		case i >= 5 && r.Status == http.StatusTooManyRequests && r.Code == "A000300":
			retryAfter(t, r)
			refusals = append(refusals, d)
		default:
			t.Fatalf("%s attempt %d: %d %s", name, i+1, r.Status, r.Raw)
		}
	}
	slices.Sort(fails)
	slices.Sort(refusals)
	return p50(fails), p50(refusals)
}

// Failed logins are throttled per account, the same for unknown usernames,
// without bcrypt work once refused, shared by two instances through Redis;
// the right password works after the wait; registrations are throttled per
// address.
func TestLoginThrottle(t *testing.T) {
	rp := testenv.StartRedis(t)
	// Two instances on one MariaDB database and one Redis, as deployed.
	env := []string{"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + testenv.MySQL(t), "REDIS_ADDRS=" + rp.Addr, "REDIS_KEY_PREFIX=throttle:" + testenv.RandomSuffix(6) + ":",
		"AUTH_BCRYPT_COST=10", // a real cost, so that skipped bcrypt work shows in the timings
		"AUTH_LOGIN_THROTTLE_ENABLED=true", "AUTH_LOGIN_THROTTLE_BASE_DELAY=1s",
		"AUTH_LOGIN_THROTTLE_ADDRESS_REGISTRATIONS=3"}
	a, b := servertest.Start(t, "", env...), servertest.Start(t, "", env...)
	MustRegisterLogin(t, a.URL, "victim") // registration 1 of 3 from 127.0.0.1

	// Shared through Redis: the other instance refuses at once, right after
	// the guesses on the first (the throttle's wait is only 1 s), with the
	// same message for the known and the unknown name.
	knownFail, knownRefused := guess(t, a.URL, "victim")
	rk, _ := loginAs(t, b.URL, "victim", "password-victim")
	unknownFail, unknownRefused := guess(t, a.URL, "ghost")
	ru, _ := loginAs(t, b.URL, "ghost", "password-victim")
	t.Logf("median login: known user 401 %v, 429 %v; unknown user 401 %v, 429 %v",
		knownFail, knownRefused, unknownFail, unknownRefused)
	if knownRefused*3 > knownFail || unknownRefused*3 > unknownFail {
		t.Errorf("a refused login takes over a third of a checked one: no bcrypt must run once throttled")
	}
	if r := float64(unknownFail) / float64(knownFail); r < 0.5 || r > 2 {
		t.Errorf("unknown user's 401 takes %.2fx a known user's: timing tells which accounts exist", r)
	}

	if rk.Status != 429 || ru.Status != 429 || rk.Message != ru.Message {
		t.Fatalf("instance b: victim %d %q, ghost %d %q; want the same 429", rk.Status, rk.Message, ru.Status, ru.Message)
	}

	// The right password works once the wait is over, and resets the count.
	time.Sleep(time.Duration(retryAfter(t, rk)) * time.Second)
	if r, _ := loginAs(t, b.URL, "victim", "password-victim"); r.Status != 200 {
		t.Fatalf("the right password after Retry-After: %d %s", r.Status, r.Raw)
	}
	for i := range 5 {
		if r, _ := loginAs(t, a.URL, "victim", "wrong"); r.Status != 401 {
			t.Fatalf("failure %d after a success: %d %s, want 401 (the success resets the account)", i+1, r.Status, r.Raw)
		}
	}

	// Registrations: three per address (one above), then 429 on either instance.
	for _, name := range []string{"second", "third"} {
		r := servertest.Do(t, "POST", a.URL+api+"/users/register", "", map[string]string{"username": name, "password": "password-" + name})
		wantStatus(t, r, 200, "0")
	}
	r := servertest.Do(t, "POST", b.URL+api+"/users/register", "", map[string]string{"username": "fourth", "password": "password-fourth"})
	wantStatus(t, r, 429, "A000300")
	retryAfter(t, r)
}
