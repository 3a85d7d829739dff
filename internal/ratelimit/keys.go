package ratelimit

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// rateLibPrefix is what go-redis/redis_rate puts before every key it
// writes, outside the service's redis.key-prefix.
const rateLibPrefix = "rate:"

// ownKeys hands redis_rate the Redis client with its "rate:" taken off the
// keys again, so that the keys written are exactly the ones the limiter
// names: under the service's redis.key-prefix, like every other key.
type ownKeys struct{ redis.UniversalClient }

func (o ownKeys) keys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.TrimPrefix(k, rateLibPrefix)
	}
	return out
}

// Eval runs script on the limiter's own keys.
func (o ownKeys) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return o.UniversalClient.Eval(ctx, script, o.keys(keys), args...)
}

// EvalSha runs a loaded script on the limiter's own keys.
func (o ownKeys) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return o.UniversalClient.EvalSha(ctx, sha1, o.keys(keys), args...)
}

// EvalRO runs a read-only script on the limiter's own keys.
func (o ownKeys) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return o.UniversalClient.EvalRO(ctx, script, o.keys(keys), args...)
}

// EvalShaRO runs a loaded read-only script on the limiter's own keys.
func (o ownKeys) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return o.UniversalClient.EvalShaRO(ctx, sha1, o.keys(keys), args...)
}

// Del deletes the limiter's own keys (redis_rate's Reset).
func (o ownKeys) Del(ctx context.Context, keys ...string) *redis.IntCmd {
	return o.UniversalClient.Del(ctx, o.keys(keys)...)
}
