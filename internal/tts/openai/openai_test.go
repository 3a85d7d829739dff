package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/openai"
)

// The request is the documented /audio/speech call; the WAV is returned.
func TestSynthesize(t *testing.T) {
	wav := audio.EncodeWAV(make([]byte, 4800), 24000)
	var got openai.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/v1/audio/speech" || r.Header.Get("Authorization") != "Bearer sk-test" ||
			r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request line or headers", 400)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Write(wav)
	}))
	defer srv.Close()
	s, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: "tts-1", Voice: "alloy"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Synthesize(context.Background(), "Hello there.", tts.Params{Speed: 75})
	if err != nil {
		t.Fatal(err)
	}
	want := openai.Request{Model: "tts-1", Voice: "alloy", Input: "Hello there.", ResponseFormat: "wav", Speed: 1.41}
	if got != want {
		t.Fatalf("request %+v, want %+v", got, want)
	}
	if string(b) != string(wav) {
		t.Fatal("WAV not returned as is")
	}
	if _, err := s.Synthesize(context.Background(), "x", tts.Params{Voice: "nova", Speed: 50}); err != nil || got.Voice != "nova" || got.Speed != 1 {
		t.Fatalf("voice override: %+v %v", got, err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		kind      apperr.Kind
		retryable bool
	}{
		{"rate limited", 429, apperr.KindUpstream, true},
		{"server error", 503, apperr.KindUpstream, true},
		{"bad request", 400, apperr.KindInvalid, false},
		{"unauthorized", 401, apperr.KindUnavailable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"error":"nope"}`, tt.status)
			}))
			defer srv.Close()
			s, _ := openai.New(openai.Config{BaseURL: srv.URL, Model: "tts-1"})
			_, err := s.Synthesize(context.Background(), "x", tts.Params{Speed: 50})
			if apperr.KindOf(err) != tt.kind || apperr.IsRetryable(err) != tt.retryable {
				t.Fatalf("got %v (kind %v, retryable %v)", err, apperr.KindOf(err), apperr.IsRetryable(err))
			}
		})
	}
}

func TestSpeed(t *testing.T) {
	for in, want := range map[int]float64{0: 0.5, 25: 0.71, 50: 1, 75: 1.41, 100: 2} {
		if got := openai.Speed(in); got != want {
			t.Errorf("Speed(%d) = %v, want %v", in, got, want)
		}
	}
}
