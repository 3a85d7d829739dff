package singleflight

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// reader is the process's shared stream reader: it serves every Redis
// follower of the Group and hands each completion event to the followers of
// that stream (fan-out). Registrations are one-shot: a waiter receives the
// first event newer than the stream id it registered with, then is dropped.
//
// On a single node (or a failover client) one goroutine runs one
// XREAD BLOCK over every awaited stream on a dedicated connection. When the
// set of streams changes while the XREAD blocks, the registering follower
// adds an entry to the reader's private wake stream, which the XREAD also
// reads, so the read returns and is re-issued with the new set. Unlike
// CLIENT UNBLOCK, a wake that arrives before the XREAD is sent is not lost.
//
// XREAD cannot span hash slots on Redis Cluster, and a blocking read per
// flight would hold a pooled connection per awaited flight. There the
// completion script also PUBLISHes the stream's name on a doorbell channel
// (cluster-wide), one subscription per process listens, and the reader then
// reads the rung stream without blocking. A registration reads its stream
// once too, so a completion between acquire and registration is not missed.
type reader struct {
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient // non-nil on Redis Cluster
	bell    string               // doorbell channel (cluster)
	wakeKey string               // wake stream (single node)
	block   time.Duration
	retry   time.Duration // pause after a failed read
	timeout time.Duration // deadline of the reader's non-blocking commands

	mu sync.Mutex // protects the fields below and every waiter's registration
	// streams maps each awaited stream to its waiters.
	streams map[string]map[*waiter]struct{}
	// blocked is true while the single-node XREAD built from streams is outstanding.
	blocked bool
	started bool // the reader goroutine runs
	closed  bool

	idle  chan struct{}  // wakes the single-node loop waiting with no streams
	ready chan struct{}  // closed once the cluster's doorbell subscription is active
	wg    sync.WaitGroup // the reader goroutine
	done  chan struct{}  // closed by close
}

// waiter is one follower's one-shot registration.
type waiter struct {
	r      *reader
	stream string
	lastID string // read from after this id
	// C receives the fields of the first completion event newer than lastID.
	C chan map[string]any
}

func newReader(rdb redis.UniversalClient, prefix, id string, block, retry, timeout time.Duration) *reader {
	r := &reader{
		rdb: rdb, block: block, retry: retry, timeout: timeout,
		wakeKey: prefix + "sf:wake:" + id,
		streams: make(map[string]map[*waiter]struct{}),
		idle:    make(chan struct{}, 1), ready: make(chan struct{}), done: make(chan struct{}),
	}
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		r.cluster, r.bell = cc, doorbell(prefix)
	}
	return r
}

// doorbell is the cluster's completion channel of prefix.
func doorbell(prefix string) string { return prefix + "sf:done" }

// register delivers the first event of k's stream newer than lastID.
func (r *reader) register(k flightKeys, lastID string) *waiter {
	w := &waiter{r: r, stream: k.stream, lastID: lastID, C: make(chan map[string]any, 1)}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return w // never fires; the follower still polls
	}
	ws := r.streams[k.stream]
	if ws == nil {
		ws = make(map[*waiter]struct{})
		r.streams[k.stream] = ws
	}
	ws[w] = struct{}{}
	start := !r.started
	if start {
		r.started = true
		r.wg.Add(1) // the loop, or the doorbell listener; before close can Wait
	}
	blocked := r.blocked
	r.mu.Unlock()

	if r.cluster != nil {
		if start {
			r.subscribe()
		}
		select {
		case <-r.ready:
		case <-r.done:
		}
		r.fetch(k.stream) // a completion before the doorbell could ring for us
		return w
	}
	if start {
		go r.loop()
	}
	if blocked {
		r.wake()
	} else {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
	return w
}

// unregister stops delivery to w.
func (w *waiter) unregister() {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.r.dropLocked(w)
}

func (r *reader) dropLocked(w *waiter) {
	if ws := r.streams[w.stream]; ws != nil {
		delete(ws, w)
		if len(ws) == 0 {
			delete(r.streams, w.stream)
		}
	}
}

// dispatchLocked hands each waiter of res's streams its first newer event.
func (r *reader) dispatchLocked(res []redis.XStream) {
	for _, st := range res {
		for w := range r.streams[st.Stream] {
			for _, m := range st.Messages {
				if lessID(w.lastID, m.ID) {
					w.C <- m.Values // never blocks: one send into a buffer of one
					r.dropLocked(w)
					break
				}
			}
		}
	}
}

