package singleflight

import (
	"context"
	"errors"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/lease"
)

// redisError is a failed or timed-out Redis command. Hybrid mode falls back
// on it; distributed mode returns it wrapped with ErrRedisUnavailable.
type redisError struct {
	op  string
	err error
}

func (e *redisError) Error() string { return "redis " + e.op + ": " + e.err.Error() }
func (e *redisError) Unwrap() error { return e.err }

// flight is one execution of a key by this process's leader.
type flight struct {
	g     *Group
	ss    *stageState // the stage's name and policy
	key   string
	keys  flightKeys
	owner string // unique per call: instance id + random
	fn    func(context.Context) ([]byte, error)

	called bool // fn was invoked; hybrid mode then never falls back to a second call
}

// pol is the stage's policy.
func (f *flight) pol() *Policy { return &f.ss.pol }

// call invokes fn once, turning a panic into a *PanicError.
func (f *flight) call(ctx context.Context) (v []byte, err error) {
	f.called = true
	f.ss.modelCall()
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return f.fn(ctx)
}

// local runs fn without Redis.
func (f *flight) local(ctx context.Context, out Outcome) (Result, error) {
	v, err := f.call(ctx)
	if err != nil {
		return Result{Outcome: out}, err
	}
	f.g.l1Put(f.pol(), f.key, v)
	return Result{Value: v, Outcome: out}, nil
}

// redis runs one Redis operation under Config.RedisTimeout. A caller whose
// own context ended gets ctx.Err(), which is not a Redis failure; any other
// error (including the timeout) is a *redisError and starts the hybrid backoff.
func redisDo[T any](ctx context.Context, f *flight, op string, do func(context.Context) (T, error)) (T, error) {
	g := f.g
	var (
		v   T
		err error
	)
	if g.cfg.RedisTimeout <= 0 {
		v, err = do(ctx)
	} else {
		tctx, cancel := context.WithTimeout(ctx, g.cfg.RedisTimeout)
		defer cancel()
		if g.ctxTimeouts {
			v, err = do(tctx)
		} else {
			// The client ignores context deadlines on the socket: a watchdog
			// enforces ours, and the command finishes in the background.
			type reply struct {
				v   T
				err error
			}
			ch := make(chan reply, 1)
			go func() {
				v, err := do(tctx)
				ch <- reply{v, err}
			}()
			select {
			case r := <-ch:
				v, err = r.v, r.err
			case <-tctx.Done():
				err = tctx.Err()
			}
		}
	}
	if err == nil {
		g.redis.Ok()
		return v, nil
	}
	if ctx.Err() != nil {
		return v, ctx.Err()
	}
	f.g.redisFailed(f.ss, err)
	return v, &redisError{op: op, err: err}
}

// acquire runs the acquire script under Config.RedisTimeout; corrupt names
// a stored result found corrupt ("" for none).
func (f *flight) acquire(ctx context.Context, corrupt string) (acquired, error) {
	return redisDo(ctx, f, "acquire", func(ctx context.Context) (acquired, error) {
		return f.g.st.acquire(ctx, f.keys, f.owner, *f.pol(), corrupt)
	})
}

