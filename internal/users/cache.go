package users

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisTokenCache keeps validated tokens in Redis, shared by every instance.
type RedisTokenCache struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisTokenCache returns a cache on rdb with keys under prefix.
func NewRedisTokenCache(rdb redis.UniversalClient, prefix string) *RedisTokenCache {
	return &RedisTokenCache{rdb: rdb, prefix: prefix + "auth:token:"}
}

var _ TokenCache = (*RedisTokenCache)(nil)

// Get returns the cached value of hash.
func (c *RedisTokenCache) Get(ctx context.Context, hash string) ([]byte, bool, error) {
	b, err := c.rdb.Get(ctx, c.prefix+hash).Bytes()
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
	return c.rdb.Set(ctx, c.prefix+hash, value, ttl).Err()
}

// Delete removes hashes. Keys are deleted one by one: on a cluster they live
// in different slots.
func (c *RedisTokenCache) Delete(ctx context.Context, hashes ...string) error {
	for _, h := range hashes {
		if err := c.rdb.Del(ctx, c.prefix+h).Err(); err != nil {
			return err
		}
	}
	return nil
}
