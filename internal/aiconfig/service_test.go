package aiconfig

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

func ptr[T any](v T) *T { return &v }

func TestCRUD(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := NewService(NewGormStore(gdb), llm.NewOffline())
		p, err := svc.Create(ctx, "admin", Input{AIName: ptr("deepseek"), AIType: ptr("DeepSeek"), APIKey: ptr("sk-secret"),
			APIURL: ptr("https://api.deepseek.com/v1"), ModelName: ptr("deepseek-chat"), Temperature: ptr(0.3), SystemPrompt: ptr("be brief")})
		if err != nil {
			t.Fatal(err)
		}
		if p.Type != "deepseek" || !p.IsEnabled {
			t.Fatalf("created = %+v", p)
		}
		_, err = svc.Create(ctx, "admin", Input{AIName: ptr("deepseek"), AIType: ptr("offline")})
		if !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("duplicate name: %v, want conflict", err)
		}
		// An update echoing the masked key keeps the stored one.
		p, err = svc.Update(ctx, Input{ID: p.ID, APIKey: ptr(MaskedKey), MaxTokens: ptr(256)})
		if err != nil || p.APIKey != "sk-secret" || p.MaxTokens != 256 || p.SystemPrompt != "be brief" {
			t.Fatalf("update = %+v, %v", p, err)
		}
		if v := ViewOf(p); v.APIKey != MaskedKey || !v.APIKeySet {
			t.Fatalf("view = %+v, want the key masked", v)
		}
		if _, err := svc.Create(ctx, "admin", Input{AIName: ptr("local"), AIType: ptr("offline")}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SetEnabled(ctx, p.ID, false); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Page(ctx, page.Request{Current: 1, Size: 10}, Filter{Enabled: ptr(false)})
		if err != nil || res.Total != 1 || res.Records[0].Name != "deepseek" {
			t.Fatalf("disabled page = %+v, %v", res, err)
		}
		res, err = svc.Page(ctx, page.Request{Current: 1, Size: 10}, Filter{Type: "offline"})
		if err != nil || res.Total != 1 {
			t.Fatalf("offline page = %+v, %v", res, err)
		}
		opts, err := svc.Options(ctx)
		if err != nil || len(opts) != 2 || opts[0].ID != DefaultID || !opts[0].Offline || opts[1].AIName != "local" {
			t.Fatalf("options = %+v, %v", opts, err)
		}
		if _, err := svc.Resolve(ctx, p.ID); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("resolve disabled: %v, want not found", err)
		}
		if err := svc.Delete(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, p.ID); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("second delete: %v, want not found", err)
		}
	})
}

func TestValidate(t *testing.T) {
	svc := NewService(NewGormStore(dbtest.SQLite(t)), llm.NewOffline())
	tests := []struct {
		name string
		in   Input
	}{
		{"no name", Input{AIType: ptr("offline")}},
		{"unknown type", Input{AIName: ptr("x"), AIType: ptr("gpt")}},
		{"no model", Input{AIName: ptr("x"), AIType: ptr("openai")}},
		{"no url for other", Input{AIName: ptr("x"), AIType: ptr("other"), ModelName: ptr("m")}},
		{"bad url", Input{AIName: ptr("x"), AIType: ptr("other"), ModelName: ptr("m"), APIURL: ptr("ftp://x")}},
		{"temperature", Input{AIName: ptr("x"), AIType: ptr("offline"), Temperature: ptr(3.0)}},
		{"max tokens", Input{AIName: ptr("x"), AIType: ptr("offline"), MaxTokens: ptr(-1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := svc.Create(context.Background(), "admin", tt.in); !apperr.Is(err, apperr.KindInvalid) {
				t.Fatalf("err = %v, want invalid", err)
			}
		})
	}
}

// A stored configuration resolves to a provider that talks to its URL with
// its model and key.
func TestResolveTalksToConfiguredModel(t *testing.T) {
	ctx := context.Background()
	fake := llmtest.NewServer(t)
	svc := NewService(NewGormStore(dbtest.SQLite(t)), llm.NewOffline())
	p, err := svc.Create(ctx, "admin", Input{AIName: ptr("vllm"), AIType: ptr("other"), APIURL: ptr(fake.URL()),
		ModelName: ptr("qwen2.5"), APIKey: ptr("sk-row")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := svc.Resolve(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Provider.Generate(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	got := fake.Last(t)
	if got.Model != "qwen2.5" || got.Header.Get("Authorization") != "Bearer sk-row" {
		t.Fatalf("request model %q auth %q", got.Model, got.Header.Get("Authorization"))
	}
	// With the offline model in application.yaml, the default is the first
	// enabled configuration that answers (issue 19), else the offline model.
	def, err := svc.Resolve(ctx, "")
	if err != nil || def.Provider.Offline() || def.ConfigID != DefaultID || def.Name != "Default (vllm)" || def.Model != "qwen2.5" {
		t.Fatalf("default = %+v, %v; want vllm", def, err)
	}
	if _, err := svc.SetEnabled(ctx, p.ID, false); err != nil {
		t.Fatal(err)
	}
	def, err = svc.Resolve(ctx, "")
	if err != nil || !def.Provider.Offline() {
		t.Fatalf("default with vllm disabled = %+v, %v; want the offline provider", def, err)
	}
}

// Secrets inside apiUrl are masked in views, and a masked URL sent back
// keeps the stored secrets (issue 16).
func TestURLSecrets(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := NewService(NewGormStore(gdb), llm.NewOffline())
		const stored = "https://u:planted-pass@gw.example.com/v1?key=planted-key&model=x"
		p, err := svc.Create(ctx, "admin", Input{AIName: ptr("gw"), AIType: ptr("other"), APIURL: ptr(stored), ModelName: ptr("m")})
		if err != nil {
			t.Fatal(err)
		}
		v := ViewOf(p)
		if want := "https://u:******@gw.example.com/v1?key=******&model=x"; v.APIURL != want {
			t.Fatalf("view apiUrl = %q, want %q", v.APIURL, want)
		}
		tests := []struct {
			name, sent, want string
			ok               bool
		}{
			{"masked URL sent back", v.APIURL, stored, true},
			{"path edited", "https://u:******@gw.example.com/v2?key=******&model=x", "https://u:planted-pass@gw.example.com/v2?key=planted-key&model=x", true},
			{"unknown masked secret", "https://gw.example.com/v1?token=******", "", false},
			{"new URL", "https://api.deepseek.com/v1", "https://api.deepseek.com/v1", true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before, err := svc.Get(ctx, p.ID)
				if err != nil {
					t.Fatal(err)
				}
				got, err := svc.Update(ctx, Input{ID: p.ID, APIURL: ptr(tt.sent)})
				if !tt.ok {
					if !apperr.Is(err, apperr.KindInvalid) {
						t.Fatalf("update = %v, want invalid", err)
					}
					if after, _ := svc.Get(ctx, p.ID); after.APIURL != before.APIURL {
						t.Fatalf("rejected update changed apiUrl to %q", after.APIURL)
					}
					return
				}
				if err != nil || got.APIURL != tt.want {
					t.Fatalf("update = %q, %v; want %q", got.APIURL, err, tt.want)
				}
				if stored, _ := svc.Get(ctx, p.ID); stored.APIURL != tt.want {
					t.Fatalf("stored apiUrl = %q, want %q", stored.APIURL, tt.want)
				}
			})
		}
	})
}
