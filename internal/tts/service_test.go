package tts_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// recorder wraps a synthesizer and records the samples each segment
// contributes (after conversion to the task's rate).
type recorder struct {
	tts.Synthesizer
	mu      sync.Mutex // protects samples
	samples map[string]int
}

func (r *recorder) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	b, err := r.Synthesizer.Synthesize(ctx, text, p)
	if err != nil {
		return nil, err
	}
	w, err := audio.ParseWAV(b)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.samples[text] = len(w.Mono16(p.SampleRate))
	r.mu.Unlock()
	return b, nil
}

// A 20,000-character mixed Chinese/English text becomes one WAV whose length
// is exactly the sum of its segments plus the pauses; progress only grows
// and reaches 100.
func TestLongMixedTextOneWAV(t *testing.T) {
	rec := &recorder{Synthesizer: MustEspeak(t), samples: map[string]int{}}
	cfg := testConfig(t.TempDir())
	svc := MustService(t, nil, rec, cfg)
	text := mixedText(20000)
	task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: text}))
	var progress []int
	for _, st := range wait(t, svc, task.ID, "u1") {
		progress = append(progress, st.Progress())
	}
	checkMonotonic(t, progress)
	done := must[*tts.Task](t)(svc.Get(context.Background(), task.ID, "u1"))
	if done.Status != tts.StatusDone {
		t.Fatalf("status %d: %s", done.Status, done.ErrorMessage)
	}
	f := must[*tts.AudioFile](t)(svc.OpenAudio(context.Background(), task.ID, "u1"))
	defer f.Close()
	b := must[[]byte](t)(io.ReadAll(f))
	w := must[audio.WAV](t)(audio.ParseWAV(b))
	if w.Channels != 1 || w.BitsPerSample != 16 || w.SampleRate != tts.DefaultSampleRate || w.AudioFormat != 1 {
		t.Fatalf("format %+v", w.Format)
	}
	if len(w.Data) != len(b)-44 {
		t.Fatalf("data chunk %d bytes, file %d: header sizes wrong", len(w.Data), len(b))
	}
	segs := tts.Segments(text, cfg.SegmentMaxChars)
	want := 0
	for _, s := range segs {
		n, ok := rec.samples[s]
		if !ok {
			t.Fatalf("segment %q was never synthesised", s)
		}
		want += n
	}
	pause := tts.DefaultSampleRate * int(cfg.Pause.Milliseconds()) / 1000
	want += (len(segs) - 1) * pause
	if got := w.Samples(); got != want {
		t.Fatalf("WAV has %d samples; segments %d + pauses = %d", got, len(segs), want)
	}
	if done.DurationMs != w.DurationMs() || done.SegmentsDone != len(segs) || done.SegmentsTotal != len(segs) {
		t.Fatalf("task says %d ms, %d/%d segments; file %d ms, %d segments", done.DurationMs,
			done.SegmentsDone, done.SegmentsTotal, w.DurationMs(), len(segs))
	}
	t.Logf("%d runes -> %d segments, %.1f s of audio, %d progress events", len([]rune(text)), len(segs),
		float64(w.DurationMs())/1000, len(progress))
}

