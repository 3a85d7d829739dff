package aiconfig_test

import (
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/chat/chattest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

const api = chattest.API

// Issue 19: "Test connection"; saving an unreachable provider warns but
// saves; users are offered only enabled providers that answer; chat's
// "Default model" uses the first of them when application.yaml names none.
func TestProviderChecksAndDefault(t *testing.T) {
	fake := llmtest.NewServer(t)
	srv := servertest.Start(t, "") // offline default model
	admin := chattest.Login(t, srv.URL, "admin")
	user := chattest.Login(t, srv.URL, "candidate")

	type saved struct {
		aiconfig.View
		Check   *aiconfig.CheckResult `json:"check"`
		Warning string                `json:"warning"`
	}
	create := func(name, url string) saved {
		t.Helper()
		r := servertest.Do(t, "POST", srv.URL+api+"/ai-properties", admin, map[string]any{"aiName": name, "aiType": "openai",
			"apiKey": "sk-test", "apiUrl": url, "modelName": "fake-gpt"})
		if r.Status != 200 {
			t.Fatalf("create %s: %d %s", name, r.Status, r.Raw)
		}
		var s saved
		r.Decode(t, &s)
		return s
	}
	options := func() []aiconfig.Option {
		t.Helper()
		r := servertest.Do(t, "GET", srv.URL+api+"/ai-properties/options", user, nil)
		var out []aiconfig.Option
		r.Decode(t, &out)
		return out
	}
	names := func(opts []aiconfig.Option) string {
		var n []string
		for _, o := range opts {
			n = append(n, o.AIName)
		}
		return strings.Join(n, ",")
	}

	bad := create("bad", "http://127.0.0.1:1/v1")
	if bad.ID == "" || bad.Check == nil || bad.Check.OK || bad.Check.Reason == "" || !strings.Contains(bad.Warning, "did not answer") {
		t.Fatalf("unreachable provider saved as %+v", bad)
	}
	if r := servertest.Do(t, "GET", srv.URL+api+"/ai-properties/"+bad.ID, admin, nil); r.Status != 200 {
		t.Fatalf("the unreachable provider was not saved: %d", r.Status)
	}
	var res aiconfig.CheckResult
	r := servertest.Do(t, "POST", srv.URL+api+"/ai-properties/"+bad.ID+"/test", admin, nil)
	r.Decode(t, &res)
	if r.Status != 200 || res.OK || res.Reason == "" {
		t.Fatalf("test of the unreachable provider: %d %s", r.Status, r.Raw)
	}
	if r := servertest.Do(t, "POST", srv.URL+api+"/ai-properties/"+bad.ID+"/test", user, nil); r.Status != 403 {
		t.Fatalf("a user testing a provider: %d", r.Status)
	}

	good := create("good", fake.URL())
	if good.Check == nil || !good.Check.OK || good.Warning != "" {
		t.Fatalf("reachable provider saved as %+v", good)
	}
	r = servertest.Do(t, "POST", srv.URL+api+"/ai-properties/test", admin, map[string]any{"aiName": "draft", "aiType": "openai",
		"apiKey": "sk-test", "apiUrl": fake.URL(), "modelName": "fake-gpt"})
	res = aiconfig.CheckResult{}
	r.Decode(t, &res)
	if r.Status != 200 || !res.OK {
		t.Fatalf("test of an unsaved form: %d %s", r.Status, r.Raw)
	}

	opts := options()
	if got := names(opts); got != "Default (good),good" || opts[0].ID != aiconfig.DefaultID || opts[0].Offline {
		t.Fatalf("options = %s (%+v), want the default on good and bad left out", got, opts)
	}
	// Chat's "Default model" answers with the enabled provider.
	conv := servertest.Do(t, "POST", srv.URL+api+"/ai/conversations", user, map[string]any{})
	var c struct{ SessionID string }
	conv.Decode(t, &c)
	chunks, _ := chattest.Exchange(t, srv.URL+api+"/ai/sessions/"+c.SessionID+"/chat", user, "hello there")
	var text strings.Builder
	for _, ch := range chunks {
		text.WriteString(ch.Content)
	}
	if !strings.HasPrefix(text.String(), "echo: hello there") {
		t.Fatalf("default model answered %q, want the enabled provider's echo", text.String())
	}

	// Disabled: no longer offered, the default is the offline model again.
	if r := servertest.Do(t, "PUT", srv.URL+api+"/ai-properties/"+good.ID+"/status?isEnabled=false", admin, nil); r.Status != 200 {
		t.Fatalf("disable: %d %s", r.Status, r.Raw)
	}
	if opts := options(); names(opts) != "Offline model (built-in)" || !opts[0].Offline {
		t.Fatalf("options after disabling = %+v", opts)
	}
}
