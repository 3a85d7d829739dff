package users

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// RedisTokenCache keeps validated tokens in Redis, shared by every instance.
// While its breaker says Redis is down, Get and Set skip Redis at once (a
// miss: the database answers), so an outage costs a request nothing but
// the database lookup the cache saves; Delete still tries, since a revoked
// token left in the cache would keep working.
type RedisTokenCache struct {
	rdb     redis.UniversalClient
	prefix  string
	breaker *redisx.Breaker
	timeout time.Duration
}

// errRedisSkipped is returned while the breaker skips Redis.
var errRedisSkipped = errors.New("redis is down: skipped")

// NewRedisTokenCache returns a cache on rdb with keys under prefix. Each
// command gets timeout (none when 0); its failures open breaker, which may
// be shared with Redis's other users (nil: a breaker of its own that skips
// Redis for 5 s after a failure).
func NewRedisTokenCache(rdb redis.UniversalClient, prefix string, breaker *redisx.Breaker, timeout time.Duration) *RedisTokenCache {
	if breaker == nil {
		breaker = redisx.NewBreaker(5 * time.Second)
	}
	return &RedisTokenCache{rdb: rdb, prefix: prefix + "auth:token:", breaker: breaker, timeout: timeout}
}

var _ TokenCache = (*RedisTokenCache)(nil)

// do runs one command under the timeout and reports its outcome to the
// breaker; the caller's own cancellation is not Redis's failure.
func (c *RedisTokenCache) do(ctx context.Context, cmd func(ctx context.Context) error) error {
	return c.breaker.Do(ctx, c.timeout, redis.Nil, cmd)
}

// Get returns the cached value of hash.
func (c *RedisTokenCache) Get(ctx context.Context, hash string) ([]byte, bool, error) {
	if !c.breaker.Allow() {
		return nil, false, errRedisSkipped
	}
	var b []byte
	err := c.do(ctx, func(ctx context.Context) (err error) {
		b, err = c.rdb.Get(ctx, c.prefix+hash).Bytes()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Set caches value for ttl.
func (c *RedisTokenCache) Set(ctx context.Context, hash string, value []byte, ttl time.Duration) error {
	if !c.breaker.Allow() {
		return errRedisSkipped
	}
	return c.do(ctx, func(ctx context.Context) error { return c.rdb.Set(ctx, c.prefix+hash, value, ttl).Err() })
}

// Delete removes hashes, even while the breaker is open. Keys are deleted
// one by one: on a cluster they live in different slots.
func (c *RedisTokenCache) Delete(ctx context.Context, hashes ...string) error {
	for _, h := range hashes {
		if err := c.do(ctx, func(ctx context.Context) error { return c.rdb.Del(ctx, c.prefix+h).Err() }); err != nil {
			return err
		}
	}
	return nil
}
