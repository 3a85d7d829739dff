package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

const api = "/api/xunzhi/v1"

type login struct {
	Token    string `json:"token"`
	Username string `json:"username"`
	IsAdmin  bool   `json:"isAdmin"`
}

func wantStatus(t *testing.T, r servertest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.Code != code {
		t.Fatalf("status %d code %q (%s), want %d %q", r.Status, r.Code, r.Raw, status, code)
	}
	if r.RequestID == "" || r.Header.Get("X-Request-Id") != r.RequestID {
		t.Fatalf("requestId %q, header %q: want both set and equal", r.RequestID, r.Header.Get("X-Request-Id"))
	}
}

func MustRegisterLogin(t *testing.T, base, name string) login {
	t.Helper()
	r := servertest.Do(t, "POST", base+api+"/users/register", "", map[string]string{"username": name, "password": "password-" + name})
	wantStatus(t, r, 200, "0")
	r = servertest.Do(t, "POST", base+api+"/users/login", "", map[string]string{"username": name, "password": "password-" + name})
	wantStatus(t, r, 200, "0")
	var l login
	r.Decode(t, &l)
	if l.Token == "" || l.Username != name {
		t.Fatalf("login = %+v", l)
	}
	return l
}

func me(t *testing.T, base, token string) servertest.Response {
	t.Helper()
	return servertest.Do(t, "GET", base+api+"/users/me", token, nil)
}

// userFlowSurvivesRestart registers, logs in, restarts the binary on the
// same storage and checks the user and token still work.
func userFlowSurvivesRestart(t *testing.T, env ...string) {
	dir := t.TempDir()
	s := servertest.Start(t, dir, env...)
	wantStatus(t, servertest.Do(t, "GET", s.URL+"/healthz", "", nil), 200, "0")
	wantStatus(t, servertest.Do(t, "GET", s.URL+"/readyz", "", nil), 200, "0")
	l := MustRegisterLogin(t, s.URL, "alice")
	if !l.IsAdmin {
		t.Fatalf("first user is not admin")
	}
	r := me(t, s.URL, l.Token)
	wantStatus(t, r, 200, "0")
	if strings.Contains(r.Raw, "password") {
		t.Fatalf("me leaks a password field: %s", r.Raw)
	}
	s.Stop(t)

	s = servertest.Start(t, dir, env...)
	r = me(t, s.URL, l.Token)
	wantStatus(t, r, 200, "0")
	var u struct{ Username string }
	r.Decode(t, &u)
	if u.Username != "alice" {
		t.Fatalf("after restart me = %s", r.Raw)
	}
	wantStatus(t, servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "alice", "password": "password-alice"}), 200, "0")
}

func TestEmbeddedDefaultsSurviveRestart(t *testing.T) {
	userFlowSurvivesRestart(t)
}

func TestMySQLSurvivesRestart(t *testing.T) {
	userFlowSurvivesRestart(t, "DATABASE_DRIVER=mysql", "DATABASE_DSN="+testenv.MySQL(t))
}

func TestEmbeddedDefaultsCreateDataDir(t *testing.T) {
	s := servertest.Start(t, "")
	MustRegisterLogin(t, s.URL, "alice")
	if _, err := os.Stat(filepath.Join(s.Dir, "data", "aimeeting.db")); err != nil {
		t.Fatalf("embedded database file: %v", err)
	}
}

