package tts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// BenchmarkSegments measures segments synthesised per second by espeak-ng
// through the whole pipeline (split, provider, join), sequentially and with
// the concurrency limit:
//
//	go test -run '^$' -bench Segments -benchtime 3x ./internal/tts/
func BenchmarkSegments(b *testing.B) {
	synth := MustEspeak(b)
	for _, conc := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			cfg := testConfig(b.TempDir())
			cfg.MaxConcurrency = conc
			cfg.SegmentMaxChars = 120
			svc := MustService(b, nil, synth, cfg)
			segments := 0
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				// A new text each time: identical ones would be served from the cache.
				text := fmt.Sprintf("Run %d of %d. ", i, conc) + strings.Repeat(
					"The interviewer asked about caching strategies and consistency. 面试官询问了缓存策略和一致性问题。", 12)
				task, err := svc.Create(context.Background(), "bench", tts.CreateRequest{Text: text})
				if err != nil {
					b.Fatal(err)
				}
				seen := wait(b, svc, task.ID, "bench")
				if last := seen[len(seen)-1]; last.Status != tts.StatusDone {
					b.Fatalf("status %d %s", last.Status, last.ErrorMessage)
				}
				segments += task.SegmentsTotal
			}
			b.ReportMetric(float64(segments)/time.Since(start).Seconds(), "segments/s")
		})
	}
}

// BenchmarkProvider isolates the provider: espeak-ng calls (plus the
// conversion to 16 kHz mono) with at most `concurrency` at once, bounded
// by a semaphore as in the pipeline.
func BenchmarkProvider(b *testing.B) {
	synth := MustEspeak(b)
	segs := tts.Segments(strings.Repeat(
		"The interviewer asked about caching strategies and consistency. 面试官询问了缓存策略和一致性问题。", 12), 120)
	p := tts.Params{Speed: 50, Volume: 50, Pitch: 50, SampleRate: 16000}
	for _, conc := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			sem := semaphore.NewWeighted(int64(conc))
			n := 0
			start := time.Now()
			for b.Loop() {
				g, ctx := errgroup.WithContext(context.Background())
				for _, seg := range segs {
					if err := sem.Acquire(ctx, 1); err != nil {
						b.Fatal(err)
					}
					g.Go(func() error {
						defer sem.Release(1)
						w, err := synth.Synthesize(ctx, seg, p)
						if err != nil {
							return err
						}
						wav, err := audio.ParseWAV(w)
						_ = wav.Mono16(p.SampleRate)
						return err
					})
				}
				if err := g.Wait(); err != nil {
					b.Fatal(err)
				}
				n += len(segs)
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "segments/s")
		})
	}
}