func TestCreateValidation(t *testing.T) {
	svc := MustService(t, nil, &toneSynth{rate: 16000}, testConfig(t.TempDir()))
	tests := []struct {
		name string
		req  tts.CreateRequest
		want string
	}{
		{"empty text", tts.CreateRequest{Text: "  "}, "text is required"},
		{"too long", tts.CreateRequest{Text: strings.Repeat("字", tts.MaxTextChars+1)}, "at most 100000"},
		{"speed", tts.CreateRequest{Text: "hi", Speed: ptr(101)}, "speed must be between 0 and 100"},
		{"volume", tts.CreateRequest{Text: "hi", Volume: ptr(-1)}, "volume must be between 0 and 100"},
		{"pitch", tts.CreateRequest{Text: "hi", Pitch: ptr(200)}, "pitch must be between 0 and 100"},
		{"encoding", tts.CreateRequest{Text: "hi", AudioEncoding: ptr("ogg")}, "audioEncoding must be wav or mp3"},
		{"sample rate", tts.CreateRequest{Text: "hi", SampleRate: ptr(12345)}, "sampleRate must be one of"},
		{"language", tts.CreateRequest{Text: "hi", Language: ptr("fr")}, "language must be zh, en or auto"},
		{"voice", tts.CreateRequest{Text: "hi", Vcn: ptr("bad voice!")}, "vcn must be a voice name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Create(context.Background(), "u1", tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if k := apperr.KindOf(err); k != apperr.KindInvalid && k != apperr.KindTooLarge {
				t.Fatalf("kind %v", k)
			}
		})
	}
	t.Run("mp3 without lame", func(t *testing.T) {
		cfg := testConfig(t.TempDir())
		cfg.Lame = ""
		svc := MustService(t, nil, &toneSynth{rate: 16000}, cfg)
		_, err := svc.Create(context.Background(), "u1", tts.CreateRequest{Text: "hi", AudioEncoding: ptr("mp3")})
		if err == nil || !strings.Contains(err.Error(), "mp3 is unavailable") {
			t.Fatalf("got %v", err)
		}
	})
}

// Segments at 22.05 kHz are resampled; the result is exact in length.
func TestResampledJoin(t *testing.T) {
	synth := &toneSynth{rate: 22050}
	cfg := testConfig(t.TempDir())
	cfg.SegmentMaxChars = 10
	svc := MustService(t, nil, synth, cfg)
	task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: "One. Two two. Three three three.", SampleRate: ptr(8000)}))
	wait(t, svc, task.ID, "u1")
	f := must[*tts.AudioFile](t)(svc.OpenAudio(context.Background(), task.ID, "u1"))
	defer f.Close()
	w := must[audio.WAV](t)(audio.ParseWAV(must[[]byte](t)(io.ReadAll(f))))
	segs := tts.Segments("One. Two two. Three three three.", cfg.SegmentMaxChars)
	want := (len(segs) - 1) * 8000 / 4
	for _, s := range segs {
		n := 100 * len(s)
		want += (n*8000 + 22050/2) / 22050
	}
	if w.SampleRate != 8000 || w.Samples() != want {
		t.Fatalf("rate %d samples %d, want 8000 and %d", w.SampleRate, w.Samples(), want)
	}
}

func TestMP3(t *testing.T) {
	requireTool(t, "lame")
	svc := MustService(t, nil, &toneSynth{rate: 16000}, testConfig(t.TempDir()))
	task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: "Hello. World.", AudioEncoding: ptr("mp3")}))
	wait(t, svc, task.ID, "u1")
	f := must[*tts.AudioFile](t)(svc.OpenAudio(context.Background(), task.ID, "u1"))
	defer f.Close()
	b := must[[]byte](t)(io.ReadAll(f))
	if f.ContentType != "audio/mpeg" || len(b) < 100 || !(string(b[:3]) == "ID3" || b[0] == 0xFF) {
		t.Fatalf("not an MP3: %s %q", f.ContentType, b[:min(8, len(b))])
	}
}

// A segment failing twice succeeds on its third attempt; one failing
// always fails the task with a message, never leaving it running.
func TestRetries(t *testing.T) {
	t.Run("recovers", func(t *testing.T) {
		fails := map[string]int{}
		var mu sync.Mutex
		synth := &toneSynth{rate: 16000, fail: func(text string, _ int64) error {
			mu.Lock()
			defer mu.Unlock()
			if text == "Flaky." && fails[text] < 2 {
				fails[text]++
				return errors.New("transient")
			}
			return nil
		}}
		cfg := testConfig(t.TempDir())
		cfg.SegmentMaxChars = 11 // one sentence per segment
		svc := MustService(t, nil, synth, cfg)
		task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: "Fine. Flaky. Fine again."}))
		seen := wait(t, svc, task.ID, "u1")
		if last := seen[len(seen)-1]; last.Status != tts.StatusDone {
			t.Fatalf("status %d %s", last.Status, last.ErrorMessage)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		synth := &toneSynth{rate: 16000, fail: func(text string, _ int64) error {
			if text == "Broken." {
				return errors.New("engine crashed")
			}
			return nil
		}}
		cfg := testConfig(t.TempDir())
		cfg.SegmentMaxChars = 11
		svc := MustService(t, nil, synth, cfg)
		task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: "Fine. Broken. Fine again."}))
		seen := wait(t, svc, task.ID, "u1")
		last := seen[len(seen)-1]
		if last.Status != tts.StatusFailed || !strings.Contains(last.ErrorMessage, "segment 2 of 3") ||
			!strings.Contains(last.ErrorMessage, "3 attempts") || !strings.Contains(last.ErrorMessage, "engine crashed") {
			t.Fatalf("status %d message %q", last.Status, last.ErrorMessage)
		}
		if n := synth.seen["Broken."]; n != 3 {
			t.Fatalf("Broken. tried %d times, want 3", n)
		}
		// The segments synthesised before the failure are gone (issue 16).
		mustLeaveNoFiles(t, cfg.Files)
	})
}

