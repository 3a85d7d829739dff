package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/chat/chattest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// TestOriginalFeaturesEndToEnd covers what issue 20 brought over from the
// original (items 4, 5 and 6) against the real server on MariaDB: agent
// files, the original's safe routes and list fields, and the provider
// settings that reach the model API as headers.
func TestOriginalFeaturesEndToEnd(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Content: "noted: " + req.LastUserMessage(), PromptTokens: 11, CompletionTokens: 7}
	}))
	srv := servertest.Start(t, "", "DATABASE_DRIVER=mysql", "DATABASE_DSN="+testenv.MySQL(t))
	admin := MustRegisterLogin(t, srv.URL, "admin20") // the first user is admin
	bob := MustRegisterLogin(t, srv.URL, "bob20")
	carol := MustRegisterLogin(t, srv.URL, "carol20")
	do := func(l login, method, path string, body any) servertest.Response {
		t.Helper()
		return servertest.Do(t, method, srv.URL+api+path, l.Token, body)
	}
	must := func(l login, method, path string, body, out any) servertest.Response {
		t.Helper()
		r := do(l, method, path, body)
		if r.Status != 200 {
			t.Fatalf("%s %s %s: %d %s", l.Username, method, path, r.Status, r.Raw)
		}
		if out != nil {
			r.Decode(t, out)
		}
		return r
	}

	// Item 6: a provider configuration with the original's extra settings.
	const secret, key = "sk-secret-part-20", "sk-key-part-20"
	var cfg struct {
		ID, APIKey, APISecret, ProjectID, OrganizationID, DefaultAPIURL string
		APISecretSet                                                    bool
	}
	r := must(admin, "POST", "/ai-properties", map[string]any{"aiName": "fake20", "aiType": "openai", "apiKey": key,
		"apiSecret": secret, "projectId": "proj_20", "organizationId": "org-20", "apiUrl": fake.URL(),
		"modelName": "fake-model"}, &cfg)
	if strings.Contains(r.Raw, secret) || strings.Contains(r.Raw, key) || cfg.APISecret != "******" || !cfg.APISecretSet ||
		cfg.ProjectID != "proj_20" || cfg.OrganizationID != "org-20" || cfg.DefaultAPIURL != "https://api.openai.com/v1" {
		t.Fatalf("created provider: %s", r.Raw)
	}
	t.Run("provider settings: default URLs, secret kept on update", func(t *testing.T) {
		// Known vendors need no apiUrl; other still does.
		var q struct{ ID, APIURL, DefaultAPIURL string }
		must(admin, "POST", "/ai-properties", map[string]any{"aiName": "qwen20", "aiType": "qwen", "apiKey": "k",
			"modelName": "qwen-plus"}, &q)
		if q.APIURL != "" || q.DefaultAPIURL != "https://dashscope.aliyuncs.com/compatible-mode/v1" {
			t.Fatalf("qwen provider = %+v", q)
		}
		if r := do(admin, "POST", "/ai-properties", map[string]any{"aiName": "other20", "aiType": "other",
			"modelName": "m"}); r.Status != 400 || !strings.Contains(r.Message, "apiUrl") {
			t.Fatalf("other without apiUrl: %d %s", r.Status, r.Raw)
		}
		// Sending the mask back keeps the secret (checked below by the
		// request reaching the model with the same settings).
		must(admin, "PUT", "/ai-properties", map[string]any{"id": cfg.ID, "apiSecret": "******", "apiKey": "******"}, nil)
		if r := do(bob, "GET", "/ai-properties/"+cfg.ID, nil); strings.Contains(r.Raw, secret) {
			t.Fatalf("secret leaks to a reader: %s", r.Raw)
		}
	})

	var ag struct {
		ID   string
		Tags []struct {
			Code        int
			Name, Color string
		}
	}
	must(admin, "POST", "/agent-properties", map[string]any{"agentName": "files20", "systemPrompt": "You are FILES-20.",
		"aiId": cfg.ID, "tagCodes": []int{5}}, &ag)
	if len(ag.Tags) != 1 || ag.Tags[0].Color == "" {
		t.Fatalf("agent tags carry no color: %+v", ag.Tags)
	}
	var sess struct{ SessionID string }
	must(bob, "POST", "/agents/sessions", map[string]any{"agentId": ag.ID}, &sess)

	t.Run("provider headers reach the model API", func(t *testing.T) {
		chattest.Exchange(t, srv.URL+api+"/agents/sessions/"+sess.SessionID+"/chat", bob.Token, "hello")
		req := fake.Last(t)
		if got := req.Header.Get("OpenAI-Project"); got != "proj_20" {
			t.Errorf("OpenAI-Project = %q", got)
		}
		if got := req.Header.Get("OpenAI-Organization"); got != "org-20" {
			t.Errorf("OpenAI-Organization = %q", got)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("Authorization = %q (the secret is only sent to Spark)", got)
		}
		if strings.Contains(srv.Logs(), secret) {
			t.Errorf("the server logged the API secret")
		}
	})

	// Item 4: agent files.
	upload := func(l login, sid, name string, data []byte) servertest.Response {
		t.Helper()
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		_ = w.WriteField("sessionId", sid)
		fw, _ := w.CreateFormFile("file", name)
		_, _ = fw.Write(data)
		_ = w.Close()
		req, _ := http.NewRequest("POST", srv.URL+api+"/agents/files/upload", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+l.Token)
		return servertest.Send(t, req)
	}
	content := []byte("Meeting notes: the budget is 4200 and the deadline is Friday.\n")
	type fileView struct {
		FileID, FileName, SessionID, ContentType, FileURL, CreateTime string
		Size                                                          int64
	}
	var f fileView
	if r := upload(bob, sess.SessionID, "notes.txt", content); r.Status != 200 {
		t.Fatalf("upload: %d %s", r.Status, r.Raw)
	} else {
		r.Decode(t, &f)
	}
	if f.FileURL != api+"/agents/files/"+f.FileID || f.Size != int64(len(content)) || f.CreateTime == "" {
		t.Fatalf("upload answer = %+v", f)
	}
	get := func(l login, url, rng string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+url, nil)
		req.Header.Set("Authorization", "Bearer "+l.Token)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}

	t.Run("agent files: list, download with Range, owner only, delete", func(t *testing.T) {
		var files []fileView
		must(bob, "GET", "/agents/files?sessionId="+sess.SessionID, nil, &files)
		if len(files) != 1 || files[0].FileID != f.FileID || files[0].FileURL != f.FileURL {
			t.Fatalf("files = %+v", files)
		}
		resp, body := get(bob, f.FileURL, "")
		if resp.StatusCode != 200 || !bytes.Equal(body, content) ||
			!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") ||
			resp.Header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("download: %d %v %q", resp.StatusCode, resp.Header, body)
		}
		resp, body = get(bob, f.FileURL, "bytes=15-20")
		if resp.StatusCode != 206 || string(body) != string(content[15:21]) ||
			resp.Header.Get("Content-Range") != "bytes 15-20/"+strconv.Itoa(len(content)) {
			t.Fatalf("range: %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Range"))
		}
		// Another user, even an admin, finds neither the file nor the list.
		for _, l := range []login{carol, admin} {
			if resp, body := get(l, f.FileURL, ""); resp.StatusCode != 404 || bytes.Contains(body, []byte("budget")) {
				t.Fatalf("%s downloads bob's file: %d %s", l.Username, resp.StatusCode, body)
			}
			if r := do(l, "GET", "/agents/files?sessionId="+sess.SessionID, nil); r.Status != 404 {
				t.Fatalf("%s lists bob's session files: %d %s", l.Username, r.Status, r.Raw)
			}
			if r := do(l, "DELETE", "/agents/files/"+f.FileID, nil); r.Status != 404 {
				t.Fatalf("%s deletes bob's file: %d %s", l.Username, r.Status, r.Raw)
			}
		}
		var mine []fileView
		must(carol, "GET", "/agents/files", nil, &mine)
		if len(mine) != 0 {
			t.Fatalf("carol lists %d files", len(mine))
		}
		must(bob, "DELETE", "/agents/files/"+f.FileID, nil, nil)
		if resp, _ := get(bob, f.FileURL, ""); resp.StatusCode != 404 {
			t.Fatalf("download after delete: %d", resp.StatusCode)
		}
		must(bob, "GET", "/agents/files", nil, &files)
		if len(files) != 0 {
			t.Fatalf("files after delete = %+v", files)
		}
		// The agent no longer sees the deleted file.
		chattest.Exchange(t, srv.URL+api+"/agents/sessions/"+sess.SessionID+"/chat", bob.Token, "what is the budget?")
		if sys := fake.Last(t).SystemPrompt(); strings.Contains(sys, "4200") {
			t.Fatalf("deleted file still in the prompt:\n%s", sys)
		}
	})

	// Item 5: the original's safe routes and list fields.
	t.Run("users: is-admin and by username, phone masked", func(t *testing.T) {
		must(bob, "PUT", "/users", map[string]any{"phone": "13812345678"}, nil)
		var isAdmin bool
		must(bob, "GET", "/users/is-admin", nil, &isAdmin)
		if isAdmin {
			t.Fatal("bob is admin")
		}
		must(admin, "GET", "/users/is-admin", nil, &isAdmin)
		if !isAdmin {
			t.Fatal("admin is not admin")
		}
		for _, l := range []login{bob, admin} {
			var u struct{ Username, Phone string }
			r := must(l, "GET", "/users/bob20", nil, &u)
			if u.Username != "bob20" || u.Phone != "138****5678" || strings.Contains(r.Raw, "password") {
				t.Fatalf("%s reads bob: %s", l.Username, r.Raw)
			}
		}
		for _, path := range []string{"/users/bob20", "/users/nobody20"} {
			if r := do(carol, "GET", path, nil); r.Status != 404 {
				t.Fatalf("carol GET %s: %d %s", path, r.Status, r.Raw)
			}
		}
	})

	t.Run("lists: pageNum/pageSize, conversationTitle, totalTokens, updateTime", func(t *testing.T) {
		var p struct {
			Size    int
			Records []struct {
				SessionID, ConversationTitle, UpdateTime string
				TotalTokens                              int64
			}
		}
		must(bob, "GET", "/agents/conversations?pageNum=1&pageSize=3", nil, &p)
		if p.Size != 3 || len(p.Records) != 1 || p.Records[0].UpdateTime == "" || p.Records[0].TotalTokens < 18 {
			t.Fatalf("agent conversations = %+v", p)
		}
		if r := do(bob, "GET", "/agents/conversations?pageSize=1000", nil); r.Status != 400 || !strings.Contains(r.Message, "pageSize") {
			t.Fatalf("pageSize=1000: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("interview: conversations end and save-from-redis finish", func(t *testing.T) {
		var s struct{ SessionID string }
		must(bob, "POST", "/interview/sessions", nil, &s)
		resume := "Backend engineer. Go, MySQL, Redis.\nFive years in a product team: owned features from design to " +
			"release, wrote tests and runbooks, and mentored two junior engineers (long enough for doctext.min-chars).\n"
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		fw, _ := w.CreateFormFile("resumePdf", "resume.txt")
		_, _ = fw.Write([]byte(resume))
		_ = w.Close()
		req, _ := http.NewRequest("POST", srv.URL+api+"/interview/sessions/"+s.SessionID+"/interview-questions", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+bob.Token)
		if r := servertest.Send(t, req); r.Status != 200 {
			t.Fatalf("resume upload: %d %s", r.Status, r.Raw)
		}
		var p struct {
			Records []struct {
				SessionID, ResumeFileURL, UpdateTime string
			}
		}
		must(bob, "GET", "/interview/conversations?pageNum=1&pageSize=5", nil, &p)
		if len(p.Records) != 1 || p.Records[0].ResumeFileURL == "" || p.Records[0].UpdateTime == "" {
			t.Fatalf("interview conversations = %+v", p)
		}
		if resp, body := get(bob, p.Records[0].ResumeFileURL, ""); resp.StatusCode != 200 || !strings.Contains(string(body), "Backend engineer") {
			t.Fatalf("resumeFileUrl %s: %d", p.Records[0].ResumeFileURL, resp.StatusCode)
		}
		if r := do(carol, "PUT", "/interview/conversations/"+s.SessionID+"/end", nil); r.Status != 404 {
			t.Fatalf("carol ends bob's interview: %d %s", r.Status, r.Raw)
		}
		var ended, saved struct{ SessionID, ResumeFileURL string }
		must(bob, "PUT", "/interview/conversations/"+s.SessionID+"/end", nil, &ended)
		must(bob, "POST", "/interview/record/save-from-redis/"+s.SessionID, nil, &saved)
		if ended.SessionID != s.SessionID || saved != ended || ended.ResumeFileURL != p.Records[0].ResumeFileURL {
			t.Fatalf("end = %+v, save-from-redis = %+v", ended, saved)
		}
		var recs struct {
			Records []struct{ SessionID, ResumeFileURL, UpdateTime string }
		}
		must(bob, "GET", "/interview/interview/records?pageNum=1&pageSize=5", nil, &recs)
		if len(recs.Records) != 1 || recs.Records[0].ResumeFileURL != p.Records[0].ResumeFileURL || recs.Records[0].UpdateTime == "" {
			t.Fatalf("records = %+v", recs)
		}
		var st struct{ Records []struct{ Status string } }
		must(bob, "GET", "/interview/conversations", nil, &st)
		if len(st.Records) != 1 || st.Records[0].Status != "FINISHED" {
			t.Fatalf("status after end: %+v", st)
		}
	})
}
