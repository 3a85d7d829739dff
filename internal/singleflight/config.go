package singleflight

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/redisx"
)

// Mode selects the layers a Group uses.
type Mode string

// The modes.
const (
	// ModeLocal deduplicates within this process only; Redis is not used.
	ModeLocal Mode = "local"
	// ModeDistributed requires Redis: a Redis error is returned to the caller
	// (wrapping ErrRedisUnavailable) and fn is not called.
	ModeDistributed Mode = "distributed"
	// ModeHybrid puts the in-process layer in front of Redis and falls back to
	// in-process deduplication when Redis fails or is slow, skipping Redis for
	// Config.RedisBackoff. It is the default.
	ModeHybrid Mode = "hybrid"
)

// Policy is the per-stage behaviour of a flight. Zero durations, a zero
// CompressOver and a nil Codec in a stage's policy are taken from
// Config.Default; L1Enabled is taken as given.
type Policy struct {
	// ResultTTL is how long a success is replayed instead of recomputed.
	ResultTTL time.Duration
	// FailedTTL is how long a non-retryable failure is replayed without a
	// call (a retryable failure lets the next caller take over at once).
	FailedTTL time.Duration
	// RunningLease is the TTL of a running flight's state; every heartbeat
	// renews it. It bounds how long the state of a dead owner is kept.
	RunningLease time.Duration
	// Heartbeat is how often a running owner renews its lease.
	Heartbeat time.Duration
	// TakeoverDetect is how old (by Redis server time) the last heartbeat
	// must be before another caller may take the flight over.
	TakeoverDetect time.Duration
	// L1Enabled turns on the in-process replay cache for the stage.
	L1Enabled bool
	// L1TTL is how long a result stays in the in-process replay cache.
	L1TTL time.Duration
	// CompressOver is the payload size in bytes above which stored results
	// are gzip-compressed.
	CompressOver int
	// Codec turns the stage's fn errors into stored failures and back: each
	// caller brings the codec of its own errors. Nil (also in Default) means
	// DefaultErrorCodec.
	Codec ErrorCodec
}

// Config configures a Group. Start from DefaultConfig.
type Config struct {
	// Mode is local, distributed or hybrid (the default when empty).
	Mode Mode
	// InstanceID names this process in owner ids (owner ids are InstanceID
	// plus a random suffix, unique per call). Empty means hostname-pid.
	InstanceID string
	// KeyPrefix is put before every Redis key ("aimeeting:" gives
	// "aimeeting:sf:{<hash>}:meta"). It must not contain '{' or '}'.
	KeyPrefix string

	// FollowerMaxWait bounds how long a follower (in-process waiter or Redis
	// follower) waits before it re-runs acquire or gives up with ErrInProgress.
	FollowerMaxWait time.Duration
	// StreamBlock is the BLOCK time of the shared stream reader's XREAD.
	StreamBlock time.Duration
	// PollFallback is how often a Redis follower re-runs acquire in case a
	// notification was lost; it also bounds how late a dead owner is taken over.
	PollFallback time.Duration

	// L1MaxEntries bounds the in-process replay cache.
	L1MaxEntries int

	// RedisBackoff is how long hybrid mode skips Redis after a Redis failure.
	// It is unused when Breaker is set.
	RedisBackoff time.Duration
	// Breaker, when set, is hybrid mode's "Redis is down" switch, shared with
	// the caller's other users of the same Redis (the first to see Redis fail
	// spares the others; a probing Breaker says when it is back). Nil: a
	// Breaker of the Group's own, with RedisBackoff.
	Breaker *redisx.Breaker
	// RedisTimeout is the deadline of one Redis command, so that a slow Redis
	// counts as a failed one. Zero means no deadline beyond the client's own.
	RedisTimeout time.Duration

	// Default is the policy of stages that Stages does not name, and fills the
	// zero fields of those it does.
	Default Policy
	// Stages holds per-stage policies, by stage name. The callers own their
	// stage names and policies and pass them here (the interview's are
	// interview.FlightStages).
	Stages map[string]Policy
}

