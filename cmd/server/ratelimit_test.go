package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/app"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// Each route spends the bucket its route table names: chat streams (chat
// and agent), TTS syntheses and interview answers have buckets of their
// own, so spending one leaves the others, and the default, untouched.
func TestRateLimitBucketsPerRoute(t *testing.T) {
	_, srv := startInProcess(t, "RATE_LIMIT_ENABLED=true", "AUTH_BCRYPT_COST=4",
		"RATE_LIMIT_CHAT=1", "RATE_LIMIT_TTS=1", "RATE_LIMIT_ANSWER=1", "RATE_LIMIT_DEFAULT=1000", "RATE_LIMIT_READ=1000")
	token := MustRegisterLogin(t, srv.URL, "limited").Token
	call := func(method, path string, body any) int {
		return servertest.Do(t, method, srv.URL+api+path, token, body).Status
	}

	// Rate 1, burst 1: the first request of a bucket passes the limit (and
	// fails further on: the session does not exist, the body is empty),
	// the next one within the second is a 429.
	steps := []struct {
		name, method, path string
		body               any
		want429            bool
	}{
		{"first chat stream", "POST", "/ai/sessions/missing/chat", map[string]string{"inputMessage": "hi"}, false},
		{"second chat stream", "POST", "/ai/sessions/missing/chat", map[string]string{"inputMessage": "hi"}, true},
		{"agent stream shares the chat bucket", "POST", "/agents/sessions/missing/chat", map[string]string{"inputMessage": "hi"}, true},
		{"default bucket untouched", "GET", "/ai/conversations", nil, false},
		{"first synthesis", "POST", "/xunfei/tts/synthesize", map[string]string{}, false},
		{"task creation shares the tts bucket", "POST", "/xunfei/tts/tasks", map[string]string{}, true},
		{"tts reads use the default bucket", "GET", "/xunfei/tts/tasks", nil, false},
		{"first answer", "POST", "/interview/sessions/missing/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "a"}, false},
		{"second answer", "POST", "/interview/sessions/missing/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "a"}, true},
		{"interview reads untouched", "GET", "/interview/conversations", nil, false},
	}
	for _, s := range steps {
		got := call(s.method, s.path, s.body)
		if (got == 429) != s.want429 {
			t.Fatalf("%s: %s %s = %d, want 429: %v", s.name, s.method, s.path, got, s.want429)
		}
	}
}

// startInProcess runs the app in this process on the embedded defaults
// plus env, its data under a temporary directory, behind an httptest server.
func startInProcess(t *testing.T, env ...string) (*app.App, *httptest.Server) {
	t.Helper()
	t.Chdir(t.TempDir())
	cfg, _, err := loadConfig("", env)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return a, srv
}
