package interview

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// countingBatch is a redisBatch on rdb that counts its round trips.
func countingBatch(rdb redis.UniversalClient, trips *atomic.Int64) *redisBatch {
	return &redisBatch{rdb: rdb, guard: func(ctx context.Context, send func(ctx context.Context) error) error {
		trips.Add(1)
		return send(ctx)
	}}
}

// Concurrent commands share round trips, and every read still sees what
// was written before it was asked: each caller writes its key through the
// batcher, then reads it back and must see its own latest write.
func TestRedisBatchSharesTripsAndReadsTheWrites(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	var batches, gets atomic.Int64
	b := countingBatch(rdb, &batches)
	const callers, rounds = 32, 50
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := prefix + "v" + strconv.Itoa(c)
			for i := range rounds {
				want := fmt.Sprintf("%d-%d", c, i)
				if err := b.do(ctx, redis.NewStatusCmd(ctx, "set", key, want)); err != nil {
					errs <- err
					return
				}
				get := redis.NewStringCmd(ctx, "get", key)
				err := b.do(ctx, get)
				gets.Add(1)
				if got := get.Val(); err != nil || got != want {
					errs <- fmt.Errorf("caller %d round %d: got %q, %v; want its write %q", c, i, got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d commands in %d round trips", 2*gets.Load(), batches.Load())
	if batches.Load() >= 2*gets.Load() {
		t.Fatalf("%d commands in %d round trips: no batch shared", 2*gets.Load(), batches.Load())
	}
	// A missing key is redis.Nil.
	if err := b.do(ctx, redis.NewStringCmd(ctx, "get", prefix+"missing")); !errors.Is(err, redis.Nil) {
		t.Fatalf("missing key: %v, want redis.Nil", err)
	}
}

// A caller whose context ends while its GET waits in the queue leaves with
// the context's error; the batcher goes on serving the others.
func TestRedisBatchCallerLeaves(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	release := make(chan struct{})
	first := make(chan struct{})
	var once sync.Once
	b := &redisBatch{rdb: rdb, guard: func(ctx context.Context, send func(ctx context.Context) error) error {
		once.Do(func() { close(first); <-release }) // hold the first batch on its way
		return send(ctx)
	}}
	get := func(ctx context.Context) (string, error) {
		cmd := redis.NewStringCmd(ctx, "get", prefix+"k")
		err := b.do(ctx, cmd)
		return cmd.Val(), err
	}
	if err := rdb.Set(context.Background(), prefix+"k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := get(context.Background()); done <- err }()
	<-first
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { _, err := get(ctx); left <- err }()
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("queued caller that left: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v, err := get(context.Background()); err != nil || v != "v" {
		t.Fatalf("after: %q %v", v, err)
	}
}
