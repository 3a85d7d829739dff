package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/openai"
)

// tone returns ms of a loud square wave (speech to the energy detector).
func tone(ms int) []byte {
	pcm := make([]byte, ms*32)
	for i := 0; i < len(pcm)/2; i++ {
		v := int16(8000)
		if i/20%2 == 0 {
			v = -8000
		}
		pcm[2*i], pcm[2*i+1] = byte(v), byte(v>>8)
	}
	return pcm
}

func TestStreamUtterances(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("Authorization %q", got)
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("not multipart: %v", err)
			http.Error(w, "bad", 400)
			return
		}
		if got := r.FormValue("model"); got != "whisper-1" {
			t.Errorf("model %q, want whisper-1", got)
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			t.Errorf("no file: %v", err)
			return
		}
		data, _ := io.ReadAll(f)
		if !strings.HasSuffix(fh.Filename, ".wav") || !audio.IsWAV(data) {
			t.Errorf("file %q is not a WAV", fh.Filename)
		}
		pcm, err := audio.DecodeWAV(data)
		if err != nil {
			t.Errorf("decode WAV: %v", err)
		}
		mu.Lock()
		sizes = append(sizes, len(pcm))
		n := len(sizes)
		mu.Unlock()
		fmt.Fprintf(w, `{"text": " utterance %d "}`, n)
	}))
	defer srv.Close()

	rec, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: "whisper-1"})
	if err != nil {
		t.Fatal(err)
	}
	silence := make([]byte, 32000) // 1 s
	var pcm []byte
	pcm = append(pcm, silence...)
	pcm = append(pcm, tone(800)...)
	pcm = append(pcm, silence...)
	pcm = append(pcm, tone(500)...) // no trailing silence: flushed by Close
	text, err := speech.Recognize(context.Background(), rec, pcm)
	if err != nil {
		t.Fatal(err)
	}
	if want := "utterance 1 utterance 2"; text != want {
		t.Errorf("text %q, want %q", text, want)
	}
	if len(sizes) != 2 || sizes[0] < 800*32 || sizes[0] > 1500*32 {
		t.Errorf("utterance sizes %v, want two, the first about 0.8 s", sizes)
	}
}

func TestUpstreamError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": "overloaded"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	rec, _ := openai.New(openai.Config{BaseURL: srv.URL, Model: "m"})
	if _, err := rec.Transcribe(context.Background(), audio.EncodeWAV(tone(100), audio.Rate)); err == nil {
		t.Fatal("want an error for a 503")
	}
}
