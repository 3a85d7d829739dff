package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

const testKey = "sk-test-SECRET-0123456789"

// MustOpenAI returns an OpenAI-compatible client talking to url.
func MustOpenAI(tb testing.TB, typ, url string) *llm.Client {
	tb.Helper()
	c, err := llm.NewOpenAI(llm.Config{Type: typ, BaseURL: url, APIKey: testKey, Model: "test-model"})
	if err != nil {
		tb.Fatalf("NewOpenAI: %v", err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func TestGenerateSendsRequest(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Content: `{"score": 80}`, PromptTokens: 12, CompletionTokens: 7}
	}))
	c, err := llm.NewOpenAI(llm.Config{Type: "deepseek", BaseURL: srv.URL(), APIKey: testKey, Model: "test-model", Vision: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Generate(context.Background(), llm.Request{
		Stage: "interview-evaluation",
		Model: "override-model",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are an interviewer."},
			{Role: llm.RoleUser, Content: "Evaluate this.", Images: []llm.Image{{MIME: "image/png", Data: []byte("PNG")}}},
			{Role: llm.RoleAssistant, Content: "Earlier answer."},
			{Role: llm.RoleUser, Content: "And this."},
		},
		Temperature: ptr(0.2),
		MaxTokens:   256,
		JSON:        true,
	})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := llm.Response{Content: `{"score": 80}`, Model: "override-model", PromptTokens: 12, CompletionTokens: 7}
	if got != want {
		t.Errorf("response = %+v, want %+v", got, want)
	}

	req := srv.Last(t)
	if req.Model != "override-model" {
		t.Errorf("model = %q, want override-model", req.Model)
	}
	if req.Stream {
		t.Error("stream = true, want false")
	}
	if req.Temperature == nil || *req.Temperature != 0.2 {
		t.Errorf("temperature = %v, want 0.2", req.Temperature)
	}
	if req.MaxTokens != 256 || !strings.Contains(string(req.Body), `"max_tokens":256`) {
		t.Errorf("max tokens = %d in %s, want max_tokens 256 for a non-OpenAI server", req.MaxTokens, req.Body)
	}
	if req.ResponseFormat != "json_object" {
		t.Errorf("response_format = %q, want json_object", req.ResponseFormat)
	}
	if got, want := req.Header.Get("Authorization"), "Bearer "+testKey; got != want {
		t.Errorf("Authorization = %q, want %q", got, want)
	}
	if got, want := req.Stage(), "interview-evaluation"; got != want {
		t.Errorf("stage header = %q, want %q", got, want)
	}
	wantMsgs := []llmtest.RecordedMessage{
		{Role: "system", Content: "You are an interviewer."},
		{Role: "user", Content: "Evaluate this.", Images: []string{"data:image/png;base64,UE5H"}},
		{Role: "assistant", Content: "Earlier answer."},
		{Role: "user", Content: "And this."},
	}
	if len(req.Messages) != len(wantMsgs) {
		t.Fatalf("messages = %+v, want %+v", req.Messages, wantMsgs)
	}
	for i, m := range req.Messages {
		w := wantMsgs[i]
		if m.Role != w.Role || m.Content != w.Content || strings.Join(m.Images, ",") != strings.Join(w.Images, ",") {
			t.Errorf("message %d = %+v, want %+v", i, m, w)
		}
	}
}

func TestImagesNeedVision(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := MustOpenAI(t, "openai", srv.URL()) // Vision not set
	_, err := c.Generate(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "look", Images: []llm.Image{{MIME: "image/png", Data: []byte("PNG")}}},
	}})
	if !apperr.Is(err, apperr.KindInvalid) {
		t.Errorf("err = %v, want KindInvalid", err)
	}
	if srv.Calls() != 0 {
		t.Errorf("calls = %d, want 0: the request must be refused locally", srv.Calls())
	}
}

