package app

import (
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// singleFlightConfig maps xunzhi-agent.ai-singleflight onto the package's
// config. Without Redis the mode is local whatever is configured (hybrid
// would only ever fall back).
func singleFlightConfig(cfg SingleFlightConfig, redisCfg RedisConfig) singleflight.Config {
	out := singleflight.DefaultConfig()
	out.Mode = singleflight.Mode(cfg.Mode)
	if !redisCfg.Enabled() {
		out.Mode = singleflight.ModeLocal
	}
	out.InstanceID = cfg.InstanceID
	if out.InstanceID == "" {
		host, _ := os.Hostname()
		out.InstanceID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), ids.Token(3))
	}
	out.KeyPrefix = redisCfg.KeyPrefix
	out.FollowerMaxWait = cfg.FollowerMaxWait
	out.StreamBlock = cfg.StreamBlock
	out.PollFallback = cfg.PollFallback
	out.L1MaxEntries = cfg.L1MaxEntries
	out.RedisBackoff = cfg.RedisBackoff
	out.RedisTimeout = cfg.RedisTimeout
	out.Stages = interview.FlightStages()
	out.Stages[tts.Stage] = tts.FlightPolicy()
	for name, st := range cfg.Stages {
		out.Stages[name] = singleflight.Policy{ResultTTL: st.ResultTTL, FailedTTL: st.FailedTTL,
			RunningLease: st.RunningLease, Heartbeat: st.Heartbeat, TakeoverDetect: st.TakeoverDetect,
			L1Enabled: st.L1Enabled, L1TTL: st.L1TTL, CompressOver: st.CompressOver, Codec: out.Stages[name].Codec}
	}
	return out
}

// guardConfig maps xunzhi-agent.ai-guard onto the package's config.
func guardConfig(cfg GuardConfig) aiguard.Config {
	out := aiguard.DefaultConfig()
	out.Stages = interview.GuardStages()
	br := aiguard.BreakerPolicy{FailureRatio: cfg.Breaker.FailureRatio, Window: cfg.Breaker.Window,
		Open: cfg.Breaker.OpenFor, HalfOpenCalls: cfg.Breaker.HalfOpenCalls}
	out.Default.Breaker = br
	for name, pol := range out.Stages {
		pol.Breaker = br
		out.Stages[name] = pol
	}
	for name, st := range cfg.Stages {
		pol := out.Policy(name)
		pol.Timeout, pol.MaxConcurrent, pol.Retries, pol.RetryDelay = st.Timeout, st.MaxConcurrent, st.Retries, st.RetryDelay
		pol.Breaker = br
		out.Stages[name] = pol
	}
	return out
}

// newInvoker builds the interview invoker: flights on rdb (nil: local) and
// the guard, with their metrics on reg.
func newInvoker(cfg Config, rdb redis.UniversalClient, redisDown *redisx.Breaker, reg prometheus.Registerer, opts ...interview.InvokerOption) (*interview.Invoker, *singleflight.Group, error) {
	sfCfg := singleFlightConfig(cfg.Agent.SingleFlight, cfg.Redis)
	sfCfg.Breaker = redisDown // hybrid mode skips Redis with the token cache and the limiter
	flights, err := singleflight.New(sfCfg, rdb, reg)
	if err != nil {
		return nil, nil, fmt.Errorf("xunzhi-agent.ai-singleflight: %w", err)
	}
	guard, err := aiguard.New(guardConfig(cfg.Agent.Guard), reg)
	if err != nil {
		_ = flights.Close()
		return nil, nil, fmt.Errorf("xunzhi-agent.ai-guard: %w", err)
	}
	return interview.NewInvoker(flights, guard, reg, opts...), flights, nil
}