// DELETE of a running task stops its synthesis and ends it failed with
// "cancelled"; a finished task is deleted with its audio.
func TestCancelAndDelete(t *testing.T) {
	synth := &toneSynth{rate: 16000, delay: 50 * time.Millisecond}
	cfg := testConfig(t.TempDir())
	svc := MustService(t, nil, synth, cfg)
	ctx := context.Background()
	task := must[*tts.Task](t)(svc.Create(ctx, "u1", tts.CreateRequest{Text: strings.Repeat("Sentence number one. ", 500)}))
	w := context.Background()
	wctx, stop := context.WithCancel(w)
	_ = svc.Watch(wctx, task.ID, "u1", func(cur *tts.Task) error {
		if cur.SegmentsDone > 0 {
			stop()
		}
		return nil
	})
	got := must[*tts.Task](t)(svc.Delete(ctx, task.ID, "u1"))
	if got == nil || got.Status != tts.StatusFailed || got.ErrorMessage != tts.CancelledMessage {
		t.Fatalf("after cancel: %+v", got)
	}
	time.Sleep(200 * time.Millisecond)
	calls := synth.calls.Load()
	time.Sleep(200 * time.Millisecond)
	if synth.calls.Load() != calls || calls >= int64(task.SegmentsTotal) {
		t.Fatalf("synthesis went on after cancel: %d then %d calls", calls, synth.calls.Load())
	}
	// Its finished segments are deleted with its work folder (issue 16).
	mustLeaveNoFiles(t, cfg.Files)
	if _, err := svc.Get(ctx, task.ID, "u2"); !apperr.Is(err, apperr.KindNotFound) {
		t.Fatalf("another user's task: %v", err)
	}

	done := must[*tts.Task](t)(svc.Create(ctx, "u1", tts.CreateRequest{Text: "Short one."}))
	wait(t, svc, done.ID, "u1")
	if _, err := svc.Delete(ctx, done.ID, "u2"); !apperr.Is(err, apperr.KindNotFound) {
		t.Fatalf("another user deleting: %v", err)
	}
	if got, err := svc.Delete(ctx, done.ID, "u1"); err != nil || got != nil {
		t.Fatalf("delete finished: %v %v", got, err)
	}
	if _, err := svc.Get(ctx, done.ID, "u1"); !apperr.Is(err, apperr.KindNotFound) {
		t.Fatalf("deleted task still there: %v", err)
	}
	if n, err := cfg.Files.Count(ctx, tts.AudioPrefix); err != nil || n != 0 {
		t.Fatalf("%d audio blobs left behind (%v)", n, err)
	}
}

