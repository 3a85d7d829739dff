package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

// TestVendorSettingsOnTheWire: the organization and project go out as the
// OpenAI headers, Spark's secret completes its bearer token, and the secret
// never appears in an error message.
func TestVendorSettingsOnTheWire(t *testing.T) {
	const secret = "spark-SECRET-98765"
	tests := []struct {
		name, typ, wantAuth, wantOrg, wantProject string
	}{
		{"openai with organization and project", "openai", "Bearer " + testKey, "org-1", "proj-1"},
		{"spark sends key:secret", "spark", "Bearer " + testKey + ":" + secret, "org-1", "proj-1"},
		{"deepseek ignores the secret", "deepseek", "Bearer " + testKey, "org-1", "proj-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			c, err := llm.NewOpenAI(llm.Config{Type: tt.typ, BaseURL: srv.URL(), APIKey: testKey, APISecret: secret,
				Organization: "org-1", Project: "proj-1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			h := srv.Last(t).Header
			if got := h.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
			if got := h.Get("OpenAI-Organization"); got != tt.wantOrg {
				t.Errorf("OpenAI-Organization = %q, want %q", got, tt.wantOrg)
			}
			if got := h.Get("OpenAI-Project"); got != tt.wantProject {
				t.Errorf("OpenAI-Project = %q, want %q", got, tt.wantProject)
			}
			srv.SetResponder(func(llmtest.RecordedRequest) llmtest.Reply {
				return llmtest.ErrorReply(401, "bad key "+testKey+":"+secret, "invalid_api_key")
			})
			_, err = c.Generate(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			if err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("error %v: want one without the secret", err)
			}
		})
	}
}

func TestDefaultBaseURLs(t *testing.T) {
	for _, typ := range []string{"openai", "deepseek", "doubao", "spark", "qwen", "zhipu", "moonshot"} {
		if _, err := llm.New(llm.Config{Type: typ, Model: "m", APIKey: "k"}); err != nil {
			t.Errorf("%s without a base URL: %v", typ, err)
		}
		if !strings.HasPrefix(llm.DefaultBaseURL(typ), "https://") {
			t.Errorf("DefaultBaseURL(%s) = %q", typ, llm.DefaultBaseURL(typ))
		}
	}
	if _, err := llm.New(llm.Config{Type: "other", Model: "m"}); err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("other without a base URL: %v", err)
	}
}
