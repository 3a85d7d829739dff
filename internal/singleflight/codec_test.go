package singleflight

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPayloadCodec(t *testing.T) {
	var incompressible []byte
	for i := range 10 {
		sum := sha256.Sum256([]byte{byte(i)})
		incompressible = append(incompressible, sum[:]...)
	}
	tests := []struct {
		name         string
		value        []byte
		compressOver int
		wantEnc      string
	}{
		{"empty", []byte{}, 64, encRaw},
		{"at threshold stays raw", bytes.Repeat([]byte("a"), 64), 64, encRaw},
		{"over threshold gzip", bytes.Repeat([]byte("a"), 65), 64, encGzip},
		{"compression off", bytes.Repeat([]byte("a"), 5000), 0, encRaw},
		{"binary safe", []byte{0, 1, 2, 255, 0, '\r', '\n'}, 64, encRaw},
		{"gzip that does not pay stays raw", incompressible, 64, encRaw},
		{"unicode json", []byte(strings.Repeat(`{"评语":"回答完整"}`, 20)), 64, encGzip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := encodePayload(tc.value, tc.compressOver)
			if p.Enc != tc.wantEnc {
				t.Errorf("enc = %s, want %s", p.Enc, tc.wantEnc)
			}
			if p.Size != len(tc.value) || p.Stored != len(p.Data) {
				t.Errorf("size %d stored %d, want %d and %d", p.Size, p.Stored, len(tc.value), len(p.Data))
			}
			// Round trip through the stored (string) form.
			got, err := payloadFrom(p.header(), string(p.Data)).decode()
			if err != nil || !bytes.Equal(got, tc.value) {
				t.Errorf("decode = %q, %v; want the original", got, err)
			}
			if len(p.Data) > 0 {
				bad := p
				bad.Data = bytes.Clone(p.Data)
				bad.Data[len(bad.Data)-1] ^= 1
				if _, err := bad.decode(); !errors.Is(err, errCorrupt) {
					t.Errorf("corrupt data: err = %v, want errCorrupt", err)
				}
			}
			bad := p
			bad.Sum = strings.Repeat("0", 64)
			if _, err := bad.decode(); !errors.Is(err, errCorrupt) {
				t.Errorf("wrong checksum: err = %v, want errCorrupt", err)
			}
		})
	}
	for _, h := range []any{nil, "", "raw", "raw 5 5", "raw x 5 " + strings.Repeat("0", 64), "raw 5 y " + strings.Repeat("0", 64)} {
		if _, err := payloadFrom(h, "hello").decode(); !errors.Is(err, errCorrupt) {
			t.Errorf("header %q: err = %v, want errCorrupt", h, err)
		}
	}
}