func TestAuth(t *testing.T) {
	s := servertest.Start(t, "", "AUTH_TOKEN_IDLE_TTL=2s")
	admin := MustRegisterLogin(t, s.URL, "admin1")
	user := MustRegisterLogin(t, s.URL, "user1")

	t.Run("no token", func(t *testing.T) {
		wantStatus(t, me(t, s.URL, ""), 401, "A000200")
	})
	t.Run("garbage token", func(t *testing.T) {
		wantStatus(t, me(t, s.URL, "not-a-token"), 401, "A000200")
	})
	t.Run("wrong password", func(t *testing.T) {
		r := servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "user1", "password": "wrong-password"})
		wantStatus(t, r, 401, "A000200")
	})
	t.Run("revoked token", func(t *testing.T) {
		l := servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "user1", "password": "password-user1"})
		var tok login
		l.Decode(t, &tok)
		wantStatus(t, servertest.Do(t, "POST", s.URL+api+"/users/logout", tok.Token, nil), 200, "0")
		wantStatus(t, me(t, s.URL, tok.Token), 401, "A000200")
	})
	t.Run("check-login", func(t *testing.T) {
		r := servertest.Do(t, "GET", s.URL+api+"/users/check-login", "", nil)
		wantStatus(t, r, 200, "0")
		if !strings.Contains(string(r.Data), `"isLogin":false`) {
			t.Fatalf("anonymous check-login = %s", r.Data)
		}
	})
	t.Run("admin only", func(t *testing.T) {
		body := map[string]any{"aiName": "x", "aiType": "offline"}
		wantStatus(t, servertest.Do(t, "POST", s.URL+api+"/ai-properties", user.Token, body), 403, "A000403")
		wantStatus(t, servertest.Do(t, "GET", s.URL+api+"/users/page", user.Token, nil), 403, "A000403")
		wantStatus(t, servertest.Do(t, "POST", s.URL+api+"/users/admin", user.Token, map[string]string{"username": "user1"}), 403, "A000403")
		wantStatus(t, servertest.Do(t, "GET", s.URL+api+"/users/page", admin.Token, nil), 200, "0")
	})
	t.Run("language", func(t *testing.T) {
		bad := servertest.Do(t, "PUT", s.URL+api+"/users", user.Token, map[string]string{"language": "fr"})
		wantStatus(t, bad, 400, "A000001")
		if !strings.Contains(bad.Message, "language") {
			t.Fatalf("PUT language fr: message %q does not name the field", bad.Message)
		}
		wantStatus(t, servertest.Do(t, "PUT", s.URL+api+"/users", user.Token, map[string]string{"language": "zh-CN"}), 200, "0")
		if r := me(t, s.URL, user.Token); !strings.Contains(string(r.Data), `"language":"zh-CN"`) {
			t.Fatalf("/users/me after choosing zh-CN = %s", r.Data)
		}
		l := servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "user1", "password": "password-user1"})
		if !strings.Contains(string(l.Data), `"language":"zh-CN"`) {
			t.Fatalf("login after choosing zh-CN = %s", l.Data)
		}
	})
	// Last: it waits out the idle limit, which expires the other tokens too.
	t.Run("idle token expires", func(t *testing.T) {
		l := servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "user1", "password": "password-user1"})
		var tok login
		l.Decode(t, &tok)
		wantStatus(t, me(t, s.URL, tok.Token), 200, "0")
		time.Sleep(2500 * time.Millisecond) // auth.token-idle-ttl is 2s here
		wantStatus(t, me(t, s.URL, tok.Token), 401, "A000200")
	})
}

