package pocketsphinx_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/pocketsphinx"
	"github.com/xunzhi-ai/aimeeting/internal/speech/speechtest"
)

func mustEngine(tb testing.TB, cfg pocketsphinx.Config) *pocketsphinx.Engine {
	tb.Helper()
	e, err := pocketsphinx.New(cfg)
	if err != nil {
		speechtest.Missing(tb, "pocketsphinx", err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	return e
}

func TestStreamPartialAndFinal(t *testing.T) {
	e := mustEngine(t, pocketsphinx.Config{})
	const text = "i have five years of experience as a software engineer"
	pcm := append(speechtest.Speak(t, text), speechtest.Silence(1000)...)

	var mu sync.Mutex
	var partials, finals []string
	st, err := e.Start(context.Background(), func(r speech.Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.Final {
			finals = append(finals, r.Text)
		} else {
			partials = append(partials, r.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(pcm); off += 3201 { // odd chunk sizes on purpose
		if err := st.Write(pcm[off:min(off+3201, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(finals, " ")
	wer := speechtest.WER(text, got)
	t.Logf("partials %q\nfinal %q WER %.2f", partials, got, wer)
	if len(partials) == 0 {
		t.Error("no partial hypothesis while audio streamed")
	}
	if wer > 0.5 {
		t.Errorf("WER %.2f > 0.5", wer)
	}
}

// Decoders are bounded globally and per user, refusals come after MaxWait
// with the limit, and idle decoders are freed after IdleRelease (issue 16).
func TestLimitsAndIdleRelease(t *testing.T) {
	e := mustEngine(t, pocketsphinx.Config{MaxDecoders: 2, MaxDecodersPerUser: 1, IdleRelease: 300 * time.Millisecond,
		MaxWait: 50 * time.Millisecond})
	as := func(user string) context.Context {
		return auth.NewContext(context.Background(), auth.Caller{UserID: user})
	}
	start := func(ctx context.Context) (speech.Stream, error) { return e.Start(ctx, func(speech.Result) {}) }
	mustStart := func(ctx context.Context) speech.Stream {
		t.Helper()
		st, err := start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	wantLimit := func(err, target error, limit int) {
		t.Helper()
		var le *speech.LimitError
		if !errors.Is(err, target) || !errors.As(err, &le) || le.Limit != limit {
			t.Fatalf("Start = %v, want %v with limit %d", err, target, limit)
		}
	}
	a := mustStart(as("alice"))
	_, err := start(as("alice"))
	wantLimit(err, speech.ErrUserBusy, 1)
	b := mustStart(as("bob"))
	_, err = start(as("carol"))
	wantLimit(err, speech.ErrBusy, 2)
	_, err = start(context.Background()) // no user: only the global limit
	wantLimit(err, speech.ErrBusy, 2)

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if busy, idle := e.Stats(); busy != 1 || idle != 1 {
		t.Fatalf("after one close: busy %d idle %d, want 1 1", busy, idle)
	}
	c := mustStart(as("carol")) // reuses alice's decoder
	if busy, idle := e.Stats(); busy != 2 || idle != 0 {
		t.Fatalf("after reuse: busy %d idle %d, want 2 0", busy, idle)
	}
	_ = b.Close()
	_ = c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		busy, idle := e.Stats()
		if busy == 0 && idle == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle decoders not released: busy %d idle %d", busy, idle)
		}
	}
	_ = mustStart(as("alice")).Close() // a fresh decoder after the release
}

// A Start over a limit gets the slot a closing stream releases within
// MaxWait: a page reconnecting right after its socket dropped.
func TestStartWaitsForRelease(t *testing.T) {
	e := mustEngine(t, pocketsphinx.Config{MaxDecoders: 2, MaxDecodersPerUser: 1, MaxWait: time.Minute})
	ctx := auth.NewContext(context.Background(), auth.Caller{UserID: "alice"})
	old, err := e.Start(ctx, func(speech.Result) {})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		st, err := e.Start(ctx, func(speech.Result) {})
		if err == nil {
			err = st.Close()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second Start of alice returned %v while her first runs", err)
	case <-time.After(100 * time.Millisecond):
	}
	_ = old.Close()
	if err := <-got; err != nil {
		t.Fatalf("waiting Start: %v", err)
	}
}
