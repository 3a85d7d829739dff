package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// ollamaRequest is the part of an Ollama /api/chat request the tests check.
type ollamaRequest struct {
	Model    string `json:"model"`
	Format   string `json:"format"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string   `json:"role"`
		Content string   `json:"content"`
		Images  []string `json:"images"`
	} `json:"messages"`
	Options struct {
		Temperature float64 `json:"temperature"`
	} `json:"options"`
}

// fakeOllama serves /api/chat with the given NDJSON lines and status, and
// records the last request.
func fakeOllama(t *testing.T, status int, lines ...string) (url string, last func() ollamaRequest) {
	t.Helper()
	var mu sync.Mutex
	var got ollamaRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		err := json.NewDecoder(r.Body).Decode(&got)
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		for _, l := range lines {
			w.Write([]byte(l + "\n"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() ollamaRequest {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func TestOllama(t *testing.T) {
	url, last := fakeOllama(t, http.StatusOK,
		`{"model":"qwen","message":{"role":"assistant","content":"Hel"},"done":false}`,
		`{"model":"qwen","message":{"role":"assistant","content":"lo"},"done":false}`,
		`{"model":"qwen","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":5,"eval_count":2}`,
	)
	c, err := llm.NewOllama(llm.Config{BaseURL: url, Model: "qwen", Vision: true})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "hi", Images: []llm.Image{{MIME: "image/png", Data: []byte("PNG")}}},
		},
		Temperature: ptr(0.3),
		JSON:        true,
	}

	got, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := llm.Response{Content: "Hello", Model: "qwen", PromptTokens: 5, CompletionTokens: 2}
	if got != want {
		t.Errorf("Generate = %+v, want %+v", got, want)
	}
	r := last()
	if r.Model != "qwen" || r.Format != "json" || r.Stream || len(r.Messages) != 2 ||
		r.Messages[0].Role != "system" || r.Messages[1].Content != "hi" ||
		strings.Join(r.Messages[1].Images, ",") != "UE5H" || r.Options.Temperature < 0.29 || r.Options.Temperature > 0.31 {
		t.Errorf("request = %+v", r)
	}

	var chunks []string
	got, err = c.Stream(context.Background(), req, func(ch llm.Chunk) error {
		chunks = append(chunks, ch.Content)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if strings.Join(chunks, "|") != "Hel|lo" || got.Content != "Hello" || !last().Stream {
		t.Errorf("Stream = %q via chunks %q, want Hello via Hel|lo", got.Content, chunks)
	}
}

func TestOllamaErrorKeepsStatus(t *testing.T) {
	// The Ollama client reports a streamed error body without its status;
	// the transport still knows it.
	url, _ := fakeOllama(t, http.StatusNotFound, `{"error":"model \"qwen\" not found, try pulling it first"}`)
	c, err := llm.NewOllama(llm.Config{BaseURL: url, Model: "qwen"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	e := apperr.As(err)
	if e == nil || e.Kind != apperr.KindUpstream || e.Retryable || !strings.Contains(e.Message, "HTTP 404: model \"qwen\" not found") {
		t.Errorf("err = %v, want a non-retryable upstream error naming HTTP 404", err)
	}
}