// An API key given to the server (config or ai-properties) never appears
// unmasked in a response or a log line.
func TestSecretsMasked(t *testing.T) {
	const envKey = "sk-planted-env-key-0123456789"
	const rowKey = "sk-planted-row-key-9876543210"
	// Secrets inside URLs (issue 16): a password and a key in the query.
	const urlPass, urlKey, envURLKey = "planted-url-pass-1234", "planted-url-key-5678", "planted-env-url-key-9012"
	envURL := "https://gw.example.com/v1?api_key=" + envURLKey
	rowURL := "https://admin:" + urlPass + "@api.deepseek.com/v1?key=" + urlKey + "&region=cn"
	s := servertest.Start(t, "", "AI_PROVIDER=offline", "AI_OPENAI_API_KEY="+envKey, "AI_OPENAI_BASE_URL="+envURL,
		"LOG_FORMAT=json", "LOG_LEVEL=debug")
	admin := MustRegisterLogin(t, s.URL, "admin1")
	user := MustRegisterLogin(t, s.URL, "user1")
	var responses []string
	do := func(method, path, token string, body any) servertest.Response {
		r := servertest.Do(t, method, s.URL+api+path, token, body)
		responses = append(responses, r.Raw)
		return r
	}
	r := do("POST", "/ai-properties", admin.Token, map[string]any{"aiName": "deepseek", "aiType": "deepseek",
		"apiKey": rowKey, "apiUrl": rowURL, "modelName": "deepseek-chat"})
	wantStatus(t, r, 200, "0")
	var created struct {
		ID        string `json:"id"`
		APIKey    string `json:"apiKey"`
		APIKeySet bool   `json:"apiKeySet"`
		APIURL    string `json:"apiUrl"`
	}
	r.Decode(t, &created)
	if created.APIKey != "******" || !created.APIKeySet {
		t.Fatalf("created apiKey = %q set=%v, want masked", created.APIKey, created.APIKeySet)
	}
	const maskedURL = "https://admin:******@api.deepseek.com/v1?key=******&region=cn"
	if created.APIURL != maskedURL {
		t.Fatalf("created apiUrl = %q, want %q", created.APIURL, maskedURL)
	}
	// An update that echoes the masked key and URL back keeps the stored ones.
	wantStatus(t, do("PUT", "/ai-properties", admin.Token, map[string]any{"id": created.ID, "apiKey": "******",
		"apiUrl": maskedURL, "maxTokens": 512}), 200, "0")
	// A masked secret the row does not hold cannot be stored.
	wantStatus(t, do("PUT", "/ai-properties", admin.Token, map[string]any{"id": created.ID,
		"apiUrl": "https://api.deepseek.com/v1?token=******"}), 400, "A000001")
	r = do("GET", "/ai-properties/"+created.ID, user.Token, nil)
	wantStatus(t, r, 200, "0")
	r.Decode(t, &created)
	if created.APIURL != maskedURL {
		t.Fatalf("apiUrl after update = %q, want %q", created.APIURL, maskedURL)
	}
	wantStatus(t, do("GET", "/ai-properties?current=1&size=10", user.Token, nil), 200, "0")
	wantStatus(t, do("GET", "/ai-properties/enabled", user.Token, nil), 200, "0")
	wantStatus(t, do("GET", "/ai-properties/options", user.Token, nil), 200, "0")
	wantStatus(t, do("PUT", "/ai-properties/"+created.ID+"/status?isEnabled=false", admin.Token, nil), 200, "0")
	wantStatus(t, do("POST", "/ai-properties", admin.Token, map[string]any{"aiName": "bad", "aiType": "nope", "apiKey": rowKey}), 400, "A000001")
	s.Stop(t)

	out, err := exec.Command(servertest.Binary(t), "--print-config").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(servertest.Binary(t), "--print-config")
	cmd.Env = []string{"AI_OPENAI_API_KEY=" + envKey, "REDIS_PASSWORD=" + envKey, "AI_OPENAI_BASE_URL=" + envURL,
		"TTS_OPENAI_BASE_URL=" + rowURL}
	masked, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"responses": strings.Join(responses, "\n"), "logs": s.Logs(),
		"print-config": string(out) + string(masked)} {
		for _, key := range []string{envKey, rowKey, urlPass, urlKey, envURLKey} {
			if strings.Contains(text, key) {
				t.Errorf("%s contain the planted key %q", name, key)
			}
		}
	}
	if !strings.Contains(string(masked), "******") {
		t.Errorf("print-config does not show a masked key:\n%s", masked)
	}
	if !strings.Contains(string(masked), "https://gw.example.com/v1?api_key=******") {
		t.Errorf("print-config does not show the masked base URL:\n%s", masked)
	}
}

