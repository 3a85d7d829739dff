package chat_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/chat/chattest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

const api = chattest.API

// openAIEnv points the server's default provider at a fake model.
func openAIEnv(baseURL string) []string {
	return []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + baseURL, "AI_OPENAI_API_KEY=sk-test"}
}

type conversation struct {
	SessionID         string `json:"sessionId"`
	ConversationTitle string `json:"conversationTitle"`
}

func MustConversation(t *testing.T, base, token, first string) conversation {
	t.Helper()
	r := servertest.Do(t, "POST", base+api+"/ai/conversations", token, map[string]string{"firstMessage": first})
	if r.Status != 200 {
		t.Fatalf("create conversation: %s", r.Raw)
	}
	var c conversation
	r.Decode(t, &c)
	return c
}

func MustHistory(t *testing.T, base, token, sid string) []chattest.Message {
	t.Helper()
	r := servertest.Do(t, "GET", base+api+"/ai/history/"+sid, token, nil)
	if r.Status != 200 {
		t.Fatalf("history: %s", r.Raw)
	}
	var msgs []chattest.Message
	r.Decode(t, &msgs)
	return msgs
}

func TestChatStreamsThroughRealServer(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Reasoning: []string{"Let me think. ", "Done."}, Chunks: []string{"Hello", ", ", "wor", "ld!"},
			PromptTokens: 12, CompletionTokens: 7}
	}))
	srv := servertest.Start(t, "", openAIEnv(fake.URL())...)
	token := chattest.Login(t, srv.URL, "alice")
	conv := MustConversation(t, srv.URL, token, "Tell me something about streaming answers")
	if conv.ConversationTitle != "Tell me something ab..." {
		t.Fatalf("title = %q", conv.ConversationTitle)
	}
	chatURL := srv.URL + api + "/ai/sessions/" + conv.SessionID + "/chat"

	t.Run("chunks arrive in order", func(t *testing.T) {
		s := chattest.Open(t, chatURL, token, map[string]string{"inputMessage": "Say hello"})
		defer s.Close()
		want := []chattest.Chunk{
			{Type: "reasoning_content", Content: "Let me think. "}, {Type: "reasoning_content", Content: "Done."},
			{Type: "content", Content: "Hello"}, {Type: "content", Content: ", "},
			{Type: "content", Content: "wor"}, {Type: "content", Content: "ld!"},
		}
		for i, w := range want {
			ev, ok := s.Next()
			if !ok {
				t.Fatalf("stream ended before chunk %d", i)
			}
			var got chattest.Chunk
			ev.Decode(t, &got)
			if ev.Name != "" || got != w {
				t.Fatalf("event %d = %q %+v, want chunk %+v", i, ev.Name, got, w)
			}
		}
		ev, ok := s.Next()
		if !ok || ev.Name != "end" {
			t.Fatalf("after the chunks: %+v, want the end event", ev)
		}
		var end chattest.End
		ev.Decode(t, &end)
		if end != (chattest.End{MessageSeq: 2, TokenCount: 7, Offline: false}) {
			t.Fatalf("end = %+v, want seq 2, 7 tokens, online", end)
		}
		if _, more := s.Next(); more {
			t.Fatal("events after the end event")
		}
		req := fake.Last(t)
		if !req.Stream || req.SystemPrompt() != chat.DefaultSystemPrompt || req.LastUserMessage() != "Say hello" {
			t.Fatalf("model request = stream %v, system %q, user %q", req.Stream, req.SystemPrompt(), req.LastUserMessage())
		}
	})

	t.Run("history holds both messages", func(t *testing.T) {
		msgs := MustHistory(t, srv.URL, token, conv.SessionID)
		if len(msgs) != 2 {
			t.Fatalf("history has %d messages, want 2", len(msgs))
		}
		u, a := msgs[0], msgs[1]
		if u.MessageType != 1 || u.MessageSeq != 1 || u.MessageContent != "Say hello" {
			t.Fatalf("user message = %+v", u)
		}
		if a.MessageType != 2 || a.MessageSeq != 2 || a.MessageContent != "Hello, world!" || a.TokenCount != 7 ||
			a.ReasoningContent == nil || *a.ReasoningContent != "Let me think. Done." || a.ErrorMessage != nil || a.Offline {
			t.Fatalf("AI message = %+v", a)
		}
	})

	t.Run("history is sent as context", func(t *testing.T) {
		chattest.Exchange(t, chatURL, token, "And again")
		req := fake.Last(t)
		var roles []string
		for _, m := range req.Messages {
			roles = append(roles, m.Role+":"+m.Content)
		}
		want := []string{"system:" + chat.DefaultSystemPrompt, "user:Say hello", "assistant:Hello, world!", "user:And again"}
		if strings.Join(roles, "|") != strings.Join(want, "|") {
			t.Fatalf("messages = %q, want %q", roles, want)
		}
	})

	t.Run("two messages at once get consecutive sequences", func(t *testing.T) {
		fake.SetResponder(llmtest.Echo)
		c2 := MustConversation(t, srv.URL, token, "")
		url := srv.URL + api + "/ai/sessions/" + c2.SessionID + "/chat"
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				chattest.Exchange(t, url, token, fmt.Sprintf("parallel-%d", i))
			}()
		}
		close(start)
		wg.Wait()
		msgs := MustHistory(t, srv.URL, token, c2.SessionID)
		if len(msgs) != 4 {
			t.Fatalf("history has %d messages, want 4", len(msgs))
		}
		for i, m := range msgs {
			if m.MessageSeq != int64(i+1) {
				t.Fatalf("message %d has seq %d", i, m.MessageSeq)
			}
		}
		for i := 0; i < 4; i += 2 {
			if msgs[i].MessageType != 1 || msgs[i+1].MessageContent != "echo: "+msgs[i].MessageContent {
				t.Fatalf("exchange at seq %d: %+v then %+v", i+1, msgs[i], msgs[i+1])
			}
		}
	})

	t.Run("model failure is an error event and is saved", func(t *testing.T) {
		fake.SetResponder(func(llmtest.RecordedRequest) llmtest.Reply {
			return llmtest.ErrorReply(400, "bad request from the fake", "invalid_request_error")
		})
		c3 := MustConversation(t, srv.URL, token, "")
		s := chattest.Open(t, srv.URL+api+"/ai/sessions/"+c3.SessionID+"/chat", token, map[string]string{"inputMessage": "fail"})
		evs := s.All()
		if len(evs) != 1 || evs[0].Name != "error" {
			t.Fatalf("events = %+v, want one error event", evs)
		}
		var env struct{ Code, Message, RequestID string }
		evs[0].Decode(t, &env)
		if env.Code == "" || env.Code == "0" || env.RequestID == "" {
			t.Fatalf("error envelope = %+v", env)
		}
		msgs := MustHistory(t, srv.URL, token, c3.SessionID)
		if len(msgs) != 2 || msgs[1].ErrorMessage == nil {
			t.Fatalf("history = %+v, want the failed answer saved with its error", msgs)
		}
		// The same failure for a Chinese caller: same code, Chinese message
		// (the model's own text passed on as it came).
		zh := chattest.OpenWith(t, srv.URL+api+"/ai/sessions/"+c3.SessionID+"/chat", token,
			map[string]string{"inputMessage": "再试一次"}, http.Header{"Accept-Language": {"zh-CN,zh;q=0.9"}})
		if got := zh.Resp.Header.Get("Content-Language"); got != "zh-CN" {
			t.Errorf("Content-Language = %q, want zh-CN", got)
		}
		evs = zh.All()
		if len(evs) != 1 || evs[0].Name != "error" {
			t.Fatalf("events = %+v, want one error event", evs)
		}
		var zhEnv struct{ Code, Message string }
		evs[0].Decode(t, &zhEnv)
		if zhEnv.Code != env.Code || zhEnv.Message != "模型返回 HTTP 400：bad request from the fake" {
			t.Errorf("zh-CN error = %+v, want code %s and 模型返回 HTTP 400：bad request from the fake (en: %q)", zhEnv, env.Code, env.Message)
		}
	})

	t.Run("errors before the stream are JSON", func(t *testing.T) {
		fake.SetResponder(llmtest.Echo)
		tests := []struct {
			name   string
			sid    string
			body   any
			status int
		}{
			{"empty message", conv.SessionID, map[string]string{"inputMessage": "  "}, 400},
			{"too long", conv.SessionID, map[string]string{"inputMessage": strings.Repeat("x", 10001)}, 400},
			{"unknown conversation", "nope", map[string]string{"inputMessage": "hi"}, 404},
			{"unknown provider", conv.SessionID, map[string]string{"inputMessage": "hi", "aiId": "nope"}, 404},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := servertest.Do(t, "POST", srv.URL+api+"/ai/sessions/"+tt.sid+"/chat", token, tt.body)
				if r.Status != tt.status || r.Code == "0" {
					t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Raw)
				}
			})
		}
		calls := fake.Calls()
		r := servertest.Do(t, "PUT", srv.URL+api+"/ai/conversations/"+conv.SessionID+"/end", token, nil)
		if r.Status != 200 {
			t.Fatalf("end: %s", r.Raw)
		}
		r = servertest.Do(t, "POST", chatURL, token, map[string]string{"inputMessage": "hi"})
		if r.Status != 409 {
			t.Fatalf("message to an ended conversation: %d %s, want 409", r.Status, r.Raw)
		}
		if fake.Calls() != calls {
			t.Fatal("the model was called for a rejected message")
		}
	})
}

