package users

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// ThrottleConfig sets when logins and registrations are slowed down. A
// counter that reaches its threshold locks its key for BaseDelay, and each
// further counted attempt doubles the lock, up to MaxDelay. An attempt
// made while its key is locked is refused at once (no bcrypt work) and not
// counted.
type ThrottleConfig struct {
	// AccountFailures is the number of failed logins of one account (by
	// name, whether or not it exists) after which its logins wait.
	AccountFailures int
	// AddressFailures is the number of failed logins from one client
	// address (any account) after which its logins wait.
	AddressFailures int
	// AddressRegistrations is the number of registrations from one client
	// address after which its registrations wait.
	AddressRegistrations int
	BaseDelay            time.Duration
	MaxDelay             time.Duration
	// Window is how long a counter is kept after its last attempt (at least
	// as long as its lock).
	Window time.Duration
}

// DefaultThrottleConfig is the production policy: 5 failures per account,
// 20 per address, 10 registrations per address, then 1 s doubling to 15 min.
func DefaultThrottleConfig() ThrottleConfig {
	return ThrottleConfig{AccountFailures: 5, AddressFailures: 20, AddressRegistrations: 10,
		BaseDelay: time.Second, MaxDelay: 15 * time.Minute, Window: time.Hour}
}

// ThrottledError is a login or registration refused until RetryAfter has
// passed. It is the same for known and unknown usernames.
type ThrottledError struct {
	RetryAfter time.Duration
	what       string
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many %s: retry in %d s", e.what, retryAfterSeconds(e.RetryAfter))
}

// retryAfterSeconds rounds a wait up to whole seconds (at least 1), as the
// Retry-After header needs.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// Throttle counts login failures per account and per client address, and
// registrations per address, in Redis so that every instance shares them.
// Without Redis, or while its breaker says Redis is down, each instance
// counts locally: an outage neither opens the door nor locks everyone out.
type Throttle struct {
	cfg     ThrottleConfig
	rdb     redis.UniversalClient // nil: local counters only
	prefix  string
	breaker *redisx.Breaker
	timeout time.Duration

	now   func() time.Time
	local *localCounters
}

// NewThrottle returns a throttle. rdb may be nil (local counters only);
// keys go under prefix; each Redis command gets timeout, and its failures
// open breaker (nil: one of its own).
func NewThrottle(cfg ThrottleConfig, rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) (*Throttle, error) {
	if cfg.AccountFailures < 1 || cfg.AddressFailures < 1 || cfg.AddressRegistrations < 1 {
		return nil, errors.New("users: throttle thresholds must be at least 1")
	}
	if cfg.BaseDelay <= 0 || cfg.MaxDelay < cfg.BaseDelay || cfg.Window <= 0 {
		return nil, errors.New("users: throttle delays must be positive, max-delay at least base-delay, window positive")
	}
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	local, _ := lru.New[string, *counter](100_000)
	return &Throttle{cfg: cfg, rdb: rdb, prefix: prefix + "throttle:", breaker: breaker, timeout: timeout,
		now: time.Now, local: &localCounters{m: local}}, nil
}

// op is what one counter operation does.
type op string

const (
	opCheck op = "check" // report the lock, count nothing
	opTake  op = "take"  // refuse while locked, else count this attempt
	opCount op = "count" // count (a failure found afterwards)
)

func accountKey(username string) string {
	// Hashed: any string may be sent as a username, and keys stay short.
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(username))))
	return "acct:" + hex.EncodeToString(sum[:16])
}

func addressKey(kind, addr string) string { return kind + ":" + addr }

// BeginLogin is called before a password is checked: it refuses the attempt
// while the address or the account is locked, and otherwise counts it as a
// failure of the account until SucceedLogin says otherwise, so that parallel
// guesses cannot all pass before the first one is counted.
func (t *Throttle) BeginLogin(ctx context.Context, username, addr string) error {
	if wait := t.do(ctx, opCheck, addressKey("addr", addr), t.cfg.AddressFailures); wait > 0 {
		return &ThrottledError{RetryAfter: wait, what: "failed logins from this address"}
	}
	if wait := t.do(ctx, opTake, accountKey(username), t.cfg.AccountFailures); wait > 0 {
		return &ThrottledError{RetryAfter: wait, what: "failed logins for this account"}
	}
	return nil
}

