package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
)

// policy says who may call each route. The matrix test fails for a route
// that is missing here, so a new endpoint cannot be forgotten.
//
//	public  anyone
//	user    any logged-in user (their own data, or shared read-only data)
//	admin   admins only; others get 403
//	owner   the owner of the resource in the path; anyone else gets 404
//	owner-or-admin  the owner or any admin; another user gets 404
//	socket  the WebSocket, which authenticates itself (token and path user)
var policy = map[string]string{
	"GET /": "public", "HEAD /": "public", "GET /index.html": "public",
	"GET /assets/*filepath": "public", "HEAD /assets/*filepath": "public",
	"GET /healthz": "public", "GET /readyz": "public", "GET /metrics": "public",
	"POST /api/xunzhi/v1/users/register": "public", "POST /api/xunzhi/v1/users/login": "public",
	"GET /api/xunzhi/v1/users/check-login": "public", "GET /api/xunzhi/v1/users/has-username": "public",

	"GET /api/xunzhi/v1/users/me": "user", "POST /api/xunzhi/v1/users/logout": "user",
	"PUT /api/xunzhi/v1/users": "user", "PUT /api/xunzhi/v1/users/": "user",
	"GET /api/xunzhi/v1/users/page": "admin", "POST /api/xunzhi/v1/users/admin": "admin",
	"GET /api/xunzhi/v1/users/is-admin": "user", "GET /api/xunzhi/v1/users/:username": "owner-or-admin",

	"GET /api/xunzhi/v1/ai-properties": "user", "GET /api/xunzhi/v1/ai-properties/": "user",
	"GET /api/xunzhi/v1/ai-properties/:id": "user", "GET /api/xunzhi/v1/ai-properties/enabled": "user",
	"GET /api/xunzhi/v1/ai-properties/options": "user",
	"POST /api/xunzhi/v1/ai-properties":        "admin", "POST /api/xunzhi/v1/ai-properties/": "admin",
	"PUT /api/xunzhi/v1/ai-properties": "admin", "PUT /api/xunzhi/v1/ai-properties/": "admin",
	"DELETE /api/xunzhi/v1/ai-properties/:id": "admin", "PUT /api/xunzhi/v1/ai-properties/:id/status": "admin",
	"POST /api/xunzhi/v1/ai-properties/test": "admin", "POST /api/xunzhi/v1/ai-properties/:id/test": "admin",
	"GET /api/xunzhi/v1/ai-routing": "admin", "PUT /api/xunzhi/v1/ai-routing": "admin",
	"GET /api/xunzhi/v1/ai-usage": "admin",

	"GET /api/xunzhi/v1/agent-properties": "user", "GET /api/xunzhi/v1/agent-properties/": "user",
	"GET /api/xunzhi/v1/agent-properties/:id": "user", "GET /api/xunzhi/v1/agent-properties/byName": "user",
	"POST /api/xunzhi/v1/agent-properties": "admin", "POST /api/xunzhi/v1/agent-properties/": "admin",
	"PUT /api/xunzhi/v1/agent-properties": "admin", "PUT /api/xunzhi/v1/agent-properties/": "admin",
	"DELETE /api/xunzhi/v1/agent-properties/:id": "admin",

	"POST /api/xunzhi/v1/ai/conversations": "user", "GET /api/xunzhi/v1/ai/conversations": "user",
	"GET /api/xunzhi/v1/ai/history/page":             "user",
	"GET /api/xunzhi/v1/ai/conversations/:sessionId": "owner", "PUT /api/xunzhi/v1/ai/conversations/:sessionId": "owner",
	"DELETE /api/xunzhi/v1/ai/conversations/:sessionId": "owner", "PUT /api/xunzhi/v1/ai/conversations/:sessionId/end": "owner",
	"POST /api/xunzhi/v1/ai/sessions/:sessionId/chat": "owner", "GET /api/xunzhi/v1/ai/history/:sessionId": "owner",
	"POST /api/xunzhi/v1/ai/sessions/:sessionId/regenerate": "owner", "GET /api/xunzhi/v1/ai/config": "user",

	"POST /api/xunzhi/v1/agents/sessions": "user", "GET /api/xunzhi/v1/agents/conversations": "user",
	"GET /api/xunzhi/v1/agents/messages/history": "user", "POST /api/xunzhi/v1/agents/files/upload": "user",
	"GET /api/xunzhi/v1/agents/files": "user", "GET /api/xunzhi/v1/agents/files/:id": "owner",
	"DELETE /api/xunzhi/v1/agents/files/:id":              "owner",
	"POST /api/xunzhi/v1/agents/sessions/:sessionId/chat": "owner", "GET /api/xunzhi/v1/agents/conversations/:sessionId": "owner",
	"GET /api/xunzhi/v1/agents/conversations/:sessionId/messages": "owner",
	"POST /api/xunzhi/v1/agents/sessions/:sessionId/regenerate":   "owner",
	"PUT /api/xunzhi/v1/agents/conversations/:sessionId/end":      "owner", "DELETE /api/xunzhi/v1/agents/conversations/:sessionId": "owner",

	"POST /api/xunzhi/v1/interview/sessions": "user", "GET /api/xunzhi/v1/interview/conversations": "user",
	"GET /api/xunzhi/v1/interview/capabilities":                         "user",
	"GET /api/xunzhi/v1/interview/interview/records":                    "user",
	"GET /api/xunzhi/v1/interview/interview/record/:sid":                "owner",
	"POST /api/xunzhi/v1/interview/sessions/:sid/interview-questions":   "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/current-question":       "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/next-question":          "owner",
	"POST /api/xunzhi/v1/interview/sessions/:sid/interview/answer-json": "owner",
	"POST /api/xunzhi/v1/interview/sessions/:sid/interview/answer":      "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/restore":                "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/progress/:requestId":    "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/interview/questions":    "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/interview/score":        "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/interview/suggestions":  "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/resume/score":           "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/resume/preview":         "owner",
	"POST /api/xunzhi/v1/interview/sessions/:sid/demeanor-evaluation":   "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/radar-chart":            "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/radar-chart.svg":        "owner",
	"PUT /api/xunzhi/v1/interview/sessions/:sid/finish":                 "owner",
	"PUT /api/xunzhi/v1/interview/conversations/:sid/end":               "owner",
	"POST /api/xunzhi/v1/interview/record/save-from-redis/:sid":         "owner",
	"GET /api/xunzhi/v1/interview/sessions/:sid/trace":                  "owner-or-admin",

	"POST /api/xunzhi/v1/speech/transcriptions":       "user",
	"GET /api/xunzhi/v1/speech/capabilities":          "user",
	"GET /api/xunzhi/v1/xunfei/audio-to-text/:userId": "socket",

	"POST /api/xunzhi/v1/xunfei/tts/tasks": "user", "GET /api/xunzhi/v1/xunfei/tts/tasks": "user",
	"POST /api/xunzhi/v1/xunfei/tts/synthesize":          "user",
	"GET /api/xunzhi/v1/xunfei/tts/tasks/:taskId":        "owner",
	"GET /api/xunzhi/v1/xunfei/tts/tasks/:taskId/audio":  "owner",
	"GET /api/xunzhi/v1/xunfei/tts/tasks/:taskId/events": "owner",
	"DELETE /api/xunzhi/v1/xunfei/tts/tasks/:taskId":     "owner",
}

