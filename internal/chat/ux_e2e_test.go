package chat_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/chat/chattest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// Issue 19: a model that sends one chunk and then nothing is cut off after
// chat.stream-idle-timeout, not after the whole-answer timeout; the client
// gets an error event, the partial answer is kept marked "idle".
func TestChatStreamIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Half "},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select { // stalls: sends nothing more
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); model.Close() })
	srv := servertest.Start(t, "", append(openAIEnv(model.URL+"/v1"), "CHAT_STREAM_IDLE_TIMEOUT=1s", "CHAT_STALL_NOTICE=5s")...)
	token := chattest.Login(t, srv.URL, "idler")

	r := servertest.Do(t, "GET", srv.URL+api+"/ai/config", token, nil)
	var cfg chat.ClientConfig
	r.Decode(t, &cfg)
	if r.Status != 200 || cfg.StallNoticeMs != 5000 || cfg.StreamIdleTimeoutMs != 1000 || cfg.StreamTimeoutMs != 180000 {
		t.Fatalf("chat config = %d %s", r.Status, r.Raw)
	}

	conv := MustConversation(t, srv.URL, token, "")
	start := time.Now()
	s := chattest.Open(t, srv.URL+api+"/ai/sessions/"+conv.SessionID+"/chat", token, map[string]string{"inputMessage": "go on"})
	events := s.All()
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the stalled stream ended after %s", took)
	}
	if len(events) != 2 || events[1].Name != "error" || !strings.Contains(events[1].Data, `"code":"B000415"`) ||
		!strings.Contains(events[1].Data, "stopped sending") {
		t.Fatalf("events = %+v, want the chunk then an idle-timeout error", events)
	}
	msgs := MustHistory(t, srv.URL, token, conv.SessionID)
	if len(msgs) != 2 || msgs[1].MessageContent != "Half " || !msgs[1].Incomplete || msgs[1].Stopped ||
		msgs[1].StopReason != chat.StopIdle || msgs[1].ErrorMessage != nil {
		t.Fatalf("history = %+v, want the partial answer marked idle", msgs)
	}
}

// Issue 19: the last answer can be written again; it replaces the old one
// under the same sequence number and is asked from the same context.
func TestChatRegenerateLastAnswer(t *testing.T) {
	var n atomic.Int64
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"answer ", fmt.Sprint(n.Add(1))}}
	}))
	srv := servertest.Start(t, "", openAIEnv(fake.URL())...)
	token := chattest.Login(t, srv.URL, "again")
	conv := MustConversation(t, srv.URL, token, "")
	base := srv.URL + api + "/ai/sessions/" + conv.SessionID

	r := servertest.Do(t, "POST", base+"/regenerate", token, nil)
	if r.Status != 409 || !strings.Contains(r.Message, "no answer to regenerate") {
		t.Fatalf("regenerate with no answer: %d %s", r.Status, r.Raw)
	}
	chattest.Exchange(t, base+"/chat", token, "first question")
	chattest.Exchange(t, base+"/chat", token, "second question")
	chunks, end := chattest.Exchange(t, base+"/regenerate", token, "")
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Content)
	}
	if text.String() != "answer 3" || end.MessageSeq != 4 {
		t.Fatalf("regenerated %q at seq %d, want answer 3 at 4", text.String(), end.MessageSeq)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.LastUserMessage() != "second question" || len(last.Messages) != 4 || strings.Contains(last.Messages[2].Content, "answer 2") ||
		last.Messages[2].Content != "answer 1" {
		t.Fatalf("regenerate asked %+v, want the history up to the second question without its old answer", last.Messages)
	}
	msgs := MustHistory(t, srv.URL, token, conv.SessionID)
	if len(msgs) != 4 || msgs[3].MessageContent != "answer 3" || msgs[3].MessageSeq != 4 || msgs[1].MessageContent != "answer 1" {
		t.Fatalf("history = %+v", msgs)
	}
	r = servertest.Do(t, "GET", srv.URL+api+"/ai/conversations/"+conv.SessionID, token, nil)
	if !strings.Contains(string(r.Data), `"messageCount":4`) {
		t.Fatalf("conversation after regenerate: %s", r.Data)
	}
	other := chattest.Login(t, srv.URL, "someone-else")
	if r := servertest.Do(t, "POST", base+"/regenerate", other, nil); r.Status != 404 {
		t.Fatalf("another user's regenerate: %d %s", r.Status, r.Raw)
	}
}
