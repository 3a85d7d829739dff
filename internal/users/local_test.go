package users

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// countingCache counts the reads that reach the shared cache.
type countingCache struct {
	TokenCache
	mu   sync.Mutex // protects gets
	gets int
}

func (c *countingCache) Get(ctx context.Context, hash string) ([]byte, bool, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.TokenCache.Get(ctx, hash)
}

func (c *countingCache) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.gets }

// mustLive waits for c's subscription to be confirmed.
func mustLive(t *testing.T, c *LocalTokenCache) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !c.Live(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the revocation channel was not subscribed within 5 s")
		}
	}
}

// eventually retries check until it passes, for 2 s: a message published
// by another instance arrives asynchronously. The copies live for a minute
// in this test, so only the message can make check pass.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %v after 2 s (the invalidation did not arrive)", what, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Two instances with copies in process: a token is read from Redis once,
// then from memory; a logout, a profile change, an admin grant and a
// password change made on one instance end the other's copies. On one
// Redis and on a Redis Cluster (where the channel's messages cross nodes).
func TestLocalTokenCacheAcrossInstances(t *testing.T) {
	t.Run("redis", func(t *testing.T) {
		r, prefix := testenv.Redis(t)
		testLocalTokenCacheAcrossInstances(t, r, prefix)
	})
	t.Run("cluster", func(t *testing.T) {
		r, prefix := testenv.RedisCluster(t)
		testLocalTokenCacheAcrossInstances(t, r, prefix)
	})
}

func testLocalTokenCacheAcrossInstances(t *testing.T, r redis.UniversalClient, prefix string) {
	ctx := context.Background()
	gdb := dbtest.SQLite(t)
	instance := func() (*Service, *countingCache) {
		shared := &countingCache{TokenCache: NewRedisTokenCache(r, prefix, nil, time.Second)}
		local := NewLocalTokenCache(shared, r, prefix, time.Minute)
		t.Cleanup(func() { _ = local.Close() })
		mustLive(t, local)
		svc, _ := MustService(t, gdb, local)
		svc.now = func() time.Time { return time.Now().UTC() } // the caches' lifetimes are real time
		return svc, shared
	}
	a, _ := instance()
	b, bShared := instance()
	MustRegister(t, a, "root") // the first account is admin
	u := MustRegister(t, a, "bob")
	tok := MustLogin(t, a, "bob")

	if _, err := b.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	before := bShared.count()
	if _, err := b.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if n := bShared.count() - before; n != 0 {
		t.Errorf("a token copied in memory made %d Redis reads, want 0", n)
	}

	name := "Bob Builder"
	if _, err := a.Update(ctx, u.ID, tok, UpdateInput{RealName: &name}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "profile change", func() error {
		got, err := b.Authenticate(ctx, tok)
		if err == nil && got.RealName != name {
			err = apperr.Invalid("real name %q", got.RealName)
		}
		return err
	})
	if _, err := a.GrantAdmin(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "admin grant", func() error {
		got, err := b.Authenticate(ctx, tok)
		if err == nil && !got.IsAdmin {
			err = apperr.Invalid("not admin yet")
		}
		return err
	})

	// A password change revokes the user's other tokens.
	other := MustLogin(t, a, "bob")
	if _, err := b.Authenticate(ctx, other); err != nil {
		t.Fatal(err)
	}
	pw := "password-new-bob"
	if _, err := a.Update(ctx, u.ID, tok, UpdateInput{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "password change", func() error { return revoked(b, other) })
	if _, err := b.Authenticate(ctx, tok); err != nil {
		t.Fatalf("the token that changed the password: %v, want it kept", err)
	}

	if err := a.Logout(ctx, tok); err != nil {
		t.Fatal(err)
	}
	eventually(t, "logout", func() error { return revoked(b, tok) })
}

// revoked is nil when svc refuses tok as unauthenticated.
func revoked(svc *Service, tok string) error {
	_, err := svc.Authenticate(context.Background(), tok)
	if apperr.KindOf(err) == apperr.KindUnauthenticated {
		return nil
	}
	if err == nil {
		return apperr.Invalid("token still accepted")
	}
	return err
}

// Without the subscription nothing is kept in memory: every request reads
// the shared cache.
func TestLocalTokenCacheWithoutSubscription(t *testing.T) {
	r, prefix := testenv.Redis(t)
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = down.Close() })
	ctx := context.Background()
	shared := &countingCache{TokenCache: NewRedisTokenCache(r, prefix, nil, time.Second)}
	local := NewLocalTokenCache(shared, down, prefix, time.Minute) // its channel cannot be subscribed
	t.Cleanup(func() { _ = local.Close() })
	svc, _ := MustService(t, dbtest.SQLite(t), local)
	svc.now = func() time.Time { return time.Now().UTC() }
	MustRegister(t, svc, "bob")
	tok := MustLogin(t, svc, "bob")
	for i := range 3 {
		before := shared.count()
		if _, err := svc.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if n := shared.count() - before; n != 1 {
			t.Fatalf("request %d: %d reads of the shared cache, want 1 (no copy without the subscription)", i, n)
		}
	}
	if local.Live() {
		t.Fatal("live without a subscription")
	}
}