// TestChatDisconnectCancelsModel closes the client after the first chunk:
// the server must cancel the model call and save the partial answer.
//
// The fake model streams its first chunk at once and then holds the rest;
// the held part comes from llmtest, which records the cancellation.
func TestChatDisconnectCancelsModel(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	received := make(chan struct{}, 1)
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Reply {
		received <- struct{}{}
		return llmtest.Reply{Hold: hold, Content: "never sent"}
	}))
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// Forward to the fake first, and send the first chunk only once
		// the fake holds the request, so that the client's disconnect can
		// only happen while the fake is waiting.
		done := make(chan struct{})
		go func() {
			defer close(done)
			req, _ := http.NewRequestWithContext(r.Context(), "POST", fake.URL()+"/chat/completions", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		select {
		case <-received:
		case <-done:
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Partial "},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-done
	}))
	t.Cleanup(func() {
		fake.Close() // releases a held request, if the test failed early
		model.Close()
	})

	srv := servertest.Start(t, "", openAIEnv(model.URL+"/v1")...)
	token := chattest.Login(t, srv.URL, "alice")
	conv := MustConversation(t, srv.URL, token, "")
	s := chattest.Open(t, srv.URL+api+"/ai/sessions/"+conv.SessionID+"/chat", token, map[string]string{"inputMessage": "long answer please"})
	ev, ok := s.Next()
	var first chattest.Chunk
	if ok {
		ev.Decode(t, &first)
	}
	if first != (chattest.Chunk{Type: "content", Content: "Partial "}) {
		t.Fatalf("first event = %+v", ev)
	}
	s.Close()

	cancelled := fake.WaitCancelled(t)
	if cancelled.LastUserMessage() != "long answer please" {
		t.Fatalf("cancelled request = %q", cancelled.LastUserMessage())
	}
	// The answer is saved right after the model call ends.
	deadline := time.Now().Add(5 * time.Second)
	var msgs []chattest.Message
	for time.Now().Before(deadline) {
		if msgs = MustHistory(t, srv.URL, token, conv.SessionID); len(msgs) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(msgs) != 2 {
		t.Fatalf("history = %+v, want the message and the partial answer", msgs)
	}
	a := msgs[1]
	// Issue 19: a clean marker, not the text "client disconnected".
	if a.MessageSeq != 2 || a.MessageContent != "Partial " || a.ErrorMessage != nil || !a.Stopped || !a.Incomplete ||
		a.StopReason != chat.StopUser {
		t.Fatalf("partial answer = %+v (error %v), want stopped by the user", a, a.ErrorMessage)
	}
}

