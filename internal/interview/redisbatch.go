package interview

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// redisBatch sends the Redis commands of concurrent callers together. A
// command given while none is on its way is sent at once, by its caller;
// one given while a batch is on its way waits for that batch to come back
// and then goes, with every other command given meanwhile, in the next
// batch: one pipelined round trip (on Redis Cluster, one per node). Each
// command is still sent after its call began, so a read sees every write
// that returned before the read was asked, and a write (or a published
// message) has been applied when its call returns. Under load the round
// trips, and the system calls of each, are shared by the requests waiting
// at the same moment: the sessions' change messages and the answers'
// progress.
type redisBatch struct {
	rdb redis.UniversalClient
	// guard runs a batch's send with the caller's breaker and timeout.
	guard func(ctx context.Context, send func(ctx context.Context) error) error

	mu    sync.Mutex // protects queue and busy
	queue []*batched
	busy  bool // a batch is on its way
}

// batched is one caller's command.
type batched struct {
	cmd  redis.Cmder
	done chan struct{}
}

// do sends cmd and returns its error (redis.Nil for a missing key).
func (b *redisBatch) do(ctx context.Context, cmd redis.Cmder) error {
	c := &batched{cmd: cmd, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	if b.busy {
		b.mu.Unlock()
		select {
		case <-c.done:
			return cmd.Err()
		case <-ctx.Done():
			return ctx.Err() // the batch goes on without us
		}
	}
	b.busy = true
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()
	// Alone: this caller sends its own command, bounded by its context.
	b.send(ctx, batch)
	b.handOn()
	return cmd.Err()
}

// handOn sends, on a goroutine of their own, the commands queued while a
// batch was on its way, batch after batch until none is queued. The caller
// that sent the first one has its answer and goes on.
func (b *redisBatch) handOn() {
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
			// bounded by guard's timeout.
			b.send(context.Background(), batch)
		}
	}()
}

// send runs batch: one command alone, several in a pipeline; then wakes
// every caller. The commands carry their results and errors.
func (b *redisBatch) send(ctx context.Context, batch []*batched) {
	defer func() {
		for _, c := range batch {
			close(c.done)
		}
	}()
	_ = b.guard(ctx, func(ctx context.Context) error {
		if len(batch) == 1 {
			return b.rdb.Process(ctx, batch[0].cmd)
		}
		p := b.rdb.Pipeline()
		for _, c := range batch {
			_ = p.Process(ctx, c.cmd)
		}
		_, err := p.Exec(ctx)
		return err
	})
}