func TestPolicyLookup(t *testing.T) {
	type codec struct{ DefaultErrorCodec } // a caller's own codec
	cfg := DefaultConfig()
	cfg.Stages = map[string]Policy{
		"full": {ResultTTL: 3 * time.Minute, FailedTTL: 30 * time.Second, RunningLease: 12 * time.Second,
			Heartbeat: 2500 * time.Millisecond, TakeoverDetect: 8 * time.Second, L1Enabled: true, L1TTL: 15 * time.Second,
			CompressOver: 2048, Codec: codec{}},
		"partial": {ResultTTL: time.Second, L1Enabled: false},
	}
	tests := []struct {
		stage string
		want  Policy
	}{
		{"full", cfg.Stages["full"]},
		{"unknown-stage", cfg.Default},
		{"partial", Policy{ResultTTL: time.Second, FailedTTL: 60 * time.Second, RunningLease: 15 * time.Second,
			Heartbeat: 3 * time.Second, TakeoverDetect: 10 * time.Second, L1TTL: 30 * time.Second, CompressOver: 4096}},
	}
	for _, tc := range tests {
		t.Run(tc.stage, func(t *testing.T) {
			if got := cfg.Policy(tc.stage); got != tc.want {
				t.Errorf("Policy(%q) = %+v, want %+v", tc.stage, got, tc.want)
			}
		})
	}
	if got := cfg.Policy("full").codec(); got != (codec{}) {
		t.Errorf("codec of full = %T, want the stage's own", got)
	}
	if got := cfg.Policy("partial").codec(); got != (DefaultErrorCodec{}) {
		t.Errorf("codec of partial = %T, want DefaultErrorCodec", got)
	}
	if err := cfg.validate(); err != nil {
		t.Errorf("config is invalid: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" for valid
	}{
		{"default", func(*Config) {}, ""},
		{"empty mode is hybrid", func(c *Config) { c.Mode = "" }, "mode hybrid needs a Redis client"},
		{"unknown mode", func(c *Config) { c.Mode = "cluster" }, "unknown mode"},
		{"brace in prefix", func(c *Config) { c.KeyPrefix = "a{b}:" }, "KeyPrefix"},
		{"heartbeat not below takeover", func(c *Config) { c.Default.Heartbeat = c.Default.TakeoverDetect }, "Heartbeat < TakeoverDetect"},
		{"lease below takeover", func(c *Config) { c.Default.RunningLease = time.Second }, "RunningLease"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Mode = ModeLocal
			tc.edit(&cfg)
			_, err := New(cfg, nil, nil)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("New: %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestDefaultErrorCodec(t *testing.T) {
	plain := errors.New("connection reset")
	tests := []struct {
		name string
		err  error
		want Failure
	}{
		{"unclassified is retryable", plain, Failure{Type: "*errors.errorString", Message: "connection reset", Retryable: true}},
		{"classified invalid", &classified{code: "A000400", msg: "empty answer"}, Failure{Type: "*singleflight.classified", Code: "A000400", Message: "empty answer"}},
		{"wrapped retryable", fmt.Errorf("evaluate: %w", &classified{code: "B000415", msg: "model timed out", retry: true}),
			Failure{Type: "*fmt.wrapError", Code: "B000415", Message: "evaluate: model timed out", Retryable: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c DefaultErrorCodec
			got := c.Encode(tc.err)
			if got != tc.want {
				t.Errorf("Encode = %+v, want %+v", got, tc.want)
			}
			err := c.Decode(got)
			var re *ReplayedError
			if !errors.As(err, &re) || err.Error() != tc.want.Message || re.IsRetryable() != tc.want.Retryable || re.ErrorCode() != tc.want.Code {
				t.Errorf("Decode = %#v", err)
			}
		})
	}
}

func TestL1Replay(t *testing.T) {
	cfg := testConfig("")
	cfg.Mode = ModeLocal
	cfg.L1MaxEntries = 2
	cfg.Stages = map[string]Policy{
		"cached":   {L1Enabled: true, L1TTL: time.Minute},
		"uncached": {L1Enabled: false},
		"brief":    {L1Enabled: true, L1TTL: 50 * time.Millisecond},
	}
	g := MustNew(t, cfg, nil)
	ctx := context.Background()
	do := func(stage, key string, c *counter) Result {
		r, err := g.Do(ctx, stage, key, c.fn(nil, key, nil))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var c counter
	do("cached", "a", &c)
	if r := do("cached", "a", &c); r.Outcome != ReplayL1 || c.get() != 1 {
		t.Errorf("cached repeat: %s, calls %d; want replay_l1, 1", r.Outcome, c.get())
	}
	var u counter
	do("uncached", "u", &u)
	if r := do("uncached", "u", &u); r.Outcome != OwnerNew || u.get() != 2 {
		t.Errorf("uncached repeat: %s, calls %d; want owner_new, 2", r.Outcome, u.get())
	}
	var b counter
	do("brief", "b", &b)
	time.Sleep(60 * time.Millisecond) // the per-stage TTL is the point
	if r := do("brief", "b", &b); r.Outcome != OwnerNew || b.get() != 2 {
		t.Errorf("after the stage's L1 TTL: %s, calls %d; want owner_new, 2", r.Outcome, b.get())
	}
	// Bounded: two more entries evict "a".
	do("cached", "x", &c)
	do("cached", "y", &c)
	if r := do("cached", "a", &c); r.Outcome != OwnerNew {
		t.Errorf("evicted entry: %s, want owner_new", r.Outcome)
	}
}