// DefaultPolicy is the policy of the design for a model call of about ten
// seconds: results replayed for 10 min, non-retryable failures for 60 s, a
// 15 s lease renewed every 3 s and taken over after 10 s, a 30 s L1, gzip
// above 4 KiB, DefaultErrorCodec.
func DefaultPolicy() Policy {
	return Policy{
		ResultTTL: 10 * time.Minute, FailedTTL: 60 * time.Second,
		RunningLease: 15 * time.Second, Heartbeat: 3 * time.Second, TakeoverDetect: 10 * time.Second,
		L1Enabled: true, L1TTL: 30 * time.Second, CompressOver: 4 * 1024,
	}
}

// DefaultConfig returns the defaults of the design: hybrid mode, Default
// from DefaultPolicy and no stages of its own, follower max wait 20 s,
// stream block 3 s, poll fallback 2 s, 1000 L1 entries.
func DefaultConfig() Config {
	return Config{
		Mode:            ModeHybrid,
		KeyPrefix:       "aimeeting:",
		FollowerMaxWait: 20 * time.Second,
		StreamBlock:     3 * time.Second,
		PollFallback:    2 * time.Second,
		L1MaxEntries:    1000,
		RedisBackoff:    5 * time.Second,
		RedisTimeout:    500 * time.Millisecond,
		Default:         DefaultPolicy(),
	}
}

// Policy returns the policy of stage: Stages[stage] with its zero fields
// filled from Default, or Default when the stage is not configured.
func (c Config) Policy(stage string) Policy {
	p, ok := c.Stages[stage]
	if !ok {
		return c.Default
	}
	d := c.Default
	fill := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&p.ResultTTL, d.ResultTTL)
	fill(&p.FailedTTL, d.FailedTTL)
	fill(&p.RunningLease, d.RunningLease)
	fill(&p.Heartbeat, d.Heartbeat)
	fill(&p.TakeoverDetect, d.TakeoverDetect)
	fill(&p.L1TTL, d.L1TTL)
	if p.CompressOver == 0 {
		p.CompressOver = d.CompressOver
	}
	if p.Codec == nil {
		p.Codec = d.Codec
	}
	return p
}

// validate reports the first setting that cannot work.
func (c Config) validate() error {
	switch c.Mode {
	case ModeLocal, ModeDistributed, ModeHybrid:
	default:
		return fmt.Errorf("singleflight: unknown mode %q (want local, distributed or hybrid)", c.Mode)
	}
	if strings.ContainsAny(c.KeyPrefix, "{}") {
		return errors.New("singleflight: KeyPrefix must not contain '{' or '}' (it would change the Redis Cluster hash tag)")
	}
	if c.FollowerMaxWait <= 0 || c.StreamBlock <= 0 || c.PollFallback <= 0 {
		return errors.New("singleflight: FollowerMaxWait, StreamBlock and PollFallback must be positive")
	}
	check := func(name string, p Policy) error {
		switch {
		case p.ResultTTL <= 0 || p.FailedTTL <= 0:
			return fmt.Errorf("singleflight: policy %s: ResultTTL and FailedTTL must be positive", name)
		case p.Heartbeat <= 0 || p.TakeoverDetect <= p.Heartbeat:
			return fmt.Errorf("singleflight: policy %s: need 0 < Heartbeat < TakeoverDetect", name)
		case p.RunningLease < p.TakeoverDetect:
			return fmt.Errorf("singleflight: policy %s: RunningLease must be at least TakeoverDetect", name)
		case p.L1Enabled && p.L1TTL <= 0:
			return fmt.Errorf("singleflight: policy %s: L1TTL must be positive when L1 is enabled", name)
		}
		return nil
	}
	if err := check("default", c.Default); err != nil {
		return err
	}
	for name := range c.Stages {
		if err := check(name, c.Policy(name)); err != nil {
			return err
		}
	}
	return nil
}

// maxL1TTL is the longest L1 TTL of any policy: the expiry of the LRU itself.
func (c Config) maxL1TTL() time.Duration {
	m := c.Default.L1TTL
	for name := range c.Stages {
		if p := c.Policy(name); p.L1Enabled && p.L1TTL > m {
			m = p.L1TTL
		}
	}
	return m
}
