package tts_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
)

// requireTool skips when a binary is missing, except under CI=true where it
// fails (scripts/tts-deps.sh installs them).
func requireTool(tb testing.TB, name string) {
	tb.Helper()
	if espeak.Available(name) {
		return
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s is required under CI=true: run scripts/tts-deps.sh", name)
	}
	tb.Skipf("%s not installed; run scripts/tts-deps.sh", name)
}

// MustEspeak returns the espeak-ng synthesizer or skips (fails under CI).
func MustEspeak(tb testing.TB) *espeak.Synthesizer {
	tb.Helper()
	requireTool(tb, "espeak-ng")
	s, err := espeak.New("espeak-ng")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// MustFlights returns an in-process single-flight group.
func MustFlights(tb testing.TB) *singleflight.Group {
	tb.Helper()
	cfg := singleflight.DefaultConfig()
	cfg.Mode = singleflight.ModeLocal
	cfg.Stages = map[string]singleflight.Policy{tts.Stage: tts.FlightPolicy()}
	g, err := singleflight.New(cfg, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = g.Close() })
	return g
}

// testConfig is a fast configuration under dir.
func testConfig(dir string) tts.Config {
	cfg := tts.DefaultConfig()
	files, err := blobstore.Open(context.Background(), "file://"+dir)
	if err != nil {
		panic(err)
	}
	cfg.Files = files
	cfg.Lease = 2 * time.Second
	cfg.Heartbeat = 100 * time.Millisecond
	cfg.PollInterval = 50 * time.Millisecond
	cfg.ProgressInterval = 20 * time.Millisecond
	cfg.RetryDelay = time.Millisecond
	cfg.SegmentMaxChars = 300
	cfg.Lame = "/usr/bin/lame"
	return cfg
}

// MustService starts a service on gdb (a fresh SQLite when nil).
func MustService(tb testing.TB, gdb *gorm.DB, synth tts.Synthesizer, cfg tts.Config) *tts.Service {
	tb.Helper()
	if gdb == nil {
		gdb = dbtest.SQLite(tb)
	}
	svc, err := tts.NewService(tts.NewGormStore(gdb), synth, MustFlights(tb), cfg, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	svc.Start()
	tb.Cleanup(func() { _ = svc.Close() })
	return svc
}

// toneSynth is a fake provider: 100 samples of a tone per rune of text at
// rate, optionally slowed, failing or blocking on chosen segments.
type toneSynth struct {
	rate  int
	delay time.Duration
	calls atomic.Int64
	// fail, when set, returns the error of a call (nil: succeed).
	fail func(text string, call int64) error

	mu   sync.Mutex // protects seen
	seen map[string]int
}

func (s *toneSynth) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	n := s.calls.Add(1)
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	s.seen[text]++
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.fail != nil {
		if err := s.fail(text, n); err != nil {
			return nil, err
		}
	}
	samples := make([]int16, 100*len([]rune(text)))
	for i := range samples {
		samples[i] = int16(8000 * ((i / 20) % 2))
	}
	return audio.EncodeWAV(audio.PCMBytes(samples), s.rate), nil
}

// wait watches task id until it ends (or 5 minutes), returning every state seen.
func wait(tb testing.TB, svc *tts.Service, id, user string) []*tts.Task {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var seen []*tts.Task
	if err := svc.Watch(ctx, id, user, func(t *tts.Task) error { seen = append(seen, t); return nil }); err != nil {
		tb.Fatalf("watch %s: %v (seen %d states)", id, err, len(seen))
	}
	return seen
}

// checkMonotonic fails unless progress never decreases and ends at 100.
func checkMonotonic(tb testing.TB, progress []int) {
	tb.Helper()
	for i := 1; i < len(progress); i++ {
		if progress[i] < progress[i-1] {
			tb.Fatalf("progress went down: %v", progress)
		}
	}
	if len(progress) == 0 || progress[len(progress)-1] != 100 {
		tb.Fatalf("progress did not reach 100: %v", progress)
	}
}

// mixedText returns about n runes of mixed Chinese and English sentences.
func mixedText(n int) string {
	sentences := []string{
		"今天我们讨论系统设计的基本原则。", "Scalability matters when traffic grows quickly. ",
		"缓存可以显著降低数据库的压力，但是需要处理一致性问题！", "Can you explain how a load balancer works? ",
		"面试官希望听到具体的例子；", "For example, we sharded the orders table by user id. ",
		"版本 3.14 修复了这个问题。", "The p99 latency dropped from 250 ms to 40 ms, i.e. six times faster! ",
	}
	var b strings.Builder
	for i := 0; b.Len() < 4*n; i++ {
		b.WriteString(sentences[i%len(sentences)])
		if len([]rune(b.String())) >= n {
			break
		}
	}
	r := []rune(b.String())
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

func ptr[T any](v T) *T { return &v }

func must[T any](tb testing.TB) func(T, error) T {
	return func(v T, err error) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

var _ = fmt.Sprint
