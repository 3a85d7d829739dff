package speech_test

import (
	"context"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

func TestTranscribeFormats(t *testing.T) {
	tr := speech.NewTranscriber(&fakeRecognizer{})
	pcm := make([]byte, speech.BytesPerSecond) // 1 s = ten 100 ms chunks
	tests := []struct {
		name     string
		data     []byte
		filename string
		text     string
		kind     apperr.Kind // 0 with text = success
	}{
		{"wav", audio.EncodeWAV(pcm, audio.Rate), "a.wav", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10", 0},
		{"raw pcm", pcm, "a.pcm", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10", 0},
		{"odd pcm", pcm[:101], "a.pcm", "", apperr.KindUnprocessable},
		{"broken wav", []byte("RIFF\x00\x00\x00\x00WAVEjunk"), "a.wav", "", apperr.KindUnprocessable},
		{"mp4", append([]byte("\x00\x00\x00\x18ftypmp42"), make([]byte, 64)...), "a.m4a", "", apperr.KindUnprocessable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tr.Transcribe(context.Background(), tt.data, tt.filename)
			if tt.text == "" {
				if !apperr.Is(err, tt.kind) {
					t.Fatalf("err %v, want kind %v", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text || got.DurationMs != 1000 || got.Provider != "fake" {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestUnavailable(t *testing.T) {
	_, err := speech.Recognize(context.Background(), speech.Unavailable{Reason: "none"}, make([]byte, 10))
	if !apperr.Is(err, apperr.KindUnavailable) {
		t.Fatalf("err %v, want unavailable", err)
	}
}