func TestGenerateDefaults(t *testing.T) {
	srv := llmtest.NewServer(t)
	c, err := llm.NewOpenAI(llm.Config{Type: "openai", BaseURL: srv.URL(), Model: "default-model", MaxTokens: 99, Temperature: ptr(0.7)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Generate(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if got.Content != "echo: hi" || got.Model != "default-model" {
		t.Errorf("response = %+v, want echo from default-model", got)
	}
	req := srv.Last(t)
	if req.Model != "default-model" || req.Temperature == nil || *req.Temperature != 0.7 || req.ResponseFormat != "" {
		t.Errorf("request = model %q temperature %v format %q, want default-model 0.7 none", req.Model, req.Temperature, req.ResponseFormat)
	}
	if h := req.Header.Get(llm.StageHeader); h != "" {
		t.Errorf("stage header %q sent for a request without a stage", h)
	}
	if !strings.Contains(string(req.Body), `"max_completion_tokens":99`) {
		t.Errorf("body %s: want max_completion_tokens 99 for OpenAI", req.Body)
	}
	if h := req.Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none without an API key", h)
	}
}

func TestStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{
			Reasoning:    []string{"Let me ", "think."},
			Chunks:       []string{"Hello", ", ", "world", "!"},
			PromptTokens: 3, CompletionTokens: 4,
		}
	}))
	c := MustOpenAI(t, "deepseek", srv.URL())

	var chunks []llm.Chunk
	got, err := c.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
		func(ch llm.Chunk) error {
			chunks = append(chunks, ch)
			return nil
		})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	wantChunks := []llm.Chunk{
		{Reasoning: "Let me "}, {Reasoning: "think."},
		{Content: "Hello"}, {Content: ", "}, {Content: "world"}, {Content: "!"},
	}
	if len(chunks) != len(wantChunks) {
		t.Fatalf("chunks = %+v, want %+v", chunks, wantChunks)
	}
	for i := range chunks {
		if chunks[i] != wantChunks[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, chunks[i], wantChunks[i])
		}
	}
	want := llm.Response{Content: "Hello, world!", Reasoning: "Let me think.", Model: "test-model", PromptTokens: 3, CompletionTokens: 4}
	if got != want {
		t.Errorf("response = %+v, want %+v", got, want)
	}
	if !srv.Last(t).Stream {
		t.Error("stream flag not sent")
	}
}

func TestStreamAbortedByCallback(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"one ", "two ", "three ", "four"}}
	}))
	c := MustOpenAI(t, "other", srv.URL())
	stop := errors.New("client went away")

	n := 0
	got, err := c.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
		func(llm.Chunk) error {
			n++
			if n == 2 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's error", err)
	}
	if got.Content != "one two " {
		t.Errorf("partial content = %q, want %q", got.Content, "one two ")
	}
}

func TestCancelAbortsRequest(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "generate", true: "stream"}[stream], func(t *testing.T) {
			arrived := make(chan struct{})
			hold := make(chan struct{}) // never closed: only cancellation ends the wait
			srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
				close(arrived)
				return llmtest.Reply{Content: "too late", Hold: hold}
			}))
			c := MustOpenAI(t, "openai", srv.URL())

			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
				var err error
				if stream {
					_, err = c.Stream(ctx, req, func(llm.Chunk) error { return nil })
				} else {
					_, err = c.Generate(ctx, req)
				}
				errc <- err
			}()
			<-arrived
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				if apperr.As(err) != nil {
					t.Errorf("err = %#v, want a plain cancellation, not an *apperr.Error", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("call did not return after cancellation")
			}
			srv.WaitCancelled(t)
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"one ", "two ", "three ", "four"}}
	}))
	c := MustOpenAI(t, "openai", srv.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	got, err := c.Stream(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
		func(llm.Chunk) error {
			cancel() // the caller goes away after the first chunk
			return nil
		})
	// langchaingo ends a cancelled stream as if it were complete; the
	// provider must still report the cancellation.
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.HasPrefix(got.Content, "one ") {
		t.Errorf("partial content = %q, want it to start with the first chunk", got.Content)
	}
}