// FailLogin counts a failed login against the address (the account's
// failure was counted by BeginLogin).
func (t *Throttle) FailLogin(ctx context.Context, addr string) {
	t.do(ctx, opCount, addressKey("addr", addr), t.cfg.AddressFailures)
}

// SucceedLogin resets the account's failures. The address keeps its count:
// an attacker must not clear it by logging in to an account of their own.
func (t *Throttle) SucceedLogin(ctx context.Context, username string) {
	key := accountKey(username)
	t.local.reset(t.prefix + key)
	if t.rdb != nil && t.breaker.Allow() {
		_ = t.redis(ctx, func(ctx context.Context) error { return t.rdb.Del(ctx, t.prefix+key).Err() })
	}
}

// BeginRegistration counts a registration from addr, refusing it while
// the address is locked.
func (t *Throttle) BeginRegistration(ctx context.Context, addr string) error {
	if wait := t.do(ctx, opTake, addressKey("reg", addr), t.cfg.AddressRegistrations); wait > 0 {
		return &ThrottledError{RetryAfter: wait, what: "registrations from this address"}
	}
	return nil
}

// do runs o on key in Redis, or locally without Redis or while it is down,
// and returns how long key is locked (0: the attempt may go on).
func (t *Throttle) do(ctx context.Context, o op, key string, threshold int) time.Duration {
	if t.rdb != nil && t.breaker.Allow() {
		var ms int64
		err := t.redis(ctx, func(ctx context.Context) (err error) {
			ms, err = counterScript.Run(ctx, t.rdb, []string{t.prefix + key}, string(o), threshold,
				t.cfg.BaseDelay.Milliseconds(), t.cfg.MaxDelay.Milliseconds(), t.cfg.Window.Milliseconds()).Int64()
			return err
		})
		if err == nil {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return t.local.do(t.now(), o, t.prefix+key, threshold, t.cfg)
}

// redis runs one command under the timeout and tells the breaker.
func (t *Throttle) redis(ctx context.Context, cmd func(context.Context) error) error {
	return t.breaker.Do(ctx, t.timeout, nil, cmd)
}

// lockFor is the lock after the n-th counted attempt: none below the
// threshold, then BaseDelay doubling per attempt up to MaxDelay.
func lockFor(n, threshold int, cfg ThrottleConfig) time.Duration {
	if n < threshold {
		return 0
	}
	d := cfg.BaseDelay << min(n-threshold, 40)
	if d <= 0 || d > cfg.MaxDelay {
		return cfg.MaxDelay
	}
	return d
}

// counterScript is the Redis side of do, on one key (so it runs on any
// cluster node): a hash of the count n and the lock's end, in Redis's
// clock (instances' clocks may differ). ARGV: op, threshold, base ms, max
// ms, window ms. It returns the milliseconds the key is still locked.
var counterScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local locked = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if ARGV[1] ~= 'count' and locked > now then return locked - now end
if ARGV[1] == 'check' then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local threshold = tonumber(ARGV[2])
local ttl = tonumber(ARGV[5])
if n >= threshold then
  local d = tonumber(ARGV[4])
  local e = n - threshold
  if e < 40 then d = math.min(d, tonumber(ARGV[3]) * 2 ^ e) end
  redis.call('HSET', KEYS[1], 'until', now + d)
  if d > ttl then ttl = d end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 0
`)

// counter is one local count.
type counter struct {
	n       int
	until   time.Time // locked until
	expires time.Time // forgotten after
}

// localCounters is the fallback of one instance, bounded by an LRU.
type localCounters struct {
	mu sync.Mutex // protects m's entries
	m  *lru.Cache[string, *counter]
}

func (l *localCounters) do(now time.Time, o op, key string, threshold int, cfg ThrottleConfig) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.m.Get(key)
	if !ok || !now.Before(c.expires) {
		c = &counter{}
	}
	if o != opCount && now.Before(c.until) {
		return c.until.Sub(now)
	}
	if o == opCheck {
		return 0
	}
	c.n++
	ttl := cfg.Window
	if d := lockFor(c.n, threshold, cfg); d > 0 {
		c.until = now.Add(d)
		ttl = max(ttl, d)
	}
	c.expires = now.Add(ttl)
	l.m.Add(key, c)
	return 0
}

func (l *localCounters) reset(key string) { l.m.Remove(key) }
