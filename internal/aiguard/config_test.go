package aiguard

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("DefaultConfig is invalid: %v", err)
	}
	wantBreaker := BreakerPolicy{FailureRatio: 0.5, Window: 50, Open: 30 * time.Second, HalfOpenCalls: 10}
	want := StagePolicy{Timeout: 120 * time.Second, MaxConcurrent: 50, Breaker: wantBreaker}
	if got := cfg.Policy("chat"); got != want {
		t.Errorf("Policy(chat) = %+v, want %+v", got, want)
	}
	if len(cfg.Stages) != 0 {
		t.Errorf("DefaultConfig names %d stages; the callers own theirs", len(cfg.Stages))
	}
	if got := wantBreaker.failureThreshold(); got != 25 {
		t.Errorf("default breaker opens at %d failures of 50, want 25", got)
	}
}

func TestConfigValidate(t *testing.T) {
	valid := testPolicy()
	with := func(change func(p *StagePolicy)) StagePolicy {
		p := valid
		change(&p)
		return p
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr []string // substrings; none means valid
	}{
		{"valid", Config{Default: valid, Stages: map[string]StagePolicy{"a": valid}}, nil},
		{"rate limit on", Config{Default: with(func(p *StagePolicy) { p.RatePerSecond, p.Burst = 2.5, 5 })}, nil},
		{"zero value", Config{}, []string{
			"Default.Timeout must be positive, got 0s",
			"Default.Breaker.FailureRatio must be in (0, 1], got 0",
			"Default.Breaker.Window must be at least 1, got 0",
			"Default.Breaker.Open must be positive",
			"Default.Breaker.HalfOpenCalls must be at least 1",
		}},
		{"negative limits", Config{Default: with(func(p *StagePolicy) {
			p.MaxConcurrent, p.MaxWait, p.Retries, p.RetryDelay, p.Burst = -1, -1, -1, -1, -1
		})}, []string{
			"Default.MaxConcurrent must be 0 (unlimited) or positive, got -1",
			"Default.MaxWait must not be negative",
			"Default.Retries must not be negative",
			"Default.RetryDelay must not be negative",
			"Default.Burst must be between 0 and",
		}},
		{"ratio above 1", Config{Default: with(func(p *StagePolicy) { p.Breaker.FailureRatio = 1.5 })},
			[]string{"Default.Breaker.FailureRatio must be in (0, 1], got 1.5"}},
		{"NaN ratio", Config{Default: with(func(p *StagePolicy) { p.Breaker.FailureRatio = math.NaN() })},
			[]string{"Default.Breaker.FailureRatio"}},
		{"negative rate", Config{Default: with(func(p *StagePolicy) { p.RatePerSecond = -1 })},
			[]string{"Default.RatePerSecond must be 0 (off) or between"}},
		{"infinite rate", Config{Default: with(func(p *StagePolicy) { p.RatePerSecond = math.Inf(1) })},
			[]string{"Default.RatePerSecond"}},
		{"bad stage", Config{Default: valid, Stages: map[string]StagePolicy{
			"interview-review": with(func(p *StagePolicy) { p.Breaker.Window = 0 }),
		}}, []string{`Stages["interview-review"].Breaker.Window must be at least 1, got 0`}},
		{"empty stage name", Config{Default: valid, Stages: map[string]StagePolicy{"": valid}},
			[]string{"empty stage name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate: nil, want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nshould contain %q", err, want)
				}
			}
			if _, newErr := New(tt.cfg, nil); newErr == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
}
