package users

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"
)

// LocalTokenCache keeps cached tokens in process for a few seconds in
// front of a shared TokenCache (Redis), so that most requests authenticate
// without a round trip (issue 21). Every revocation and every change of a
// user deletes the shared entries and publishes their hashes on a Redis
// channel, to which every instance is subscribed: each drops its copies
// when the message arrives.
//
// It fails safe: copies are made and used only while the subscription is
// up. When it is lost, every copy is dropped and none is made until the
// subscription is back (the messages published meanwhile are lost to this
// instance); a copy is also never made from a read that an invalidation
// overtook. What is left is the delivery time of a message (well under a
// millisecond on a LAN): a request reaching another instance within that
// time after a logout has been answered may still pass, as it could with a
// token checked an instant before. The lifetime (ttl, a few seconds) bounds
// anything else (a connection that died without an error).
type LocalTokenCache struct {
	shared  TokenCache
	rdb     redis.UniversalClient
	channel string
	ttl     time.Duration
	entries *lru.Cache[string, localToken]
	stop    context.CancelFunc
	done    chan struct{}

	mu sync.Mutex // protects the fields below, and orders copies with drops
	// live: the subscription is confirmed and no error has been seen since.
	live bool
	// epoch changes whenever the subscription is lost: copies of another
	// epoch are not used.
	epoch uint64
	// drops counts invalidations: a read overtaken by one is not copied.
	drops uint64
}

type localToken struct {
	value   []byte
	epoch   uint64
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
	ctx, cancel := context.WithCancel(context.Background())
	c := &LocalTokenCache{shared: shared, rdb: rdb, channel: prefix + "auth:revoked", ttl: ttl, entries: entries,
		stop: cancel, done: make(chan struct{})}
	go c.subscribe(ctx)
	return c
}

var _ TokenCache = (*LocalTokenCache)(nil)

// Close stops the subscription; the cache then only reads through.
func (c *LocalTokenCache) Close() error {
	c.stop()
	<-c.done
	return nil
}

// Live reports whether copies are being made and used.
func (c *LocalTokenCache) Live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

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
	c.mu.Lock()
	live, epoch, drops := c.live, c.epoch, c.drops
	c.mu.Unlock()
	if live {
		if e, ok := c.entries.Get(hash); ok && e.epoch == epoch && now.Before(e.expires) {
			return e, true, nil
		}
	}
	b, ok, err := c.shared.Get(ctx, hash)
	e := localToken{value: b, epoch: epoch, expires: now.Add(c.ttl), decoded: new(atomic.Pointer[cachedToken])}
	if err != nil || !ok || !live {
		return e, ok, err
	}
	if decode {
		var ct cachedToken
		if json.Unmarshal(b, &ct) != nil {
			return e, true, nil // lookup fails it again
		}
		e.decoded.Store(&ct)
	}
	c.mu.Lock()
	if c.live && c.epoch == epoch && c.drops == drops {
		c.entries.Add(hash, e)
	}
	c.mu.Unlock()
	return e, true, nil
}

// Set writes the shared entry and keeps a copy (unless an invalidation
// overtook it, or the shared write failed).
func (c *LocalTokenCache) Set(ctx context.Context, hash string, value []byte, ttl time.Duration) error {
	now := time.Now()
	c.mu.Lock()
	live, epoch, drops := c.live, c.epoch, c.drops
	c.mu.Unlock()
	err := c.shared.Set(ctx, hash, value, ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && live && c.live && c.epoch == epoch && c.drops == drops {
		c.entries.Add(hash, localToken{value: value, epoch: epoch, expires: now.Add(min(c.ttl, ttl)),
			decoded: new(atomic.Pointer[cachedToken])})
	} else {
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
	c.drop(hashes...)
	if err := c.shared.Delete(ctx, hashes...); err != nil {
		return err
	}
	if err := c.rdb.Publish(ctx, c.channel, strings.Join(hashes, " ")).Err(); err != nil {
		return err
	}
	c.drop(hashes...) // a copy made from a read before the shared delete
	return nil
}

// drop removes this instance's copies of hashes; reads in flight are not
// copied.
func (c *LocalTokenCache) drop(hashes ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drops++
	for _, h := range hashes {
		c.entries.Remove(h)
	}
}

// setLive records the subscription's state: confirmed (up), or lost
// (every copy goes, a new epoch begins).
func (c *LocalTokenCache) setLive(up bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !up {
		c.entries.Purge()
		c.epoch++
	} else if !c.live {
		c.epoch++ // copies of before the loss stay unused
	}
	c.live = up
}

// pingEvery is how often a quiet subscription is checked.
const pingEvery = 5 * time.Second

// subscribe keeps the subscription up until ctx ends. go-redis reconnects
// and subscribes again after an error; the confirmation of that
// subscription makes the cache live again.
func (c *LocalTokenCache) subscribe(ctx context.Context) {
	defer close(c.done)
	ps := c.rdb.Subscribe(ctx, c.channel)
	defer ps.Close()
	go func() { <-ctx.Done(); _ = ps.Close() }() // unblocks a receive
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, pingEvery)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				if perr := ps.Ping(ctx); perr == nil {
					continue // the answer arrives as a *redis.Pong
				}
			}
			c.setLive(false)
			if ctx.Err() == nil {
				select {
				case <-time.After(200 * time.Millisecond): // before reconnecting
				case <-ctx.Done():
				}
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			c.setLive(m.Kind == "subscribe" && m.Channel == c.channel)
		case *redis.Message:
			c.drop(strings.Fields(m.Payload)...)
		}
	}
	c.setLive(false)
}