// A task cancelled while the real espeak-ng synthesises it leaves no file
// behind, nor does a failed one (issue 16).
func TestCancelledRealSynthesisLeavesNoFiles(t *testing.T) {
	synth := MustEspeak(t)
	cfg := testConfig(t.TempDir())
	cfg.SegmentMaxChars = 40
	svc := MustService(t, nil, synth, cfg)
	ctx := context.Background()
	task := must[*tts.Task](t)(svc.Create(ctx, "u1", tts.CreateRequest{Text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 60)}))
	wctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	_ = svc.Watch(wctx, task.ID, "u1", func(cur *tts.Task) error {
		if cur.SegmentsDone >= 2 {
			stop()
		}
		return nil
	})
	if n, _ := cfg.Files.Count(ctx, tts.WorkPrefix+task.Key+"/"); n == 0 {
		t.Fatal("no segment on disk before the cancel: the test proves nothing")
	}
	got := must[*tts.Task](t)(svc.Delete(ctx, task.ID, "u1"))
	if got == nil || got.Status != tts.StatusFailed || got.ErrorMessage != tts.CancelledMessage {
		t.Fatalf("after cancel: %+v", got)
	}
	mustLeaveNoFiles(t, cfg.Files)
}

// mustLeaveNoFiles waits (at most 10 s: the cleanup follows the task's
// goroutine) until the store holds no blob but finished audio and its
// metadata: no segment, no temporary file.
func mustLeaveNoFiles(tb testing.TB, files *blobstore.Store) {
	tb.Helper()
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		left = left[:0]
		err := files.List(context.Background(), "", func(i blobstore.Info) error {
			if !strings.HasPrefix(i.Key, tts.AudioPrefix) || strings.HasSuffix(i.Key, ".tmp") {
				left = append(left, i.Key)
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("files left behind: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Identical concurrent tasks share one synthesis: each segment once.
func TestIdenticalTasksSynthesizeOnce(t *testing.T) {
	synth := &toneSynth{rate: 16000, delay: 5 * time.Millisecond}
	svc := MustService(t, nil, synth, testConfig(t.TempDir()))
	text := strings.Repeat("Alpha beta. Gamma delta! ", 20) + "End."
	var ids []string
	for _, u := range []string{"u1", "u2", "u3"} {
		ids = append(ids, must[*tts.Task](t)(svc.Create(context.Background(), u, tts.CreateRequest{Text: text})).ID)
	}
	for i, id := range ids {
		seen := wait(t, svc, id, []string{"u1", "u2", "u3"}[i])
		if last := seen[len(seen)-1]; last.Status != tts.StatusDone {
			t.Fatalf("task %d: %d %s", i, last.Status, last.ErrorMessage)
		}
	}
	if n, segs := synth.calls.Load(), len(tts.Segments(text, 300)); n != int64(segs) {
		t.Fatalf("%d provider calls for %d segments", n, segs)
	}
}

// A task left running by a dead instance (expired lease) is resumed by
// another: only its missing segments are synthesised. One interrupted too
// often is failed with a clear message.
func TestResumeAfterCrash(t *testing.T) {
	gdb := dbtest.SQLite(t)
	dir := t.TempDir()
	store := tts.NewGormStore(gdb)
	ctx := context.Background()
	text := "One. Two. Three. Four. Five. Six."
	p := must[tts.Params](t)(tts.CreateRequest{Text: text}.Validate(true))
	cfg := testConfig(dir)
	cfg.SegmentMaxChars = 6 // one sentence per segment
	key := tts.Key(text, p, cfg.SegmentMaxChars, cfg.Provider)
	past := time.Now().UTC().Add(-time.Minute)
	dead := &tts.Task{ID: "dead-task", UserID: "u1", Text: text, Params: p, Key: key, Status: tts.StatusRunning,
		SegmentsDone: 2, SegmentsTotal: 6, Owner: "dead-instance", LeaseUntil: past, Attempts: 1,
		CreatedAt: past, UpdatedAt: past}
	if err := store.Create(ctx, dead); err != nil {
		t.Fatal(err)
	}
	// The dead instance had finished segments 1 and 2.
	for i := range 2 {
		pcm := audio.PCMBytes(make([]int16, 1600))
		if err := cfg.Files.PutBytes(ctx, tts.WorkPrefix+key+"/"+[]string{"000000.pcm", "000001.pcm"}[i], pcm, ""); err != nil {
			t.Fatal(err)
		}
	}
	tired := *dead
	tired.ID, tired.Attempts, tired.Text = "tired-task", cfg.MaxAttempts, "Other text."
	tired.Key = tts.Key(tired.Text, p, cfg.SegmentMaxChars, cfg.Provider)
	if err := store.Create(ctx, &tired); err != nil {
		t.Fatal(err)
	}

	synth := &toneSynth{rate: 16000}
	svc := MustService(t, gdb, synth, cfg)
	seen := wait(t, svc, dead.ID, "u1")
	if last := seen[len(seen)-1]; last.Status != tts.StatusDone || last.Attempts != 2 {
		t.Fatalf("resumed task: status %d attempts %d %s", last.Status, last.Attempts, last.ErrorMessage)
	}
	if n := synth.calls.Load(); n != 4 {
		t.Fatalf("%d segments synthesised on resume, want the 4 missing", n)
	}
	seen = wait(t, svc, tired.ID, "u1")
	if last := seen[len(seen)-1]; last.Status != tts.StatusFailed || !strings.Contains(last.ErrorMessage, "gave up after 3 attempts") {
		t.Fatalf("tired task: %d %q", last.Status, last.ErrorMessage)
	}
}

// Close releases running tasks; another instance finishes them at once.
func TestGracefulHandOver(t *testing.T) {
	gdb := dbtest.SQLite(t)
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Lease = time.Hour // a hand-over must not wait for the lease
	cfg.SegmentMaxChars = 10
	slow := &toneSynth{rate: 16000, delay: 30 * time.Millisecond}
	a, err := tts.NewService(tts.NewGormStore(gdb), slow, MustFlights(t), cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Start()
	task := must[*tts.Task](t)(a.Create(context.Background(), "u1", tts.CreateRequest{Text: strings.Repeat("Tick tock. ", 60)}))
	wctx, stop := context.WithCancel(context.Background())
	_ = a.Watch(wctx, task.ID, "u1", func(cur *tts.Task) error {
		if cur.SegmentsDone >= 3 {
			stop()
		}
		return nil
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	mid := must[*tts.Task](t)(a.Get(context.Background(), task.ID, "u1"))
	if mid.Status != tts.StatusRunning || mid.Owner != "" || mid.Attempts != 0 {
		t.Fatalf("after Close: status %d owner %q attempts %d", mid.Status, mid.Owner, mid.Attempts)
	}
	b := MustService(t, gdb, &toneSynth{rate: 16000}, cfg)
	seen := wait(t, b, task.ID, "u1")
	var progress []int
	for _, s := range append([]*tts.Task{mid}, seen...) {
		progress = append(progress, s.Progress())
	}
	checkMonotonic(t, progress)
}

// A Chinese paragraph becomes a task whose audio lasts as long as Mandarin
// speech of its length: 0.12-0.5 s per Han character (people read 3-6 a
// second), split at Chinese sentence ends and read by the cmn voice.
func TestChineseParagraphDuration(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.SegmentMaxChars = 60
	svc := MustService(t, nil, MustEspeak(t), cfg)
	text := strings.Repeat("面试官请你介绍一下数据库索引。索引可以显著提高查询速度，但是会降低写入速度，并占用额外的存储空间！"+
		"那么，什么时候不应该建立索引呢？数据量很小的表；经常更新却很少查询的列。", 3)
	task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: text}))
	wait(t, svc, task.ID, "u1")
	done := must[*tts.Task](t)(svc.Get(context.Background(), task.ID, "u1"))
	if done.Status != tts.StatusDone {
		t.Fatalf("status %d: %s", done.Status, done.ErrorMessage)
	}
	han := 0
	for _, r := range text {
		if r >= 0x4e00 && r <= 0x9fff {
			han++
		}
	}
	if done.SegmentsTotal < 4 {
		t.Errorf("%d segments, want the paragraph cut at its sentence ends", done.SegmentsTotal)
	}
	perChar := float64(done.DurationMs) / 1000 / float64(han)
	t.Logf("%d Han characters, %d segments: %d ms, %.3f s per character", han, done.SegmentsTotal, done.DurationMs, perChar)
	if perChar < 0.12 || perChar > 0.5 {
		t.Errorf("%.3f s per Han character, want 0.12-0.5", perChar)
	}
}