// TestChatOffline chats with the built-in offline model (no model configured).
func TestChatOffline(t *testing.T) {
	srv := servertest.Start(t, "")
	token := chattest.Login(t, srv.URL, "alice")
	conv := MustConversation(t, srv.URL, token, "")
	if conv.ConversationTitle != "" {
		t.Fatalf("title = %q, want untitled (the web shows a placeholder in the reader's language)", conv.ConversationTitle)
	}
	chunks, end := chattest.Exchange(t, srv.URL+api+"/ai/sessions/"+conv.SessionID+"/chat", token, "Is anyone there?")
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Content)
	}
	if !strings.Contains(strings.ToLower(text.String()), "offline") || !strings.Contains(text.String(), "Is anyone there?") {
		t.Fatalf("offline answer = %q", text.String())
	}
	if !end.Offline || end.MessageSeq != 2 || end.TokenCount <= 0 {
		t.Fatalf("end = %+v, want offline", end)
	}
	msgs := MustHistory(t, srv.URL, token, conv.SessionID)
	if len(msgs) != 2 || !msgs[1].Offline || msgs[1].MessageContent != text.String() {
		t.Fatalf("history = %+v", msgs)
	}

	r := servertest.Do(t, "GET", srv.URL+api+"/ai/conversations", token, nil)
	var p struct {
		Total   int
		Records []struct {
			SessionID, AIID, AIName, Title, Status string
			MessageCount                           int
			LastMessageTime                        *string
		}
	}
	r.Decode(t, &p)
	if p.Total != 1 || p.Records[0].MessageCount != 2 || p.Records[0].AIID != "default" || p.Records[0].LastMessageTime == nil ||
		p.Records[0].Status != chat.StatusActive {
		t.Fatalf("list = %s", r.Data)
	}
}