type caller struct {
	id, token string
}

type matrix struct {
	t    *testing.T
	base string
}

// call sends method path as c with a body valid for the route, so that
// only authorization decides the outcome.
func (m matrix) call(c caller, method, path string, body func() (io.Reader, string)) int {
	m.t.Helper()
	var rd io.Reader
	ct := ""
	if body != nil {
		rd, ct = body()
	}
	req, err := http.NewRequest(method, m.base+path, rd)
	if err != nil {
		m.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		m.t.Fatalf("%s %s: %v", method, path, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode
}

func jsonBody(v any) func() (io.Reader, string) {
	return func() (io.Reader, string) {
		b, _ := json.Marshal(v)
		return bytes.NewReader(b), "application/json"
	}
}

func fileBody(field, name string, data []byte, fields map[string]string) func() (io.Reader, string) {
	return func() (io.Reader, string) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		fw, _ := w.CreateFormFile(field, name)
		fw.Write(data)
		for k, v := range fields {
			w.WriteField(k, v)
		}
		w.Close()
		return &buf, w.FormDataContentType()
	}
}

func pngBytes() []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	return buf.Bytes()
}

func TestAuthorizationMatrix(t *testing.T) {
	// The matrix creates a TTS task: without a synthesizer that is a 503,
	// not an authorization failure.
	cfg, _, err := loadConfig("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !espeak.Available(cfg.TTS.Espeak.Binary) {
		if os.Getenv("CI") == "true" {
			t.Fatal("espeak-ng is required under CI=true: run scripts/tts-deps.sh")
		}
		t.Skip("espeak-ng not installed (the matrix creates a TTS task); run scripts/tts-deps.sh")
	}
	a, srv := startInProcess(t, "RATE_LIMIT_ENABLED=false", "AUTH_BCRYPT_COST=4")
	m := matrix{t: t, base: srv.URL}

	login := func(name string) caller {
		MustRegisterLogin(t, srv.URL, name)
		r := servertest.Do(t, "POST", srv.URL+api+"/users/login", "", map[string]string{"username": name, "password": "password-" + name})
		var l struct{ Token string }
		r.Decode(t, &l)
		me := servertest.Do(t, "GET", srv.URL+api+"/users/me", l.Token, nil)
		var u struct{ ID string }
		me.Decode(t, &u)
		return caller{id: u.ID, token: l.Token}
	}
	admin, owner, other := login("admin1"), login("owner1"), login("other1")
	anonymous := caller{}

	// The owner's resources, one of each kind a path can name.
	create := func(c caller, method, path string, body any, field string) string {
		r := servertest.Do(t, method, srv.URL+api+path, c.token, body)
		if r.Status != 200 && r.Status != 202 {
			t.Fatalf("create %s: %d %s", path, r.Status, r.Raw)
		}
		var v map[string]any
		r.Decode(t, &v)
		id, _ := v[field].(string)
		if id == "" {
			t.Fatalf("create %s: no %s in %s", path, field, r.Raw)
		}
		return id
	}
	sid := create(owner, "POST", "/interview/sessions", nil, "sessionId")
	resume := fileBody("resumePdf", "resume.txt", []byte("Backend engineer. Go, MySQL, Redis.\n"+
		"Five years in a product team: owned features from design to release, wrote tests and runbooks, "+
		"and mentored two junior engineers (a resume needs doctext.min-chars, 200).\n"), nil)
	if st := m.call(owner, "POST", api+"/interview/sessions/"+sid+"/interview-questions", resume); st != 200 {
		t.Fatalf("owner upload: %d", st)
	}
	chatID := create(owner, "POST", "/ai/conversations", map[string]any{}, "sessionId")
	agentSID := create(owner, "POST", "/agents/sessions", map[string]any{}, "sessionId")
	taskID := create(owner, "POST", "/xunfei/tts/tasks", map[string]any{"text": "Hello there."}, "taskId")
	aiPropID := create(admin, "POST", "/ai-properties", map[string]any{"aiName": "local", "aiType": "offline"}, "id")
	agentID := create(admin, "POST", "/agent-properties", map[string]any{"agentName": "helper", "systemPrompt": "Be brief."}, "id")
	rd, ct := fileBody("file", "notes.txt", []byte("owner's notes"), map[string]string{"sessionId": agentSID})()
	fileReq, _ := http.NewRequest("POST", srv.URL+api+"/agents/files/upload", rd)
	fileReq.Header.Set("Content-Type", ct)
	fileReq.Header.Set("Authorization", "Bearer "+owner.token)
	upload := servertest.Send(t, fileReq)
	var uploaded struct{ FileID string }
	upload.Decode(t, &uploaded)
	if uploaded.FileID == "" {
		t.Fatalf("owner file upload: %d %s", upload.Status, upload.Raw)
	}

	params := map[string]string{":sid": sid, ":taskId": taskID, ":userId": owner.id, ":username": "owner1",
		"*filepath": "css/app.css"}
	pathOf := func(route string) string {
		p := route
		for k, v := range params {
			p = strings.ReplaceAll(p, k, v)
		}
		switch {
		case strings.Contains(p, "/agents/"):
			p = strings.ReplaceAll(p, ":sessionId", agentSID)
			p = strings.ReplaceAll(p, ":id", uploaded.FileID)
		case strings.Contains(p, "/ai/"):
			p = strings.ReplaceAll(p, ":sessionId", chatID)
		case strings.Contains(p, "/ai-properties/"):
			p = strings.ReplaceAll(p, ":id", aiPropID)
		case strings.Contains(p, "/agent-properties/"):
			p = strings.ReplaceAll(p, ":id", agentID)
		}
		return p
	}
	bodyOf := func(route string) func() (io.Reader, string) {
		switch {
		case strings.HasSuffix(route, "/interview-questions"):
			return resume
		case strings.HasSuffix(route, "/demeanor-evaluation"):
			return fileBody("userPhoto", "me.png", pngBytes(), nil)
		case strings.HasSuffix(route, "/interview/answer"):
			return fileBody("unused", "x.txt", []byte("x"), map[string]string{"questionNumber": "1", "answerContent": "an answer"})
		case strings.HasSuffix(route, "/answer-json"):
			return jsonBody(map[string]string{"questionNumber": "1", "answerContent": "an answer"})
		case strings.HasSuffix(route, "/chat"):
			return jsonBody(map[string]string{"inputMessage": "hello"})
		case strings.HasSuffix(route, "/conversations/:sessionId") && strings.HasPrefix(route, "PUT"):
			return jsonBody(map[string]string{"title": "renamed"})
		case strings.HasSuffix(route, "/files/upload"):
			return fileBody("file", "notes.txt", []byte("notes"), map[string]string{"sessionId": agentSID})
		case strings.HasPrefix(route, "POST") || strings.HasPrefix(route, "PUT"):
			return jsonBody(map[string]any{})
		}
		return nil
	}

	for _, r := range a.Routes() {
		route := r.Method + " " + r.Path
		class, ok := policy[route]
		if !ok {
			t.Errorf("route %s has no authorization policy: add it to the matrix", route)
			continue
		}
		path, body := pathOf(r.Path), bodyOf(route)
		t.Run(route, func(t *testing.T) {
			m := matrix{t: t, base: srv.URL}
			anon := m.call(anonymous, r.Method, path, body)
			switch class {
			case "public":
				if anon == 401 || anon == 403 {
					t.Errorf("anonymous: %d, want the public route open", anon)
				}
				return
			default:
				if anon != 401 {
					t.Errorf("anonymous: %d, want 401", anon)
				}
			}
			if r.Method == "DELETE" || strings.HasSuffix(r.Path, "/logout") {
				// Deleting as someone else must fail; as the owner it would
				// change what the other rows test, so it is not sent.
				if class == "user" {
					return
				}
			}
			got := m.call(other, r.Method, path, body)
			switch class {
			case "user":
				if got == 401 || got == 403 {
					t.Errorf("another user: %d, want allowed", got)
				}
			case "admin":
				if got != 403 {
					t.Errorf("non-admin: %d, want 403", got)
				}
			case "owner":
				if got != 404 {
					t.Errorf("another user: %d, want 404", got)
				}
				if got := m.call(admin, r.Method, path, body); got != 404 {
					t.Errorf("an admin who is not the owner: %d, want 404", got)
				}
				if r.Method == "GET" {
					if got := m.call(owner, r.Method, path, body); got == 401 || got == 403 {
						t.Errorf("owner: %d", got)
					}
				}
			case "owner-or-admin":
				if got != 404 {
					t.Errorf("another user: %d, want 404", got)
				}
				for who, c := range map[string]caller{"an admin who is not the owner": admin, "owner": owner} {
					if got := m.call(c, r.Method, path, body); got != 200 {
						t.Errorf("%s: %d, want 200", who, got)
					}
				}
			case "socket":
				if got < 400 {
					t.Errorf("another user on the owner's socket path: %d, want refused", got)
				}
			}
		})
	}
	for route := range policy {
		found := false
		for _, r := range a.Routes() {
			if r.Method+" "+r.Path == route {
				found = true
			}
		}
		if !found {
			t.Errorf("policy lists %s, which is not a route", route)
		}
	}
}
