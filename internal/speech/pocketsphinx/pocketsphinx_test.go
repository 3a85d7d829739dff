package pocketsphinx_test

import (
	"context"
	"strings"
	"sync"
	"testing"

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

func TestBusy(t *testing.T) {
	e := mustEngine(t, pocketsphinx.Config{MaxDecoders: 1})
	st, err := e.Start(context.Background(), func(speech.Result) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(context.Background(), func(speech.Result) {}); err != speech.ErrBusy {
		t.Fatalf("second Start = %v, want ErrBusy", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = e.Start(context.Background(), func(speech.Result) {})
	if err != nil {
		t.Fatalf("Start after Close: %v", err)
	}
	_ = st.Close()
}
