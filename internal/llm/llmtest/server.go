// Package llmtest provides a fake OpenAI-compatible chat completions server
// for tests: it records every request, counts calls and answers with
// programmable replies, blocking or streamed as server-sent events.
//
// The server listens on loopback (httptest), so tests may also point other
// processes at URL().
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// RecordedMessage is one decoded message of a request.
type RecordedMessage struct {
	Role    string
	Content string   // the text parts, joined
	Images  []string // the image_url URLs, e.g. "data:image/png;base64,..."
}

// RecordedRequest is one decoded chat completions request.
type RecordedRequest struct {
	Model          string
	Messages       []RecordedMessage
	Stream         bool
	Temperature    *float64 // nil when not sent
	MaxTokens      int      // max_tokens or max_completion_tokens
	ResponseFormat string   // response_format.type, e.g. "json_object"; "" when not sent
	Header         http.Header
	Body           []byte // the raw body
}

// SystemPrompt returns the content of the first system message, or "".
func (r RecordedRequest) SystemPrompt() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// Stage returns the stage the client marked the request with
// (llm.StageHeader), or "" when it sent none.
func (r RecordedRequest) Stage() string { return r.Header.Get(llm.StageHeader) }

// LastUserMessage returns the content of the last user message, or "".
func (r RecordedRequest) LastUserMessage() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is what the server answers to one request.
type Reply struct {
	// Content is the answer. When streaming it is sent in Chunks, or else
	// split after each space.
	Content string
	// Chunks, when set, are the streamed content pieces; a blocking answer
	// is their concatenation and Content is ignored.
	Chunks []string
	// Reasoning pieces are sent before the content as reasoning_content
	// (DeepSeek style); a blocking answer carries their concatenation.
	Reasoning []string
	// FinishReason defaults to "stop"; "content_filter" marks a refusal.
	FinishReason string
	// Usage reported in the response (and, when the client asks for it, in
	// the last streamed event).
	PromptTokens, CompletionTokens int

	// Status, when not 0 or 200, is sent with ErrorBody instead of an answer.
	Status int
	// ErrorBody defaults to an OpenAI-style error naming the status.
	ErrorBody string

	// Delay waits before answering; Hold waits until the channel is closed.
	// Both end early when the client goes away, which is recorded as a
	// cancellation.
	Delay time.Duration
	Hold  <-chan struct{}

	// Hangup closes the connection in the middle of the response.
	Hangup bool
}

// ErrorReply returns a reply with status and an OpenAI-style error body
// carrying message and code.
func ErrorReply(status int, message, code string) Reply {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": "error", "code": code,
	}})
	return Reply{Status: status, ErrorBody: string(body)}
}

// Responder decides the reply to a request.
type Responder func(req RecordedRequest) Reply

// Echo is the default responder: it answers "echo: " and the last user message.
func Echo(req RecordedRequest) Reply {
	return Reply{Content: "echo: " + req.LastUserMessage(), PromptTokens: 10, CompletionTokens: 5}
}

// Option configures a Server.
type Option func(*Server)

// WithResponder sets the responder (default Echo).
func WithResponder(fn Responder) Option {
	return func(s *Server) { s.responder = fn }
}

// Server is a fake OpenAI-compatible server.
type Server struct {
	srv       *httptest.Server
	done      chan struct{} // closed by Close to release held handlers
	closeOnce sync.Once
	calls     atomic.Int64
	conns     atomic.Int64 // connections accepted

	mu        sync.Mutex // protects the fields below
	responder Responder
	requests  []RecordedRequest
	cancelled []RecordedRequest

	cancels chan RecordedRequest // receives each cancelled request, if room
}

// NewServer starts a server that is closed when the test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := Start(opts...)
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (an example, or a helper process
// that other processes talk to); the caller must Close it.
func Start(opts ...Option) *Server {
	s := &Server{
		done:      make(chan struct{}),
		responder: Echo,
		cancels:   make(chan RecordedRequest, 64),
	}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	return s
}

// Conns returns the number of connections the server has accepted.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// Close releases held replies and stops the server.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// URL returns the API base URL, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// SetResponder replaces the responder for later requests.
func (s *Server) SetResponder(fn Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = fn
}

// Calls returns how many chat completions requests arrived.
func (s *Server) Calls() int { return int(s.calls.Load()) }

// CallsOf returns how many requests were marked with stage (see
// RecordedRequest.Stage).
func (s *Server) CallsOf(stage string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Stage() == stage {
			n++
		}
	}
	return n
}

// Requests returns the recorded requests in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// Last returns the last recorded request; it fails the test if there is none.
func (s *Server) Last(tb testing.TB) RecordedRequest {
	tb.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		tb.Fatal("llmtest: no request recorded")
	}
	return reqs[len(reqs)-1]
}

// Cancelled returns the requests whose client went away while the server
// was delaying or holding the reply.
func (s *Server) Cancelled() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.cancelled...)
}