// run is the Redis protocol of one flight: acquire, then own, replay or
// follow, re-acquiring after each wake-up of a follower. first is the reply
// of an acquire already made (Group.start), nil to make one.
func (f *flight) run(ctx context.Context, first *acquired) (Result, error) {
	g := f.g
	var (
		corrupt   string  // token of a stored result found corrupt
		following bool    // an acquire of this call returned FOLLOWER_WAIT
		w         *waiter // current one-shot registration with the stream reader
		poll      *time.Ticker
		deadline  <-chan time.Time
		final     bool // FollowerMaxWait ran out: the next FOLLOWER_WAIT gives up
		start     time.Time
		lostLease bool // this call owned the flight and lost its lease
	)
	defer func() {
		if w != nil {
			w.unregister()
		}
		if following {
			poll.Stop()
			f.ss.followed(time.Since(start))
		}
	}()
	for {
		var a acquired
		if first != nil {
			a, first = *first, nil
		} else {
			var err error
			a, err = f.acquire(ctx, corrupt)
			if err != nil {
				return Result{}, err
			}
		}
		corrupt = ""
		switch a.status {
		case statusReplaySuccess:
			v, err := a.payload.decode()
			if err != nil {
				corrupt = a.token // a miss: take the flight over and recompute
				continue
			}
			g.l1Put(f.pol(), f.key, v)
			out := ReplayRedis
			if following {
				out = Follower
			}
			return Result{Value: v, Outcome: out}, nil

		case statusReplayFailure:
			out := ReplayFailure
			if following {
				out = Follower
			}
			return Result{Outcome: out}, f.pol().codec().Decode(a.failure)

		case statusOwnerNew, statusOwnerTakeover:
			out := OwnerNew
			if a.status == statusOwnerTakeover || following || lostLease {
				out = Takeover
			}
			res, lost, err := f.own(ctx, a.token, out)
			if !lost {
				return res, err
			}
			// A newer owner holds the flight: follow it (its result wins).
			f.ss.outcome(LostLease)
			lostLease = true
			continue

		case statusFollowerWait:
			if final {
				return Result{Outcome: Follower}, ErrInProgress
			}
			if !following {
				following = true
				start = time.Now()
				poll = time.NewTicker(g.cfg.PollFallback)
				t := time.NewTimer(g.cfg.FollowerMaxWait)
				defer t.Stop()
				deadline = t.C
			}
			if w == nil {
				// Register from the stream id that acquire read atomically
				// with the state: a completion after acquire is never missed.
				w = g.rd.register(f.keys, a.lastID)
				if g.testHookFollower != nil {
					g.testHookFollower(f.key)
				}
			}
			select {
			case ev := <-w.C:
				w = nil // one-shot: the reader has dropped it
				if v, ok := eventValue(ev); ok {
					g.l1Put(f.pol(), f.key, v)
					return Result{Value: v, Outcome: Follower}, nil
				}
				// A failure, or a result too large to carry: re-acquire.
			case <-poll.C:
			case <-deadline:
				final = true
			case <-ctx.Done():
				return Result{Outcome: Follower}, ctx.Err()
			}
		}
	}
}

// eventValue returns the verified result carried by a SUCCEEDED event.
func eventValue(ev map[string]any) ([]byte, bool) {
	if ev["state"] != stateSucceeded || ev["data"] == nil {
		return nil, false
	}
	v, err := payloadFrom(ev["pl"], ev["data"]).decode()
	return v, err == nil
}

// own runs fn as the Redis owner with fencing token token: heartbeats while
// fn runs, then completes in one script. lost reports that a newer owner
// holds the flight (a heartbeat or the completion failed its CAS); fn's
// context was then cancelled and nothing was written.
func (f *flight) own(ctx context.Context, token string, out Outcome) (res Result, lost bool, err error) {
	g := f.g
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Heartbeats go on while fn runs, even when its context was cancelled
	// because every caller left: a model call still in progress must keep
	// its lease, or another instance would start a second one. Close stops them.
	hbctx := context.WithoutCancel(fctx)
	var leaseLost atomic.Bool
	hb := lease.Start(f.pol().Heartbeat, func() bool {
		if g.base.Err() != nil {
			return false
		}
		ok, err := redisDo(hbctx, f, "heartbeat", func(ctx context.Context) (bool, error) {
			return g.st.heartbeat(ctx, f.keys, f.owner, token, *f.pol())
		})
		if err == nil && !ok {
			leaseLost.Store(true)
			cancel() // stop the model call: its result could not be written
			return false
		}
		// A Redis error is not a lost lease: keep calling; the completion's
		// CAS decides.
		return true
	})
	v, ferr := f.call(fctx)
	hb.Stop()
	lostLease := leaseLost.Load()
	if lostLease {
		return Result{}, true, nil
	}

	// Complete even when every caller has gone: followers elsewhere are
	// waiting, and a retryable failure lets them take over at once.
	cctx := context.WithoutCancel(ctx)
	if ferr == nil {
		pl := encodePayload(v, f.pol().CompressOver)
		ok, err := redisDo(cctx, f, "complete", func(ctx context.Context) (bool, error) {
			return g.st.completeSuccess(ctx, f.keys, f.owner, token, *f.pol(), pl)
		})
		if err == nil && !ok {
			return Result{}, true, nil
		}
		// On a Redis error the model call is already paid for: the caller
		// still gets its result (followers elsewhere take over later).
		g.l1Put(f.pol(), f.key, v)
		return Result{Value: v, Outcome: out}, false, nil
	}
	fail := f.pol().codec().Encode(ferr)
	ok, err := redisDo(cctx, f, "complete", func(ctx context.Context) (bool, error) {
		return g.st.completeFailure(ctx, f.keys, f.owner, token, *f.pol(), fail)
	})
	if err == nil && !ok && !errors.Is(ferr, context.Canceled) {
		return Result{}, true, nil
	}
	return Result{Outcome: out}, false, ferr
}
