package llmtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	return postStage(t, url, "", body)
}

// postStage posts body marked with stage (llm.StageHeader) when not "".
func postStage(t *testing.T, url, stage, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if stage != "" {
		req.Header.Set(llm.StageHeader, stage)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServerStreamsSSE(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Reasoning: []string{"hmm"}, Chunks: []string{"a", "b"}}
	}))
	status, body := postStage(t, srv.URL()+"/chat/completions", "interview-evaluation",
		`{"model":"m","stream":true,"messages":[{"role":"system","content":"You judge answers."},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`)
	if status != http.StatusOK {
		t.Fatalf("status = %d, body %s", status, body)
	}
	for _, want := range []string{`"reasoning_content":"hmm"`, `"content":"a"`, `"content":"b"`, `"finish_reason":"stop"`, "data: [DONE]\n\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %q:\n%s", want, body)
		}
	}
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("stream does not end with [DONE]:\n%s", body)
	}

	req := srv.Last(t)
	if !req.Stream || req.Model != "m" || req.LastUserMessage() != "hi" ||
		len(req.Messages[1].Images) != 1 || req.Messages[1].Images[0] != "data:image/png;base64,AA==" {
		t.Errorf("recorded %+v", req)
	}
	if got := req.Stage(); got != "interview-evaluation" {
		t.Errorf("Stage() = %q, want interview-evaluation", got)
	}
	if got := srv.CallsOf("interview-evaluation"); got != 1 {
		t.Errorf("CallsOf = %d, want 1", got)
	}
	if got := srv.CallsOf("interview-followup"); got != 0 {
		t.Errorf("CallsOf other stage = %d, want 0", got)
	}
}

func TestServerErrorsAndRoutes(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.ErrorReply(http.StatusTooManyRequests, "slow down", "rate_limit_exceeded")
	})
	status, body := post(t, srv.URL()+"/chat/completions", `{"model":"m","messages":[]}`)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "slow down") {
		t.Errorf("got %d %s, want 429 with the message", status, body)
	}
	if status, _ := post(t, srv.URL()+"/embeddings", `{}`); status != http.StatusNotFound {
		t.Errorf("unknown route: status %d, want 404", status)
	}
	if srv.Calls() != 1 {
		t.Errorf("calls = %d, want 1 (unknown routes are not calls)", srv.Calls())
	}
}
