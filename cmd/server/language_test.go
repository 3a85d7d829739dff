package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// doIn sends a JSON request with an Accept-Language header.
func doIn(t *testing.T, lang, method, url, token string, body string) servertest.Response {
	t.Helper()
	var req *http.Request
	var err error
	if body == "" {
		req, err = http.NewRequest(method, url, nil)
	} else {
		req, err = http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		t.Fatal(err)
	}
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return servertest.Send(t, req)
}

// The envelope's message follows Accept-Language (zh-CN or English, by
// q-value, English by default) while status and code stay the same, and
// validation messages name the JSON field in both languages.
func TestMessagesInCallersLanguage(t *testing.T) {
	s := servertest.Start(t, "")
	l := MustRegisterLogin(t, s.URL, "lingua")
	const zh, en = "zh-CN,zh;q=0.9,en;q=0.8", "en-US,en;q=0.9"
	tests := []struct {
		name         string
		method, path string
		token, body  string
		status       int
		code         string
		wantZH       []string
		wantEN       []string
	}{
		{"register: short password", "POST", "/users/register", "", `{"username":"lingua2","password":"short"}`,
			400, "A000001", []string{"password 至少需要 8 个字符"}, []string{"password must be at least 8 characters"}},
		{"register: username rule", "POST", "/users/register", "", `{"username":"张","password":"password1"}`,
			400, "A000001", []string{"username 有 1 个字符", "用户名须为 2 到 32 个字符"}, []string{"username has 1 characters", "2 to 32 characters"}},
		{"register: field of the wrong type", "POST", "/users/register", "", `{"username":5,"password":"password1"}`,
			400, "A000001", []string{`字段 "username" 必须是字符串，而不是数字`}, []string{`field "username" must be a string, not number`}},
		{"missing session", "GET", "/interview/sessions/nosuchsession/current-question", l.Token, "",
			404, "B000412", []string{"面试会话不存在"}, []string{"interview session not found"}},
		{"unknown route", "GET", "/no/such/route", "", "",
			404, "A000404", []string{"路径 /api/xunzhi/v1/no/such/route 不存在"}, []string{"route /api/xunzhi/v1/no/such/route not found"}},
		{"login required", "GET", "/users/me", "", "",
			401, "A000200", []string{"请先登录"}, []string{"login required"}},
		{"success", "GET", "/users/me", l.Token, "", 200, "0", []string{"成功"}, []string{"success"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				header, lang string
				want         []string
			}{{zh, "zh-CN", tt.wantZH}, {en, "en", tt.wantEN}, {"", "en", tt.wantEN}} {
				r := doIn(t, c.header, tt.method, s.URL+api+tt.path, tt.token, tt.body)
				wantStatus(t, r, tt.status, tt.code)
				for _, w := range c.want {
					if !strings.Contains(r.Message, w) {
						t.Errorf("Accept-Language %q: message %q, want it to contain %q", c.header, r.Message, w)
					}
				}
				if got := r.Header.Get("Content-Language"); got != c.lang {
					t.Errorf("Accept-Language %q: Content-Language = %q, want %q", c.header, got, c.lang)
				}
				if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Accept-Language") {
					t.Errorf("Vary = %q, want Accept-Language", r.Header.Values("Vary"))
				}
			}
		})
	}
}

// q-values decide between the two languages; zh-TW and bare zh are Chinese.
func TestAcceptLanguageQValues(t *testing.T) {
	s := servertest.Start(t, "")
	for _, tt := range []struct{ header, want string }{
		{"en;q=0.5, zh-CN;q=0.9", "zh-CN"},
		{"zh-CN;q=0.1, en", "en"},
		{"zh-TW", "zh-CN"},
		{"zh", "zh-CN"},
		{"fr-FR, de;q=0.9", "en"},
		{"zh-CN;q=0, en;q=0.2", "en"},
	} {
		r := doIn(t, tt.header, "GET", s.URL+api+"/users/me", "", "")
		wantStatus(t, r, 401, "A000200")
		if got := r.Header.Get("Content-Language"); got != tt.want {
			t.Errorf("Accept-Language %q: Content-Language %q (%s), want %q", tt.header, got, r.Message, tt.want)
		}
	}
}