// fromLocked returns the id to read stream from: the oldest its waiters need.
func (r *reader) fromLocked(stream string) string {
	min := ""
	for w := range r.streams[stream] {
		if min == "" || lessID(w.lastID, min) {
			min = w.lastID
		}
	}
	return min
}

// wake makes the outstanding single-node XREAD return.
func (r *reader) wake() {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	pipe := r.rdb.Pipeline()
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: r.wakeKey, MaxLen: 1, Values: []any{"w", "1"}})
	pipe.PExpire(ctx, r.wakeKey, time.Minute)
	_, _ = pipe.Exec(ctx) // a lost wake costs one StreamBlock; followers also poll
}

// loop is the single-node reader.
func (r *reader) loop() {
	defer r.wg.Done()
	var conn *redis.Conn
	defer func() {
		if conn != nil {
			_ = conn.Close()
		}
	}()
	wakeID := "0-0" // the wake stream is new: every entry in it is a wake
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
		if len(r.streams) == 0 {
			r.mu.Unlock()
			select {
			case <-r.idle:
			case <-r.done:
			}
			continue
		}
		// XREAD STREAMS s1 s2 ... wake id1 id2 ... wakeID
		keys := make([]string, 0, len(r.streams)+1)
		ids := make([]string, 0, len(r.streams)+1)
		for s := range r.streams {
			keys = append(keys, s)
			ids = append(ids, r.fromLocked(s))
		}
		keys = append(keys, r.wakeKey)
		ids = append(ids, wakeID)
		r.blocked = true
		r.mu.Unlock()

		if conn == nil {
			c, ok := r.rdb.(interface{ Conn() *redis.Conn })
			if !ok {
				r.failed()
				continue
			}
			conn = c.Conn()
		}
		res, err := conn.XRead(context.Background(), &redis.XReadArgs{
			Streams: append(keys, ids...), Block: r.block, Count: streamMaxLen,
		}).Result()
		if err != nil && err != redis.Nil {
			_ = conn.Close()
			conn = nil
			r.failed()
			continue
		}
		for _, st := range res {
			if st.Stream == r.wakeKey && len(st.Messages) > 0 {
				wakeID = st.Messages[len(st.Messages)-1].ID
			}
		}
		r.mu.Lock()
		r.blocked = false
		r.dispatchLocked(res)
		r.mu.Unlock()
	}
}

// failed marks the reader idle after a failed read and pauses.
func (r *reader) failed() {
	r.mu.Lock()
	r.blocked = false
	r.mu.Unlock()
	t := time.NewTimer(r.retry)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.done:
	}
}

// subscribe starts the cluster's doorbell listener (counted in wg by
// register) and waits, at most timeout, until the subscription is active.
func (r *reader) subscribe() {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	ps := r.cluster.Subscribe(ctx, r.bell)
	_, _ = ps.Receive(ctx) // the confirmation; on failure go-redis resubscribes, followers poll
	close(r.ready)
	go func() {
		defer r.wg.Done()
		defer ps.Close()
		ch := ps.Channel()
		for {
			select {
			case m, ok := <-ch:
				if !ok {
					return
				}
				r.mu.Lock()
				_, awaited := r.streams[m.Payload]
				r.mu.Unlock()
				if awaited {
					r.fetch(m.Payload)
				}
			case <-r.done:
				return
			}
		}
	}()
}

// fetch reads stream without blocking and dispatches its new events.
func (r *reader) fetch(stream string) {
	r.mu.Lock()
	from := r.fromLocked(stream)
	r.mu.Unlock()
	if from == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	res, err := r.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{stream, from}, Count: streamMaxLen, Block: -1}).Result()
	if err != nil {
		return // redis.Nil: nothing yet; errors: followers poll
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dispatchLocked(res)
}

// close stops the reader, waiting at most wait for a blocked read to return.
func (r *reader) close(wait time.Duration) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	blocked := r.blocked
	r.mu.Unlock()
	close(r.done)
	if blocked {
		r.wake()
	}
	stopped := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(stopped)
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
	}
}

// lessID reports whether stream id a is older than b ("ms-seq").
func lessID(a, b string) bool {
	am, as := splitID(a)
	bm, bs := splitID(b)
	if am != bm {
		return am < bm
	}
	return as < bs
}

func splitID(id string) (uint64, uint64) {
	msPart, seqPart, _ := strings.Cut(id, "-")
	m, _ := strconv.ParseUint(msPart, 10, 64)
	s, _ := strconv.ParseUint(seqPart, 10, 64)
	return m, s
}
