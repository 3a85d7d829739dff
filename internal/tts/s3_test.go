package tts_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// On a real S3 server: segments and the joined audio are blobs; while the
// store is down a task waits (it is neither failed nor finished) and it
// finishes once the store is back, leaving only the audio.
func TestSynthesisThroughS3AndOutage(t *testing.T) {
	srv := s3test.Start(t)
	cfg := testConfig(t.TempDir())
	cfg.Files = srv.Store()
	cfg.SegmentMaxChars = 40
	synth := &toneSynth{rate: 16000}
	svc := MustService(t, nil, synth, cfg)
	ctx := context.Background()

	task := must[*tts.Task](t)(svc.Create(ctx, "u1", tts.CreateRequest{Text: strings.Repeat("Read from the bucket. ", 6)}))
	seen := wait(t, svc, task.ID, "u1")
	if last := seen[len(seen)-1]; last.Status != tts.StatusDone {
		t.Fatalf("task: %d %s", last.Status, last.ErrorMessage)
	}
	f := must[*tts.AudioFile](t)(svc.OpenAudio(ctx, task.ID, "u1"))
	w := must[audio.WAV](t)(audio.ParseWAV(must[[]byte](t)(io.ReadAll(f))))
	f.Close()
	if w.Samples() == 0 {
		t.Fatal("empty audio")
	}

	srv.Stop()
	down := must[*tts.Task](t)(svc.Create(ctx, "u1", tts.CreateRequest{Text: strings.Repeat("Wait for the store. ", 6)}))
	if _, err := svc.OpenAudio(ctx, task.ID, "u1"); err == nil {
		t.Fatal("audio opened while the store is down")
	}
	time.Sleep(time.Second)
	if cur := must[*tts.Task](t)(svc.Get(ctx, down.ID, "u1")); cur.Status.Terminal() {
		t.Fatalf("task ended while the store was down: %d %s", cur.Status, cur.ErrorMessage)
	}
	srv.Start()
	seen = wait(t, svc, down.ID, "u1")
	if last := seen[len(seen)-1]; last.Status != tts.StatusDone {
		t.Fatalf("task after the outage: %d %s", last.Status, last.ErrorMessage)
	}
	mustLeaveNoFiles(t, cfg.Files)
}