func TestErrorClasses(t *testing.T) {
	refused := closedURL(t)
	tests := []struct {
		name      string
		reply     llmtest.Reply
		url       string        // instead of the fake server's
		timeout   time.Duration // context deadline
		stream    bool
		kind      apperr.Kind
		code      string
		retryable bool
		msg       string // substring of the message
	}{
		{name: "400", reply: keyEcho(400, "invalid_request"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "model returned HTTP 400: bad key "},
		{name: "401", reply: keyEcho(401, "invalid_api_key"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "HTTP 401"},
		{name: "403", reply: keyEcho(403, "forbidden"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "HTTP 403"},
		{name: "404", reply: keyEcho(404, "model_not_found"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "HTTP 404"},
		{name: "422", reply: keyEcho(422, "unprocessable"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "HTTP 422"},
		{name: "429", reply: keyEcho(429, "rate_limit_exceeded"), kind: apperr.KindOverloaded, code: apperr.CodeAIOverloaded, retryable: true, msg: "HTTP 429"},
		{name: "429 stream", stream: true, reply: keyEcho(429, "rate_limit_exceeded"), kind: apperr.KindOverloaded, code: apperr.CodeAIOverloaded, retryable: true, msg: "HTTP 429"},
		{name: "500", reply: keyEcho(500, "server_error"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, retryable: true, msg: "HTTP 500"},
		{name: "503 plain body", reply: llmtest.Reply{Status: 503, ErrorBody: "upstream down " + testKey}, kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, retryable: true, msg: "HTTP 503: upstream down"},
		{name: "503 stream", stream: true, reply: keyEcho(503, "overloaded"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, retryable: true, msg: "HTTP 503"},
		{name: "connection refused", url: refused, kind: apperr.KindUnavailable, code: apperr.CodeAIUnavailable, retryable: true, msg: "cannot reach the model"},
		{name: "connection refused stream", url: refused, stream: true, kind: apperr.KindUnavailable, code: apperr.CodeAIUnavailable, retryable: true, msg: "cannot reach the model"},
		{name: "EOF mid-response", reply: llmtest.Reply{Hangup: true}, kind: apperr.KindUnavailable, code: apperr.CodeAIUnavailable, retryable: true, msg: "cannot reach the model"},
		{name: "EOF mid-stream", stream: true, reply: llmtest.Reply{Hangup: true}, kind: apperr.KindUnavailable, code: apperr.CodeAIUnavailable, retryable: true, msg: "cannot reach the model"},
		{name: "deadline", reply: llmtest.Reply{Content: "late", Delay: time.Minute}, timeout: 50 * time.Millisecond, kind: apperr.KindTimeout, code: apperr.CodeAITimeout, retryable: true, msg: "in time"},
		{name: "deadline stream", stream: true, reply: llmtest.Reply{Content: "late", Delay: time.Minute}, timeout: 50 * time.Millisecond, kind: apperr.KindTimeout, code: apperr.CodeAITimeout, retryable: true, msg: "in time"},
		{name: "content filter status", reply: keyEcho(400, "content_filter"), kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "refused on content policy"},
		{name: "content filter finish", reply: llmtest.Reply{Content: "", FinishReason: "content_filter"}, kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "refused on content policy"},
		{name: "content filter finish stream", stream: true, reply: llmtest.Reply{Content: "I can", FinishReason: "content_filter"}, kind: apperr.KindUpstream, code: apperr.CodeAIUpstream, msg: "refused on content policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply { return tt.reply }))
			url := srv.URL()
			if tt.url != "" {
				url = tt.url
			}
			c := MustOpenAI(t, "openai", url)
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
			var err error
			if tt.stream {
				_, err = c.Stream(ctx, req, func(llm.Chunk) error { return nil })
			} else {
				_, err = c.Generate(ctx, req)
			}
			e := apperr.As(err)
			if e == nil {
				t.Fatalf("err = %v, want an *apperr.Error", err)
			}
			if e.Kind != tt.kind || e.Code != tt.code || e.Retryable != tt.retryable {
				t.Errorf("got kind %d code %s retryable %v, want kind %d code %s retryable %v (%v)",
					e.Kind, e.Code, e.Retryable, tt.kind, tt.code, tt.retryable, err)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", e.Message, tt.msg)
			}
			t.Logf("error: %v", err)
			if strings.Contains(err.Error(), testKey) || strings.Contains(e.Message, testKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
		})
	}
}

// keyEcho is an error reply whose message echoes the API key, as a careless
// server might.
func keyEcho(status int, code string) llmtest.Reply {
	return llmtest.ErrorReply(status, "bad key "+testKey, code)
}

// closedURL returns the base URL of a port nothing listens on.
func closedURL(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func TestHTTPClientTimeout(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Content: "late", Delay: time.Minute}
	}))
	c, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m", HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if e := apperr.As(err); e == nil || e.Kind != apperr.KindTimeout || !e.Retryable {
		t.Errorf("err = %v, want a retryable timeout", err)
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.Config
		want string // substring of the error, "" for success
	}{
		{"openai default base URL", llm.Config{Type: "openai", Model: "gpt-4o-mini", APIKey: "k"}, ""},
		{"deepseek", llm.Config{Type: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat"}, ""},
		{"other without base URL", llm.Config{Type: "other", Model: "m"}, "base URL is required"},
		{"deepseek without base URL uses its default", llm.Config{Type: "deepseek", Model: "deepseek-chat"}, ""},
		{"doubao without model", llm.Config{Type: "doubao", BaseURL: "https://ark.example.com/api/v3"}, "model is required"},
		{"bad base URL", llm.Config{Type: "other", BaseURL: "localhost:8000", Model: "m"}, "not an absolute http(s) URL"},
		{"ollama", llm.Config{Type: "ollama", Model: "qwen2.5"}, ""},
		{"ollama without model", llm.Config{Type: "ollama"}, "model is required"},
		{"offline", llm.Config{Type: "offline"}, ""},
		{"empty type", llm.Config{}, "type is empty"},
		{"unknown type", llm.Config{Type: "gemini"}, `unknown config type "gemini"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := llm.New(tt.cfg)
			if tt.want == "" {
				if err != nil || p == nil {
					t.Fatalf("New = %v, %v; want a provider", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !apperr.Is(err, apperr.KindInvalid) {
				t.Errorf("err kind = %d, want KindInvalid", apperr.KindOf(err))
			}
		})
	}
}

// A base URL with a password and a key in its query must not leak through
// error messages, which quote the request URL (issue 16).
func TestBaseURLSecretsRedacted(t *testing.T) {
	const pass, qkey = "planted-pass-77", "planted-query-key-88"
	base := strings.Replace(closedURL(t), "http://", "http://user:"+pass+"@", 1) + "?key=" + qkey
	for _, typ := range []string{"other", "ollama"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", typ, stream), func(t *testing.T) {
				c, err := llm.New(llm.Config{Type: typ, BaseURL: base, Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
				if stream {
					_, err = c.Stream(context.Background(), req, func(llm.Chunk) error { return nil })
				} else {
					_, err = c.Generate(context.Background(), req)
				}
				if !apperr.Is(err, apperr.KindUnavailable) {
					t.Fatalf("err = %v, want unavailable", err)
				}
				// What is logged and answered: the message and the cause's.
				msg := fmt.Sprintf("%v | %v", err, errors.Unwrap(err))
				if strings.Contains(msg, pass) || strings.Contains(msg, qkey) {
					t.Fatalf("error leaks a URL secret: %s", msg)
				}
			})
		}
	}
	_, err := llm.New(llm.Config{Type: "other", BaseURL: "ftp://user:" + pass + "@h/?key=" + qkey, Model: "m"})
	if err == nil || strings.Contains(err.Error(), pass) || strings.Contains(err.Error(), qkey) {
		t.Fatalf("invalid base URL error %v: want an error without the secrets", err)
	}
}

// Calls to a model at a concurrency above http.DefaultTransport's 2 idle
// connections per host reuse their connections: 16 calls at once, 5
// times, open about 16 connections, not one per call.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := MustOpenAI(t, "openai", srv.URL())
	const conc, rounds = 16, 5
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, conc)
		for range conc {
			wg.Go(func() {
				_, err := c.Generate(context.Background(), llm.Request{Stage: "chat",
					Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if calls, conns := srv.Calls(), srv.Conns(); calls != conc*rounds || conns > 2*conc {
		t.Fatalf("%d calls opened %d connections; want at most %d (idle connections kept between rounds)", calls, conns, 2*conc)
	}
}
