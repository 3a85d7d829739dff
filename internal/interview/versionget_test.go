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

// Concurrent GETs share round trips, and every GET still reads what was
// written before it was asked: each caller writes its key, then reads it
// back through the batcher and must see its own latest write.
func TestVersionGetsBatchAndReadTheirWrites(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	ctx := context.Background()
	var batches, gets atomic.Int64
	b := &versionGets{send: func(ctx context.Context, batch []*versionGet) {
		batches.Add(1)
		gets.Add(int64(len(batch)))
		_ = sendGets(ctx, rdb, batch)
	}}
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
				if err := rdb.Set(ctx, key, want, 0).Err(); err != nil {
					errs <- err
					return
				}
				got, err := b.get(ctx, key)
				if err != nil || got != want {
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
	if gets.Load() != callers*rounds {
		t.Fatalf("%d GETs sent, want %d", gets.Load(), callers*rounds)
	}
	t.Logf("%d GETs in %d round trips", gets.Load(), batches.Load())
	if batches.Load() >= gets.Load() {
		t.Fatalf("%d GETs in %d round trips: no batch shared", gets.Load(), batches.Load())
	}
	// A missing key is redis.Nil; a caller that leaves gets its context's
	// error while the batch goes on.
	if _, err := b.get(ctx, prefix+"missing"); !errors.Is(err, redis.Nil) {
		t.Fatalf("missing key: %v, want redis.Nil", err)
	}
}

// A caller whose context ends while its GET waits in the queue leaves with
// the context's error; the batcher goes on serving the others.
func TestVersionGetsCallerLeaves(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	release := make(chan struct{})
	first := make(chan struct{})
	var once sync.Once
	b := &versionGets{send: func(ctx context.Context, batch []*versionGet) {
		once.Do(func() { close(first); <-release }) // hold the first batch on its way
		_ = sendGets(ctx, rdb, batch)
	}}
	if err := rdb.Set(context.Background(), prefix+"k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := b.get(context.Background(), prefix+"k"); done <- err }()
	<-first
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { _, err := b.get(ctx, prefix+"k"); left <- err }()
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("queued caller that left: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v, err := b.get(context.Background(), prefix+"k"); err != nil || v != "v" {
		t.Fatalf("after: %q %v", v, err)
	}
}