// Bad input gets a 4xx envelope that says what to fix, and writes nothing.
func TestBadInput(t *testing.T) {
	s := servertest.Start(t, "")
	admin := MustRegisterLogin(t, s.URL, "admin1")
	tests := []struct {
		name    string
		body    any
		status  int
		code    string
		message string
	}{
		{"malformed JSON", `{"username": "bob",`, 400, "A000001", "not valid JSON"},
		{"not an object", `[1,2]`, 400, "A000001", "JSON object"},
		{"empty body", ``, 400, "A000001", "empty"},
		{"missing username", map[string]any{"password": "password1"}, 400, "A000001", "username is required"},
		{"missing password", map[string]any{"username": "bob"}, 400, "A000001", "password is required"},
		{"wrong type", map[string]any{"username": 42, "password": "password1"}, 400, "A000001", `field "username" must be a string`},
		{"too deep", strings.Repeat("[", 40) + strings.Repeat("]", 40), 400, "A000001", "nested"},
		{"oversized", `{"username":"bob","password":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "A000413", "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := servertest.Do(t, "POST", s.URL+api+"/users/register", "", tt.body)
			wantStatus(t, r, tt.status, tt.code)
			if !strings.Contains(r.Message, tt.message) {
				t.Fatalf("message %q does not contain %q", r.Message, tt.message)
			}
		})
	}
	t.Run("bad page size", func(t *testing.T) {
		wantStatus(t, servertest.Do(t, "GET", s.URL+api+"/users/page?size=1000", admin.Token, nil), 400, "A000001")
		wantStatus(t, servertest.Do(t, "GET", s.URL+api+"/users/page?current=x", admin.Token, nil), 400, "A000001")
	})
	t.Run("unknown route and method", func(t *testing.T) {
		wantStatus(t, servertest.Do(t, "GET", s.URL+api+"/nope", "", nil), 404, "A000404")
		wantStatus(t, servertest.Do(t, "DELETE", s.URL+api+"/users/login", "", nil), 405, "A000405") // with Allow: TestMethodNotAllowed
	})
	r := servertest.Do(t, "GET", s.URL+api+"/users/page", admin.Token, nil)
	wantStatus(t, r, 200, "0")
	var p struct{ Total int }
	r.Decode(t, &p)
	if p.Total != 1 {
		t.Fatalf("%d users after bad registrations, want only the admin", p.Total)
	}
}

// Invalid configuration stops start-up with a message naming the key.
func TestInvalidConfigNamesKey(t *testing.T) {
	tests := []struct {
		env  string
		want string
	}{
		{"SERVER_PORT=99999", "server.port"},
		{"DATABASE_DRIVER=oracle", "database.driver"},
		{"XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=sometimes", "xunzhi-agent.ai-singleflight.mode"},
		{"AUTH_TOKEN_TTL=forever", "token-ttl"},
		{"SERVER_CORS_ALLOWED_ORIGINS=*", ""},                   // valid without credentials
		{"SERVER_PPROF_ADDR=0.0.0.0:6060", "server.pprof-addr"}, // the profiler only on loopback
		{"SERVER_PPROF_ADDR=127.0.0.1:6060", ""},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			cmd := exec.Command(servertest.Binary(t), "--print-config")
			cmd.Env = []string{tt.env}
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid config rejected: %s", out)
				}
				return
			}
			if err == nil || !strings.Contains(string(out), tt.want) {
				t.Fatalf("err %v, output %q: want a failure naming %s", err, out, tt.want)
			}
		})
	}
}

func TestMetricsEndpoint(t *testing.T) {
	s := servertest.Start(t, "")
	servertest.Do(t, "GET", s.URL+"/healthz", "", nil)
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := new(strings.Builder)
	_, _ = io.Copy(buf, resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(buf.String(), `aimeeting_http_requests_total{method="GET",route="/healthz",status="200"}`) {
		t.Fatalf("metrics status %d:\n%.2000s", resp.StatusCode, buf.String())
	}
}

// With Redis configured, readiness reports it; an unreachable Redis makes
// the instance not ready but it still serves (Redis is an optimisation).
func TestReadyzWithRedis(t *testing.T) {
	testenv.Redis(t) // skips or fails when the test Redis is missing
	s := servertest.Start(t, "", "REDIS_ADDRS="+testenv.RedisAddr(), "REDIS_KEY_PREFIX=test:"+testenv.RandomSuffix(8)+":")
	r := servertest.Do(t, "GET", s.URL+"/readyz", "", nil)
	wantStatus(t, r, 200, "0")
	if !strings.Contains(string(r.Data), `"redis":"up"`) {
		t.Fatalf("readyz = %s", r.Data)
	}
	l := MustRegisterLogin(t, s.URL, "alice") // the token cache is in Redis now
	wantStatus(t, me(t, s.URL, l.Token), 200, "0")
	wantStatus(t, servertest.Do(t, "POST", s.URL+api+"/users/logout", l.Token, nil), 200, "0")
	wantStatus(t, me(t, s.URL, l.Token), 401, "A000200")

	down := servertest.Start(t, "", "REDIS_ADDRS=127.0.0.1:1")
	r = servertest.Do(t, "GET", down.URL+"/readyz", "", nil)
	if r.Status != 503 || !strings.Contains(string(r.Data), `"redis":"down`) {
		t.Fatalf("readyz with Redis down = %d %s", r.Status, r.Raw)
	}
	wantStatus(t, servertest.Do(t, "GET", down.URL+"/healthz", "", nil), 200, "0")
}

// Flow limits hold across two instances sharing Redis: 429 with
// Retry-After and A000300 once the shared budget is spent.
func TestRateLimitAcrossInstances(t *testing.T) {
	testenv.Redis(t)
	env := []string{"RATE_LIMIT_ENABLED=true", "RATE_LIMIT_DEFAULT=5", "REDIS_ADDRS=" + testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=test:" + testenv.RandomSuffix(8) + ":"}
	a, b := servertest.Start(t, "", env...), servertest.Start(t, "", env...)
	ok, limited := 0, 0
	start := time.Now()
	for i := range 16 {
		base := a.URL
		if i%2 == 1 {
			base = b.URL
		}
		r := servertest.Do(t, "GET", base+api+"/users/check-login", "", nil)
		switch r.Status {
		case 200:
			ok++
		case 429:
			limited++
			if r.Code != "A000300" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without code or Retry-After: %v %s", r.Header, r.Raw)
			}
		default:
			t.Fatalf("status %d", r.Status)
		}
	}
	// 5 per second shared: the burst of 5, plus what refilled meanwhile.
	if max := 5 + int(time.Since(start).Seconds()*5) + 1; ok < 5 || ok > max || limited == 0 {
		t.Fatalf("%d allowed, %d limited across two instances; want 5..%d allowed", ok, limited, max)
	}
}
