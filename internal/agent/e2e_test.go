package agent_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/agent"
	"github.com/xunzhi-ai/aimeeting/internal/chat/chattest"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

const api = chattest.API

const secretKey = "sk-agent-secret-123"

type client struct {
	t     *testing.T
	base  string
	token string
}

func MustClient(t *testing.T, base, name string) *client {
	t.Helper()
	return &client{t: t, base: base, token: chattest.Login(t, base, name)}
}

func (c *client) do(method, path string, body any) servertest.Response {
	c.t.Helper()
	return servertest.Do(c.t, method, c.base+api+path, c.token, body)
}

// must sends a request that must succeed and decodes its data into out.
func (c *client) must(method, path string, body, out any) servertest.Response {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.Status != 200 {
		c.t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	if out != nil {
		r.Decode(c.t, out)
	}
	return r
}

func (c *client) upload(sessionID, filename string, data []byte) servertest.Response {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if sessionID != "" {
		_ = w.WriteField("sessionId", sessionID)
	}
	_ = w.WriteField("bizType", "resume")
	fw, _ := w.CreateFormFile("file", filename)
	_, _ = fw.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest("POST", c.base+api+"/agents/files/upload", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	return servertest.Send(c.t, req)
}

func (c *client) chatURL(sid string) string {
	return c.base + api + "/agents/sessions/" + sid + "/chat"
}

type agentView struct {
	ID, AgentName, SystemPrompt, AIID, ModelName string
	Temperature                                  *float64
	TagCodes                                     []int
	BuiltIn                                      bool
}

type session struct {
	SessionID, ConversationTitle, AgentID, AgentName string
}

type fileView struct {
	FileID, FileName string
	Size             int64
	Chars            int
	Truncated        bool
}

func TestAgentSessionsEndToEnd(t *testing.T) {
	fake := llmtest.NewServer(t)
	srv := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+fake.URL(), "AI_OPENAI_API_KEY=sk-test")
	admin := MustClient(t, srv.URL, "admin") // the first user is admin
	bob := MustClient(t, srv.URL, "bob")
	carol := MustClient(t, srv.URL, "carol")

	// A provider configuration with a secret key, and an agent on it.
	var cfg struct{ ID, APIKey string }
	admin.must("POST", "/ai-properties", map[string]any{"aiName": "fake", "aiType": "openai", "apiKey": secretKey,
		"apiUrl": fake.URL(), "modelName": "fake-model"}, &cfg)
	var coach agentView
	r := admin.must("POST", "/agent-properties", map[string]any{"agentName": "resume-coach", "description": "Helps with resumes",
		"systemPrompt": "You are AGENT-X, a resume coach.", "aiId": cfg.ID, "modelName": "agent-model",
		"temperature": 0.3, "tagCodes": []int{5, 2, 5}}, &coach)
	if coach.AIID != cfg.ID || coach.ModelName != "agent-model" || len(coach.TagCodes) != 2 || coach.TagCodes[0] != 2 ||
		strings.Contains(r.Raw, secretKey) {
		t.Fatalf("created agent: %s", r.Raw)
	}

	t.Run("agent properties: admin writes, everyone reads, secrets masked", func(t *testing.T) {
		for _, w := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/agent-properties", map[string]any{"agentName": "x", "systemPrompt": "y"}},
			{"PUT", "/agent-properties", map[string]any{"id": coach.ID, "systemPrompt": "hacked"}},
			{"DELETE", "/agent-properties/" + coach.ID, nil},
		} {
			if r := bob.do(w.method, w.path, w.body); r.Status != 403 {
				t.Fatalf("bob %s %s: %d %s, want 403", w.method, w.path, r.Status, r.Raw)
			}
		}
		for _, path := range []string{"/agent-properties/" + coach.ID, "/agent-properties/byName?name=resume-coach",
			"/agent-properties?tagCodes=5", "/ai-properties/" + cfg.ID, "/ai-properties"} {
			r := bob.must("GET", path, nil, nil)
			if strings.Contains(r.Raw, secretKey) || !strings.Contains(r.Raw, cfg.ID) {
				t.Fatalf("GET %s leaks the key or misses the config: %s", path, r.Raw)
			}
		}
		var p struct{ Total int }
		bob.must("GET", "/agent-properties?tagCodes=1,3", nil, &p)
		if p.Total != 0 {
			t.Fatalf("tag filter 1,3 found %d agents", p.Total)
		}
		bad := []map[string]any{
			{"agentName": "bad-tag", "systemPrompt": "p", "tagCodes": []int{11}},
			{"agentName": "bad-ai", "systemPrompt": "p", "aiId": "missing"},
			{"agentName": "resume-coach", "systemPrompt": "p"},
		}
		for i, in := range bad {
			if r := admin.do("POST", "/agent-properties", in); r.Status != 400 && r.Status != 409 {
				t.Fatalf("bad agent %d: %d %s", i, r.Status, r.Raw)
			}
		}
	})

	var sess session
	bob.must("POST", "/agents/sessions", map[string]any{"agentId": coach.ID, "firstMessage": "Review my resume please"}, &sess)
	if sess.AgentName != "resume-coach" || sess.ConversationTitle != "Review my resume ple..." {
		t.Fatalf("session = %+v", sess)
	}

	t.Run("a session started without a message is untitled until its first message", func(t *testing.T) {
		// The web starts a session this way when a file is given first: the
		// title stays empty (the page shows a placeholder in its language),
		// never the server's English "New conversation".
		var s session
		bob.must("POST", "/agents/sessions", map[string]any{"agentId": coach.ID}, &s)
		if s.ConversationTitle != "" {
			t.Fatalf("title = %q, want untitled", s.ConversationTitle)
		}
		var conv struct{ Title string }
		bob.must("GET", "/agents/conversations/"+s.SessionID, nil, &conv)
		if conv.Title != "" {
			t.Fatalf("stored title = %q, want untitled", conv.Title)
		}
		if r := bob.do("POST", "/agents/sessions/"+s.SessionID+"/regenerate", nil); r.Status != 409 ||
			!strings.Contains(r.Message, "no answer to regenerate") {
			t.Fatalf("regenerate before any answer: %d %s", r.Status, r.Raw)
		}
		chattest.Exchange(t, bob.chatURL(s.SessionID), bob.token, "  What does my   resume say about Go and databases?")
		bob.must("GET", "/agents/conversations/"+s.SessionID, nil, &conv)
		if got, want := conv.Title, "What does my resume..."; got != want {
			t.Fatalf("title after the first message = %q, want %q", got, want)
		}
		// The next message keeps it.
		chattest.Exchange(t, bob.chatURL(s.SessionID), bob.token, "And about Kafka?")
		bob.must("GET", "/agents/conversations/"+s.SessionID, nil, &conv)
		if conv.Title != "What does my resume..." {
			t.Fatalf("title after the second message = %q", conv.Title)
		}
		bob.must("DELETE", "/agents/conversations/"+s.SessionID, nil, nil)
	})

	t.Run("uploaded file and agent prompt reach the model", func(t *testing.T) {
		var f fileView
		r := bob.upload(sess.SessionID, "../../etc/notes.txt", []byte("The secret codeword is PINEAPPLE.\n"))
		if r.Status != 200 {
			t.Fatalf("upload: %s", r.Raw)
		}
		r.Decode(t, &f)
		if f.FileName != "notes.txt" || f.Size != 34 || f.Chars == 0 || f.Truncated {
			t.Fatalf("upload = %+v", f)
		}
		var me struct{ ID string }
		bob.must("GET", "/users/me", nil, &me)
		if _, err := os.Stat(filepath.Join(srv.Dir, "data", "files", "uploads", "agent", me.ID, f.FileID)); err != nil {
			t.Fatalf("uploaded bytes not stored by id: %v", err)
		}
		// A DOCX as well, newest first in the prompt.
		if r := bob.upload(sess.SessionID, "plan.docx", doctexttest.DOCX(t, "Quarterly plan: ship MANGO.")); r.Status != 200 {
			t.Fatalf("docx upload: %s", r.Raw)
		}

		_, end := chattest.Exchange(t, bob.chatURL(sess.SessionID), bob.token, "What is the codeword?")
		if end.MessageSeq != 2 || end.Offline {
			t.Fatalf("end = %+v", end)
		}
		req := fake.Last(t)
		sys := req.SystemPrompt()
		for _, want := range []string{"You are AGENT-X, a resume coach.", agent.FilesHeading, "PINEAPPLE", "MANGO"} {
			if !strings.Contains(sys, want) {
				t.Fatalf("system prompt lacks %q:\n%s", want, sys)
			}
		}
		if strings.Index(sys, "MANGO") > strings.Index(sys, "PINEAPPLE") {
			t.Fatalf("files not newest first:\n%s", sys)
		}
		if req.Model != "agent-model" || req.Temperature == nil || *req.Temperature != 0.3 ||
			req.Header.Get("Authorization") != "Bearer "+secretKey {
			t.Fatalf("model request: model %q, temperature %v, auth %q", req.Model, req.Temperature, req.Header.Get("Authorization"))
		}
		var msgs []chattest.Message
		bob.must("GET", "/agents/conversations/"+sess.SessionID+"/messages", nil, &msgs)
		if len(msgs) != 2 || msgs[1].MessageContent != "echo: What is the codeword?" {
			t.Fatalf("messages = %+v", msgs)
		}
		var p struct {
			Total   int
			Records []struct{ SessionID, AgentName string }
		}
		bob.must("GET", "/agents/conversations?keyword=resume", nil, &p)
		if p.Total != 1 || p.Records[0].AgentName != "resume-coach" {
			t.Fatalf("conversations = %+v", p)
		}
		bob.must("GET", "/agents/messages/history", nil, &p)
		if p.Total != 2 {
			t.Fatalf("message history total = %d", p.Total)
		}
	})

	t.Run("the last answer is written again with the agent's prompt and files", func(t *testing.T) {
		before := len(fake.Requests())
		_, end := chattest.Exchange(t, bob.base+api+"/agents/sessions/"+sess.SessionID+"/regenerate", bob.token, "")
		if end.MessageSeq != 2 || end.Offline {
			t.Fatalf("regenerate end = %+v", end)
		}
		reqs := fake.Requests()
		if len(reqs) != before+1 {
			t.Fatalf("regenerate made %d model calls, want 1", len(reqs)-before)
		}
		req := reqs[len(reqs)-1]
		sys := req.SystemPrompt()
		if !strings.Contains(sys, "You are AGENT-X") || !strings.Contains(sys, "PINEAPPLE") || req.Model != "agent-model" ||
			req.LastUserMessage() != "What is the codeword?" || req.Messages[len(req.Messages)-1].Role != "user" {
			t.Fatalf("regenerate asked model %q, messages %+v, system:\n%s", req.Model, req.Messages, sys)
		}
		var msgs []chattest.Message
		bob.must("GET", "/agents/conversations/"+sess.SessionID+"/messages", nil, &msgs)
		if len(msgs) != 2 || msgs[1].MessageSeq != 2 || msgs[1].MessageContent != "echo: What is the codeword?" {
			t.Fatalf("messages after regenerate = %+v", msgs)
		}
	})

	t.Run("another user gets 404", func(t *testing.T) {
		sid := sess.SessionID
		for _, tt := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/agents/conversations/" + sid, nil},
			{"GET", "/agents/conversations/" + sid + "/messages", nil},
			{"PUT", "/agents/conversations/" + sid + "/end", nil},
			{"DELETE", "/agents/conversations/" + sid, nil},
			{"POST", "/agents/sessions/" + sid + "/chat", map[string]string{"inputMessage": "hi"}},
			{"POST", "/agents/sessions/" + sid + "/regenerate", nil},
			{"GET", "/agents/messages/history?sessionId=" + sid, nil},
		} {
			if r := carol.do(tt.method, tt.path, tt.body); r.Status != 404 || strings.Contains(r.Raw, "PINEAPPLE") {
				t.Fatalf("carol %s %s: %d %s", tt.method, tt.path, r.Status, r.Raw)
			}
		}
		if r := carol.upload(sid, "x.txt", []byte("mine")); r.Status != 404 {
			t.Fatalf("carol uploads into bob's session: %d %s", r.Status, r.Raw)
		}
		var p struct{ Total int }
		carol.must("GET", "/agents/conversations", nil, &p)
		if p.Total != 0 {
			t.Fatalf("carol lists %d agent sessions", p.Total)
		}
		carol.must("GET", "/agents/messages/history", nil, &p)
		if p.Total != 0 {
			t.Fatalf("carol lists %d agent messages", p.Total)
		}
		// An agent session is not a plain chat, even for its owner.
		if r := bob.do("GET", "/ai/history/"+sid, nil); r.Status != 404 {
			t.Fatalf("agent session through /ai: %d", r.Status)
		}
	})

	t.Run("bad uploads", func(t *testing.T) {
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
		if r := bob.upload("", "photo.png", png); r.Status != 422 {
			t.Fatalf("png: %d %s", r.Status, r.Raw)
		}
		if r := bob.upload("nope", "a.txt", []byte("text")); r.Status != 404 {
			t.Fatalf("unknown session: %d %s", r.Status, r.Raw)
		}
		if r := bob.upload("", "a.txt", []byte("no session is fine")); r.Status != 200 {
			t.Fatalf("upload without a session: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("default agent is created on demand", func(t *testing.T) {
		var s session
		carol.must("POST", "/agents/sessions", nil, &s)
		if s.AgentName != agent.DefaultAgentName {
			t.Fatalf("default session = %+v", s)
		}
		var a agentView
		carol.must("GET", "/agent-properties/byName?name="+agent.DefaultAgentName, nil, &a)
		if !a.BuiltIn || a.ID != s.AgentID {
			t.Fatalf("built-in agent = %+v", a)
		}
		var again session
		bob.must("POST", "/agents/sessions", map[string]any{}, &again)
		if again.AgentID != s.AgentID {
			t.Fatalf("second default session uses agent %s, want %s", again.AgentID, s.AgentID)
		}
		chattest.Exchange(t, carol.chatURL(s.SessionID), carol.token, "hello agent")
		req := fake.Last(t)
		if req.SystemPrompt() != agent.BuiltinSystemPrompt || req.Header.Get("Authorization") != "Bearer sk-test" {
			t.Fatalf("default agent request: system %q auth %q", req.SystemPrompt(), req.Header.Get("Authorization"))
		}
	})

	t.Run("ended session takes no messages", func(t *testing.T) {
		bob.must("PUT", "/agents/conversations/"+sess.SessionID+"/end", nil, nil)
		if r := bob.do("POST", "/agents/sessions/"+sess.SessionID+"/chat", map[string]string{"inputMessage": "hi"}); r.Status != 409 {
			t.Fatalf("chat after end: %d %s", r.Status, r.Raw)
		}
		var p struct{ Total int }
		bob.must("GET", "/agents/conversations?status=ended", nil, &p)
		if p.Total != 1 {
			t.Fatalf("ended sessions = %d", p.Total)
		}
	})
}