// WaitCancelled waits up to five seconds for the server to observe a
// cancelled request and returns it; it fails the test on timeout.
func (s *Server) WaitCancelled(tb testing.TB) RecordedRequest {
	tb.Helper()
	select {
	case r := <-s.cancels:
		return r
	case <-time.After(5 * time.Second):
		tb.Fatal("llmtest: server saw no cancelled request within 5s")
		return RecordedRequest{}
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, ErrorReply(http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, "not_found").ErrorBody)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rec, wire, err := decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, ErrorReply(http.StatusBadRequest, "bad JSON: "+err.Error(), "invalid_request").ErrorBody)
		return
	}
	rec.Header = r.Header.Clone()
	s.calls.Add(1)
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	responder := s.responder
	s.mu.Unlock()

	reply := responder(rec)
	if !s.wait(r, rec, reply) {
		return
	}
	switch {
	case reply.Hangup:
		hangup(w, rec.Stream)
	case reply.Status != 0 && reply.Status != http.StatusOK:
		b := reply.ErrorBody
		if b == "" {
			b = ErrorReply(reply.Status, http.StatusText(reply.Status), fmt.Sprint(reply.Status)).ErrorBody
		}
		writeError(w, reply.Status, b)
	case rec.Stream:
		writeStream(w, rec.Model, reply, wire.StreamOptions != nil && wire.StreamOptions.IncludeUsage)
	default:
		writeJSON(w, rec.Model, reply)
	}
}

// wait applies the reply's Delay and Hold; it reports false (and records the
// cancellation) when the client went away first.
func (s *Server) wait(r *http.Request, rec RecordedRequest, reply Reply) bool {
	var delay <-chan time.Time
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		defer t.Stop()
		delay = t.C
	}
	for delay != nil || reply.Hold != nil {
		select {
		case <-delay:
			delay = nil
		case <-reply.Hold:
			reply.Hold = nil
		case <-s.done:
			return false
		case <-r.Context().Done():
			s.mu.Lock()
			s.cancelled = append(s.cancelled, rec)
			s.mu.Unlock()
			select {
			case s.cancels <- rec:
			default:
			}
			return false
		}
	}
	return true
}

// wireRequest is the part of a chat completions request the server reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream              bool     `json:"stream"`
	Temperature         *float64 `json:"temperature"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func decode(body []byte) (RecordedRequest, wireRequest, error) {
	var wire wireRequest
	if err := json.Unmarshal(body, &wire); err != nil {
		return RecordedRequest{}, wire, err
	}
	rec := RecordedRequest{
		Model:       wire.Model,
		Stream:      wire.Stream,
		Temperature: wire.Temperature,
		MaxTokens:   max(wire.MaxTokens, wire.MaxCompletionTokens),
		Body:        body,
	}
	if wire.ResponseFormat != nil {
		rec.ResponseFormat = wire.ResponseFormat.Type
	}
	for _, m := range wire.Messages {
		msg := RecordedMessage{Role: m.Role}
		// Content is a string or an array of typed parts.
		if err := json.Unmarshal(m.Content, &msg.Content); err != nil {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return rec, wire, fmt.Errorf("message content: %w", err)
			}
			var text []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					text = append(text, p.Text)
				case "image_url":
					msg.Images = append(msg.Images, p.ImageURL.URL)
				}
			}
			msg.Content = strings.Join(text, "")
		}
		rec.Messages = append(rec.Messages, msg)
	}
	return rec, wire, nil
}

func writeError(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (r Reply) usage() usage {
	return usage{r.PromptTokens, r.CompletionTokens, r.PromptTokens + r.CompletionTokens}
}

func (r Reply) finishReason() string {
	if r.FinishReason == "" {
		return "stop"
	}
	return r.FinishReason
}

func (r Reply) chunks() []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	return strings.SplitAfter(r.Content, " ")
}

func writeJSON(w http.ResponseWriter, model string, reply Reply) {
	msg := map[string]any{"role": "assistant", "content": strings.Join(reply.chunks(), "")}
	if len(reply.Reasoning) > 0 {
		msg["reasoning_content"] = strings.Join(reply.Reasoning, "")
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": reply.finishReason()}},
		"usage":   reply.usage(),
	})
}

func writeStream(w http.ResponseWriter, model string, reply Reply, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}},
		}
	}
	event(delta(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, r := range reply.Reasoning {
		event(delta(map[string]any{"reasoning_content": r}, nil))
	}
	for _, c := range reply.chunks() {
		if c != "" {
			event(delta(map[string]any{"content": c}, nil))
		}
	}
	event(delta(map[string]any{}, reply.finishReason()))
	if includeUsage {
		event(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{}, "usage": reply.usage(),
		})
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// hangup writes the start of a response by hand and closes the connection.
func hangup(w http.ResponseWriter, stream bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: response writer cannot hijack")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	if stream {
		event := `data: {"choices":[{"index":0,"delta":{"content":"partial "}}]}` + "\n\n"
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(event), event)
	} else {
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":\"chatcmpl-fake\",\"choices\":[")
	}
	buf.Flush()
}
