package users

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// LocalTokenCache keeps cached tokens in process for a few seconds in
// front of a shared TokenCache (Redis), so that most requests authenticate
// without a round trip (issue 21). Every revocation and every change of a
// user deletes the shared entries and publishes their hashes on a Redis
// channel, to which every instance is subscribed: each drops its copies
// when the message arrives (redisx.Invalidations, which also says what it
// guarantees: copies only while subscribed, never from a read a drop
// overtook, and the delivery time of a message as the one window: a
// request reaching another instance within it after a logout has been
// answered may still pass, as it could with a token checked an instant
// before). The lifetime (ttl, a few seconds) bounds anything else.
type LocalTokenCache struct {
	shared  TokenCache
	ttl     time.Duration
	entries *lru.Cache[string, localToken]
	inv     *redisx.Invalidations
}

type localToken struct {
	value   []byte
	state   uint64 // the invalidations' state when it was copied
	expires time.Time
	// decoded is value decoded, made by the first lookup of the copy (a
	// copy made by Set) or with it (by a lookup's read).
	decoded *atomic.Pointer[cachedToken]
}

// LocalTokenTTL is how long an instance keeps a copy of a cached token.
const LocalTokenTTL = 2 * time.Second

// localTokenCacheSize bounds the copies (one per active token).
const localTokenCacheSize = 100_000

// NewLocalTokenCache returns a cache keeping copies of shared's entries for
// ttl while subscribed to the revocation channel on rdb (under prefix),
// and starts the subscription. Close stops it.
func NewLocalTokenCache(shared TokenCache, rdb redis.UniversalClient, prefix string, ttl time.Duration) *LocalTokenCache {
	entries, _ := lru.New[string, localToken](localTokenCacheSize)
	c := &LocalTokenCache{shared: shared, ttl: ttl, entries: entries}
	c.inv = redisx.NewInvalidations(rdb, prefix+"auth:revoked", tokenCopies{entries})
	return c
}

var _ TokenCache = (*LocalTokenCache)(nil)

// tokenCopies are the copies the invalidations drop.
type tokenCopies struct{ *lru.Cache[string, localToken] }

func (t tokenCopies) Remove(hashes ...string) {
	for _, h := range hashes {
		t.Cache.Remove(h)
	}
}

// Close stops the subscription; the cache then only reads through.
func (c *LocalTokenCache) Close() error { return c.inv.Close() }

// Live reports whether copies are being made and used.
func (c *LocalTokenCache) Live() bool { return c.inv.Live() }

// Get returns this instance's copy, else the shared entry (copied when no
// invalidation overtook the read).
func (c *LocalTokenCache) Get(ctx context.Context, hash string) ([]byte, bool, error) {
	e, ok, err := c.get(ctx, hash, false)
	return e.value, ok, err
}

// lookup is Get decoded: a copy is decoded once, not at every request
// (decoding was an eighth of the CPU of a cheap authenticated read).
func (c *LocalTokenCache) lookup(ctx context.Context, hash string) (cachedToken, bool) {
	e, ok, err := c.get(ctx, hash, true)
	if err != nil || !ok {
		return cachedToken{}, false
	}
	if ct := e.decoded.Load(); ct != nil {
		return *ct, true
	}
	var ct cachedToken
	if json.Unmarshal(e.value, &ct) != nil {
		return cachedToken{}, false
	}
	e.decoded.Store(&ct)
	return ct, true
}

// get returns the copy of hash, else the shared entry, copied when no
// invalidation overtook the read (decoded first when decode is set; an
// entry that does not decode is not copied).
func (c *LocalTokenCache) get(ctx context.Context, hash string, decode bool) (localToken, bool, error) {
	now := time.Now()
	if e, ok := c.entries.Get(hash); ok && c.inv.Valid(e.state) && now.Before(e.expires) {
		return e, true, nil
	}
	st := c.inv.Stamp()
	b, ok, err := c.shared.Get(ctx, hash)
	e := localToken{value: b, state: st.State(), expires: now.Add(c.ttl), decoded: new(atomic.Pointer[cachedToken])}
	if err != nil || !ok {
		return e, ok, err
	}
	if decode {
		var ct cachedToken
		if json.Unmarshal(b, &ct) != nil {
			return e, true, nil // lookup fails it again
		}
		e.decoded.Store(&ct)
	}
	c.inv.Keep(st, hash, func() { c.entries.Add(hash, e) })
	return e, true, nil
}

// Set writes the shared entry and keeps a copy (unless an invalidation
// overtook it, or the shared write failed).
func (c *LocalTokenCache) Set(ctx context.Context, hash string, value []byte, ttl time.Duration) error {
	now := time.Now()
	st := c.inv.Stamp()
	err := c.shared.Set(ctx, hash, value, ttl)
	if err != nil || !c.inv.Keep(st, hash, func() {
		c.entries.Add(hash, localToken{value: value, state: st.State(), expires: now.Add(min(c.ttl, ttl)),
			decoded: new(atomic.Pointer[cachedToken])})
	}) {
		c.entries.Remove(hash)
	}
	return err
}

// Delete deletes the shared entries, then tells every instance to drop its
// copies. Either failing is an error: a revoked token must stop working.
func (c *LocalTokenCache) Delete(ctx context.Context, hashes ...string) error {
	if len(hashes) == 0 {
		return nil
	}
	c.inv.Drop(hashes...)
	if err := c.shared.Delete(ctx, hashes...); err != nil {
		return err
	}
	return c.inv.Publish(ctx, hashes...)
}
