package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/lease"
)

// sweepLockTTL is how long the sweep lock lasts without a renewal: an
// instance that dies mid-sweep holds the others up at most this long.
const sweepLockTTL = 30 * time.Second

// unlockScript deletes the lock only when it is still this holder's.
var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)

// renewScript extends the lock only when it is still this holder's.
var renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`)

// startSweeper runs the orphan sweep of files every interval until the
// returned stop is called. With Redis, one instance of the cluster sweeps at
// a time: a Redis lock (SET NX with a TTL) kept alive by a lease.Heartbeat
// while the sweep runs. Without Redis each instance sweeps on its own,
// which is still safe (deleting is idempotent and the grace period guards
// the blobs whose rows are on their way).
func startSweeper(files *blobstore.Store, owners []blobstore.Owner, rdb redis.UniversalClient, keyPrefix string,
	interval, grace time.Duration, log *slog.Logger) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			sweepOnce(ctx, files, owners, rdb, keyPrefix+"blobsweep", grace, log)
		}
	}()
	return func() error {
		cancel()
		wg.Wait()
		return nil
	}
}

// sweepOnce runs one sweep when it gets the lock.
func sweepOnce(ctx context.Context, files *blobstore.Store, owners []blobstore.Owner, rdb redis.UniversalClient,
	lockKey string, grace time.Duration, log *slog.Logger) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rdb != nil {
		token := ids.Token(8)
		lctx, lcancel := context.WithTimeout(ctx, 2*time.Second)
		ok, err := rdb.SetNX(lctx, lockKey, token, sweepLockTTL).Result()
		lcancel()
		if err != nil || !ok {
			return // another instance sweeps, or Redis is down: next time
		}
		hb := lease.Start(sweepLockTTL/3, func() bool {
			rctx, rcancel := context.WithTimeout(sctx, 2*time.Second)
			defer rcancel()
			n, err := renewScript.Run(rctx, rdb, []string{lockKey}, token, sweepLockTTL.Milliseconds()).Int()
			if err != nil || n == 0 {
				cancel() // the lock is gone: stop sweeping
				return false
			}
			return true
		})
		defer func() {
			hb.Stop()
			uctx, ucancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer ucancel()
			_ = unlockScript.Run(uctx, rdb, []string{lockKey}, token).Err()
		}()
	}
	start := time.Now()
	res, err := blobstore.Sweep(sctx, files, grace, time.Now(), owners)
	if err != nil {
		log.Warn("file store sweep stopped", "err", err, "checked", res.Checked, "deleted", res.Deleted)
		return
	}
	if res.Deleted > 0 {
		log.Info("file store sweep deleted orphan files", "checked", res.Checked, "deleted", res.Deleted,
			"took", time.Since(start).Round(time.Millisecond))
	}
}
