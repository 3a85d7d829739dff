package interview

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// versionGets sends the GETs of concurrent Version calls to Redis together.
// A GET asked while none is on its way is sent at once, by its caller; one
// asked while a batch is on its way waits for that batch to come back and
// then goes, with every other GET asked meanwhile, in the next batch: one
// pipelined round trip (on Redis Cluster, one per node). Each GET is still
// sent after its call began, so it reads a version no older than the call,
// which is what lets a copy be trusted (currentFromMemory). Under load the
// round trips, and the system calls of each, are shared by the requests
// waiting at the same moment, instead of one GET per current question.
type versionGets struct {
	// send runs a batch: sets each one's val and err, then closes its done.
	send func(ctx context.Context, batch []*versionGet)

	mu    sync.Mutex // protects queue and busy
	queue []*versionGet
	busy  bool // a batch is on its way
}

// versionGet is one caller's GET.
type versionGet struct {
	key  string
	val  string
	err  error
	done chan struct{}
}

// get returns the value of key (redis.Nil when it has none).
func (b *versionGets) get(ctx context.Context, key string) (string, error) {
	g := &versionGet{key: key, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, g)
	if b.busy {
		b.mu.Unlock()
		select {
		case <-g.done:
			return g.val, g.err
		case <-ctx.Done():
			return "", ctx.Err() // the batch finishes without us
		}
	}
	b.busy = true
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()
	// Alone: this caller sends its own GET, bounded by its own context.
	b.send(ctx, batch)
	b.handOn()
	return g.val, g.err
}

// handOn sends, on a goroutine of their own, the GETs queued while a batch
// was on its way, batch after batch until none is queued. The caller that
// sent the first one has its answer and goes on.
func (b *versionGets) handOn() {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.busy = false
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go func() {
		for {
			b.mu.Lock()
			batch := b.queue
			b.queue = nil
			if len(batch) == 0 {
				b.busy = false
				b.mu.Unlock()
				return
			}
			b.mu.Unlock()
			// Queued callers wait with their own contexts; the batch is
			// bounded by send's timeout.
			b.send(context.Background(), batch)
		}
	}()
}

// sendGets runs batch on rdb: one GET alone, several in a pipeline.
func sendGets(ctx context.Context, rdb redis.UniversalClient, batch []*versionGet) error {
	defer func() {
		for _, g := range batch {
			close(g.done)
		}
	}()
	if len(batch) == 1 {
		g := batch[0]
		g.val, g.err = rdb.Get(ctx, g.key).Result()
		return g.err
	}
	cmds := make([]*redis.StringCmd, len(batch))
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, g := range batch {
			cmds[i] = p.Get(ctx, g.key)
		}
		return nil
	})
	for i, g := range batch {
		g.val, g.err = cmds[i].Result()
	}
	return err
}
