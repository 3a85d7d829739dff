package redisx

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Copies is an instance's in-process copies of shared data, kept by key.
type Copies interface {
	// Remove drops the copies of keys.
	Remove(keys ...string)
	// Purge drops every copy.
	Purge()
}

// Invalidations lets every instance keep in-process copies of data shared
// through the database or Redis, and drop them when the data changes: the
// instance that changes it publishes the keys on a Redis channel to which
// every instance is subscribed, and each drops its copies of those keys
// when the message arrives.
//
// It fails safe: copies are made and used only while the subscription is
// up. When it is lost every copy is dropped, and none is made until the
// subscription is confirmed again (the messages published meanwhile are
// lost to this instance). A copy is never made from a read that a drop of
// its key overtook (Stamp before the read, Keep after it). What is left is
// the time a message takes to be handled by the other instances once
// PUBLISH has answered (Redis has written it to their connections by
// then): a request reaching another instance within that time (well under
// a millisecond on a LAN) may still see the copy. The copies' own lifetime
// bounds anything else (a connection that died without an error).
type Invalidations struct {
	rdb     redis.UniversalClient
	channel string
	copies  Copies
	stop    context.CancelFunc
	done    chan struct{}

	// state is epoch<<1 | live, where live means the subscription is
	// confirmed and no error has been seen since, and epoch changes
	// whenever it is lost or regained: copies of another state are not
	// used. Read without the lock on every use of a copy.
	state atomic.Uint64

	mu sync.Mutex // orders Keep with drops and with changes of state
	// seq counts the drops.
	seq uint64
	// dropped holds the seq of each key's last drop, since forgotten: a
	// read stamped before forgotten is not copied (dropped is cleared when
	// it grows too big, rather than tracking its oldest entries).
	dropped   map[string]uint64
	forgotten uint64
}

// droppedKeys bounds the keys whose last drop is remembered.
const droppedKeys = 4096

// NewInvalidations subscribes to channel on rdb and returns the
// invalidations of copies. Close stops the subscription.
func NewInvalidations(rdb redis.UniversalClient, channel string, copies Copies) *Invalidations {
	ctx, cancel := context.WithCancel(context.Background())
	i := &Invalidations{rdb: rdb, channel: channel, copies: copies, stop: cancel, done: make(chan struct{}),
		dropped: map[string]uint64{}}
	go i.subscribe(ctx)
	return i
}

// Close stops the subscription: no copy is used or made afterwards.
func (i *Invalidations) Close() error {
	i.stop()
	<-i.done
	return nil
}

// Live reports whether copies are being made and used.
func (i *Invalidations) Live() bool { return i.state.Load()&1 == 1 }

// Stamp is the moment a read began, for Keep.
type Stamp struct {
	state, seq uint64
}

// State is what a copy made from the stamped read records, for Valid.
func (s Stamp) State() uint64 { return s.state }

// Stamp returns the moment a read of shared data begins.
func (i *Invalidations) Stamp() Stamp {
	i.mu.Lock()
	defer i.mu.Unlock()
	return Stamp{state: i.state.Load(), seq: i.seq}
}

// Valid reports whether a copy made at state (Stamp.State) may be used:
// the subscription has been up all along since. Drops of its key remove
// the copy itself.
func (i *Invalidations) Valid(state uint64) bool {
	return state&1 == 1 && i.state.Load() == state
}

// Keep runs add, which makes the copy of key from a read begun at st,
// unless the subscription was down or has been lost since, or key has been
// dropped since. It reports whether add ran. add runs under a lock that
// drops also take: a drop comes before it (and the copy is not made) or
// after it (and removes the copy).
func (i *Invalidations) Keep(st Stamp, key string, add func()) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.Valid(st.state) || st.seq < i.forgotten {
		return false
	}
	if d, ok := i.dropped[key]; ok && d > st.seq {
		return false
	}
	add()
	return true
}

// Drop removes this instance's copies of keys; reads of them in flight are
// not copied.
func (i *Invalidations) Drop(keys ...string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.seq++
	if len(i.dropped)+len(keys) > droppedKeys {
		clear(i.dropped)
		i.forgotten = i.seq
	}
	for _, k := range keys {
		i.dropped[k] = i.seq
	}
	i.copies.Remove(keys...)
}

// Publish drops the copies of keys here and tells every instance to drop
// theirs. Keys must not hold spaces.
func (i *Invalidations) Publish(ctx context.Context, keys ...string) error {
	return i.PublishVia(ctx, i.rdb.Process, keys...)
}

// PublishVia is Publish with the PUBLISH command sent by process (a
// pipeline's, or one under a breaker).
func (i *Invalidations) PublishVia(ctx context.Context, process func(context.Context, redis.Cmder) error, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	i.Drop(keys...)
	err := process(ctx, redis.NewIntCmd(ctx, "publish", i.channel, strings.Join(keys, " ")))
	i.Drop(keys...) // a copy made from a read that began before the change
	return err
}

// setLive records the subscription's state: confirmed (up), or lost
// (every copy goes, a new epoch begins).
func (i *Invalidations) setLive(up bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	st := i.state.Load()
	live, epoch := st&1 == 1, st>>1
	if !up {
		i.copies.Purge()
		epoch++
	} else if !live {
		epoch++ // copies of before the loss stay unused
	}
	var bit uint64
	if up {
		bit = 1
	}
	i.state.Store(epoch<<1 | bit)
}

// pingEvery is how often a quiet subscription is checked.
const pingEvery = 5 * time.Second

// subscribe keeps the subscription up until ctx ends. go-redis reconnects
// and subscribes again after an error; the confirmation of that
// subscription makes the copies live again.
func (i *Invalidations) subscribe(ctx context.Context) {
	defer close(i.done)
	ps := i.rdb.Subscribe(ctx, i.channel)
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
			i.setLive(false)
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
			i.setLive(m.Kind == "subscribe" && m.Channel == i.channel)
		case *redis.Message:
			i.Drop(strings.Fields(m.Payload)...)
		}
	}
	i.setLive(false)
}