// TestChatAuthorization checks that another user sees none of a user's
// conversations and messages: every route answers 404.
func TestChatAuthorization(t *testing.T) {
	srv := servertest.Start(t, "")
	alice := chattest.Login(t, srv.URL, "alice")
	bob := chattest.Login(t, srv.URL, "bob")
	conv := MustConversation(t, srv.URL, alice, "secret plans")
	chattest.Exchange(t, srv.URL+api+"/ai/sessions/"+conv.SessionID+"/chat", alice, "my secret")
	sid := conv.SessionID

	tests := []struct {
		method, path string
		body         any
	}{
		{"GET", "/ai/conversations/" + sid, nil},
		{"PUT", "/ai/conversations/" + sid, map[string]string{"title": "mine now"}},
		{"PUT", "/ai/conversations/" + sid + "/end", nil},
		{"DELETE", "/ai/conversations/" + sid, nil},
		{"POST", "/ai/sessions/" + sid + "/chat", map[string]string{"inputMessage": "hi"}},
		{"GET", "/ai/history/" + sid, nil},
		{"GET", "/ai/history/page?sessionId=" + sid, nil},
		// A chat is not an agent session either.
		{"GET", "/agents/conversations/" + sid + "/messages", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := servertest.Do(t, tt.method, srv.URL+api+tt.path, bob, tt.body)
			if r.Status != 404 || strings.Contains(r.Raw, "secret") {
				t.Fatalf("status %d, want 404: %s", r.Status, r.Raw)
			}
		})
	}
	for _, path := range []string{"/ai/conversations", "/ai/history/page"} {
		r := servertest.Do(t, "GET", srv.URL+api+path, bob, nil)
		var p struct{ Total int }
		r.Decode(t, &p)
		if r.Status != 200 || p.Total != 0 {
			t.Fatalf("%s for bob: %s", path, r.Raw)
		}
	}
	// Alice still has everything; then she deletes it.
	if msgs := MustHistory(t, srv.URL, alice, sid); len(msgs) != 2 {
		t.Fatalf("alice's history = %+v", msgs)
	}
	r := servertest.Do(t, "DELETE", srv.URL+api+"/ai/conversations/"+sid, alice, nil)
	if r.Status != 200 {
		t.Fatalf("delete: %s", r.Raw)
	}
	r = servertest.Do(t, "GET", srv.URL+api+"/ai/history/"+sid, alice, nil)
	if r.Status != 404 {
		t.Fatalf("history after delete: %s", r.Raw)
	}
	r = servertest.Do(t, "GET", srv.URL+api+"/ai/conversations", "", nil)
	if r.Status != 401 {
		t.Fatalf("without a token: %s", r.Raw)
	}
}
