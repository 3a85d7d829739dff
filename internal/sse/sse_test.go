package sse_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/sse"
)

func TestWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	w, err := sse.Start(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed {
		t.Fatal("the stream was not flushed on start")
	}
	if err := w.Send("", map[string]string{"type": "content", "content": "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Send("end", struct{ N int }{3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Send("bad", func() {}); err == nil {
		t.Fatal("Send of an unencodable value succeeded")
	}
	want := "data: {\"content\":\"hi\",\"type\":\"content\"}\n\nevent: end\ndata: {\"N\":3}\n\n"
	if got := rec.Body.String(); got != want {
		t.Fatalf("body = %q, want %q", got, want)
	}
	h := rec.Result().Header
	if rec.Code != 200 || h.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
		h.Get("Cache-Control") != "no-cache" || h.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("status %d headers %v", rec.Code, h)
	}
}

// brokenWriter fails every write, as a connection whose client has gone.
type brokenWriter struct{ *httptest.ResponseRecorder }

func (b brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestSendToGoneClient(t *testing.T) {
	w, err := sse.Start(brokenWriter{httptest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Send("progress", 1); err == nil {
		t.Fatal("Send to a gone client succeeded")
	}
}

// plainWriter cannot flush.
type plainWriter struct{ h http.Header }

func (p plainWriter) Header() http.Header         { return p.h }
func (p plainWriter) Write(b []byte) (int, error) { return len(b), nil }
func (p plainWriter) WriteHeader(int)             {}

func TestStartNeedsFlusher(t *testing.T) {
	if _, err := sse.Start(plainWriter{h: http.Header{}}); err == nil {
		t.Fatal("Start on a writer that cannot flush succeeded")
	}
}