// Losing the subscription drops every copy and stops making them; once
// Redis is back and the channel subscribed again, copies resume.
func TestLocalTokenCacheSubscriptionLost(t *testing.T) {
	proc := testenv.StartRedis(t)
	r := proc.Client(t)
	ctx := context.Background()
	shared := &countingCache{TokenCache: NewRedisTokenCache(r, "p:", redisx.NewBreaker(100*time.Millisecond), 200*time.Millisecond)}
	local := NewLocalTokenCache(shared, r, "p:", time.Minute)
	t.Cleanup(func() { _ = local.Close() })
	mustLive(t, local)
	if err := local.Set(ctx, "h", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	before := shared.count()
	if b, ok, err := local.Get(ctx, "h"); err != nil || !ok || string(b) != "v" || shared.count() != before {
		t.Fatalf("copy: %q %v %v, %d shared reads", b, ok, err, shared.count()-before)
	}

	proc.Kill()
	eventually(t, "subscription lost", func() error {
		if local.Live() {
			return apperr.Invalid("still live")
		}
		return nil
	})
	if _, ok, _ := local.Get(ctx, "h"); ok {
		t.Fatal("a copy was used after the subscription was lost")
	}

	proc.Restart(t) // empty: the shared entry is gone too
	for deadline := time.Now().Add(10 * time.Second); !local.Live(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not subscribed again 10 s after Redis came back")
		}
	}
	if _, ok, _ := local.Get(ctx, "h"); ok {
		t.Fatal("after the restart: a hit; want a miss (Redis lost the entry, the copy is gone)")
	}
	// The shared cache's breaker skips Redis for a while after the failure.
	for deadline := time.Now().Add(10 * time.Second); local.Set(ctx, "h", []byte("v2"), time.Minute) != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the shared cache did not take a write 10 s after Redis came back")
		}
	}
	before = shared.count()
	if b, ok, err := local.Get(ctx, "h"); err != nil || !ok || string(b) != "v2" || shared.count() != before {
		t.Fatalf("copy after the restart: %q %v %v, %d shared reads", b, ok, err, shared.count()-before)
	}
}

// lookup decodes a copy once and serves the decoded token from memory; a
// drop ends it like any copy, and an entry that does not decode is a miss.
func TestLocalTokenCacheLookupDecodesOnce(t *testing.T) {
	r, prefix := testenv.Redis(t)
	ctx := context.Background()
	shared := &countingCache{TokenCache: NewRedisTokenCache(r, prefix, nil, time.Second)}
	local := NewLocalTokenCache(shared, r, prefix, time.Minute)
	t.Cleanup(func() { _ = local.Close() })
	mustLive(t, local)

	want := cachedToken{UserID: "u1", ExpiresAt: time.Now().Add(time.Hour).UTC(), User: &User{ID: "u1", Username: "ann"}}
	b, _ := json.Marshal(want)
	if err := shared.Set(ctx, "h", b, time.Minute); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, ok := local.lookup(ctx, "h")
		if !ok || got.UserID != "u1" || got.User == nil || got.User.Username != "ann" || !got.ExpiresAt.Equal(want.ExpiresAt) {
			t.Fatalf("lookup %d: %+v %v", i, got, ok)
		}
	}
	if n := shared.count(); n != 1 {
		t.Fatalf("%d shared reads for 3 lookups; want 1 (then the copy)", n)
	}
	e, _ := local.entries.Get("h")
	if e.decoded.Load() == nil {
		t.Fatal("the copy was not kept decoded")
	}

	if err := local.Delete(ctx, "h"); err != nil {
		t.Fatal(err)
	}
	if _, ok := local.lookup(ctx, "h"); ok {
		t.Fatal("a deleted token was still found")
	}

	if err := local.Set(ctx, "bad", []byte("{not json"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, ok := local.lookup(ctx, "bad"); ok {
		t.Fatal("an entry that does not decode was found")
	}
}
