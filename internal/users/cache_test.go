package users

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// While the shared breaker is open the cache misses at once without
// touching Redis (the database answers); revocations still go to Redis.
func TestTokenCacheSkipsRedisWhileBreakerOpen(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	br := redisx.NewBreaker(time.Hour)
	c := NewRedisTokenCache(rdb, prefix, br, time.Second)
	ctx := context.Background()
	if err := c.Set(ctx, "h", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	br.Fail(errors.New("the limiter saw Redis fail"))
	if _, ok, err := c.Get(ctx, "h"); ok || err == nil {
		t.Fatalf("Get while open = ok %v, err %v; want a skipped miss", ok, err)
	}
	if err := c.Delete(ctx, "h"); err != nil {
		t.Fatalf("Delete while open: %v (revocations are never skipped)", err)
	}
	if !br.Allow() {
		t.Fatal("a successful Delete did not close the breaker")
	}
	if _, ok, err := c.Get(ctx, "h"); ok || err != nil {
		t.Fatalf("Get after the delete = ok %v, err %v; want a plain miss", ok, err)
	}
}

// A dead Redis opens the breaker on the first failure, and each command
// waits at most the timeout.
func TestTokenCacheRedisDownOpensBreaker(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	br := redisx.NewBreaker(time.Hour)
	c := NewRedisTokenCache(rdb, "x:", br, 200*time.Millisecond)
	start := time.Now()
	if _, _, err := c.Get(context.Background(), "h"); err == nil {
		t.Fatal("Get on a dead Redis succeeded")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Get on a dead Redis took %v, want at most the 200ms timeout", d)
	}
	if br.Allow() {
		t.Fatal("the breaker is still closed after a failure")
	}
}
