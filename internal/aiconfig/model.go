// Package aiconfig manages model provider configurations ("ai-properties"):
// rows an admin creates to point chat and agents at OpenAI-compatible,
// Ollama or offline models. API keys are write-only: the API masks them.
// It also resolves a configuration to a ready llm.Provider.
package aiconfig

import (
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

// Types a configuration may have (api.md).
// Every type but other and offline has a default apiUrl
// (llm.DefaultBaseURLs).
var Types = []string{"openai", "deepseek", "doubao", "spark", "qwen", "zhipu", "moonshot", "ollama", "offline", "other"}

// Property is one provider configuration.
type Property struct {
	ID             string
	Name           string
	Type           string
	APIKey         string
	APISecret      string // sent where the vendor wants it (llm.Config.APISecret)
	ProjectID      string // OpenAI-Project header
	OrganizationID string // OpenAI-Organization header
	APIURL         string
	ModelName      string
	MaxTokens      int
	Temperature    *float64
	SystemPrompt   string
	SupportsVision bool
	IsEnabled      bool
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Input creates or updates a configuration. On update, nil fields keep
// their value, an empty or masked apiKey or apiSecret keeps the stored one
// (set it to a single space to clear a secret), and the
// masked secrets of an apiUrl (as the API shows it) keep the stored ones.
type Input struct {
	ID             string   `json:"id"`
	AIName         *string  `json:"aiName"`
	AIType         *string  `json:"aiType"`
	APIKey         *string  `json:"apiKey"`
	APISecret      *string  `json:"apiSecret"`
	ProjectID      *string  `json:"projectId"`
	OrganizationID *string  `json:"organizationId"`
	APIURL         *string  `json:"apiUrl"`
	ModelName      *string  `json:"modelName"`
	MaxTokens      *int     `json:"maxTokens"`
	Temperature    *float64 `json:"temperature"`
	SystemPrompt   *string  `json:"systemPrompt"`
	SupportsVision *bool    `json:"supportsVision"`
	IsEnabled      *bool    `json:"isEnabled"`
}

// Filter narrows a page of configurations.
type Filter struct {
	Name    string
	Type    string
	Enabled *bool
}

// apply copies the set fields of in onto p. It fails when apiUrl keeps a
// masked secret that p does not hold.
func (in Input) apply(p *Property) error {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = strings.TrimSpace(*src)
		}
	}
	set(&p.Name, in.AIName)
	set(&p.Type, in.AIType)
	p.Type = strings.ToLower(p.Type)
	if in.APIURL != nil {
		u, err := redact.Restore(strings.TrimSpace(*in.APIURL), p.APIURL)
		if err != nil {
			return apperr.Invalid("apiUrl: %v", err)
		}
		p.APIURL = u
	}
	set(&p.ModelName, in.ModelName)
	if in.APIKey != nil && *in.APIKey != "" && *in.APIKey != MaskedKey {
		p.APIKey = strings.TrimSpace(*in.APIKey)
	}
	if in.APISecret != nil && *in.APISecret != "" && *in.APISecret != MaskedKey {
		p.APISecret = strings.TrimSpace(*in.APISecret)
	}
	set(&p.ProjectID, in.ProjectID)
	set(&p.OrganizationID, in.OrganizationID)
	if in.MaxTokens != nil {
		p.MaxTokens = *in.MaxTokens
	}
	if in.Temperature != nil {
		t := *in.Temperature
		p.Temperature = &t
	}
	if in.SystemPrompt != nil {
		p.SystemPrompt = *in.SystemPrompt
	}
	if in.SupportsVision != nil {
		p.SupportsVision = *in.SupportsVision
	}
	if in.IsEnabled != nil {
		p.IsEnabled = *in.IsEnabled
	}
	return nil
}

// Validate checks p and says what to fix.
func (p Property) Validate() error {
	switch {
	case p.Name == "":
		return apperr.Invalid("aiName is required")
	case utf8.RuneCountInString(p.Name) > 64:
		return apperr.Invalid("aiName must be at most 64 characters")
	case !slices.Contains(Types, p.Type):
		return apperr.Invalid("aiType must be one of %s, not %q", strings.Join(Types, ", "), p.Type)
	case len(p.APIKey) > 512:
		return apperr.Invalid("apiKey must be at most 512 characters")
	case len(p.APISecret) > 512:
		return apperr.Invalid("apiSecret must be at most 512 characters")
	case len(p.ProjectID) > 255:
		return apperr.Invalid("projectId must be at most 255 characters")
	case len(p.OrganizationID) > 255:
		return apperr.Invalid("organizationId must be at most 255 characters")
	case len(p.APIURL) > 512:
		return apperr.Invalid("apiUrl must be at most 512 characters")
	case utf8.RuneCountInString(p.ModelName) > 128:
		return apperr.Invalid("modelName must be at most 128 characters")
	case p.MaxTokens < 0 || p.MaxTokens > 1_000_000:
		return apperr.Invalid("maxTokens must be between 0 and 1000000")
	case p.Temperature != nil && (*p.Temperature < 0 || *p.Temperature > 2):
		return apperr.Invalid("temperature must be between 0 and 2")
	case utf8.RuneCountInString(p.SystemPrompt) > 20000:
		return apperr.Invalid("systemPrompt must be at most 20000 characters")
	}
	if p.Type == "offline" {
		return nil
	}
	if p.ModelName == "" {
		return apperr.Invalid("modelName is required for aiType %s", p.Type)
	}
	if p.APIURL != "" {
		u, err := url.Parse(p.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return apperr.Invalid("apiUrl must be an http(s) URL such as https://api.deepseek.com/v1")
		}
	} else if llm.DefaultBaseURL(p.Type) == "" {
		return apperr.Invalid("apiUrl is required for aiType %s", p.Type)
	}
	return nil
}

// MaskedKey is what the API shows instead of a stored key.
const MaskedKey = "******"

// View is a configuration as the API shows it: the key, the secret and the
// secrets inside the URL masked. DefaultAPIURL is the URL used when apiUrl
// is empty.
type View struct {
	ID             string   `json:"id"`
	AIName         string   `json:"aiName"`
	AIType         string   `json:"aiType"`
	APIKey         string   `json:"apiKey"`
	APIKeySet      bool     `json:"apiKeySet"`
	APISecret      string   `json:"apiSecret"`
	APISecretSet   bool     `json:"apiSecretSet"`
	ProjectID      string   `json:"projectId"`
	OrganizationID string   `json:"organizationId"`
	APIURL         string   `json:"apiUrl"`
	DefaultAPIURL  string   `json:"defaultApiUrl"`
	ModelName      string   `json:"modelName"`
	MaxTokens      int      `json:"maxTokens"`
	Temperature    *float64 `json:"temperature"`
	SystemPrompt   string   `json:"systemPrompt"`
	SupportsVision bool     `json:"supportsVision"`
	IsEnabled      bool     `json:"isEnabled"`
	Offline        bool     `json:"offline"`
	CreateTime     string   `json:"createTime"`
	UpdateTime     string   `json:"updateTime"`
}

// ViewOf converts p for the API, masking the key and the URL's secrets
// (redact.URL).
func ViewOf(p Property) View {
	v := View{ID: p.ID, AIName: p.Name, AIType: p.Type, APIKeySet: p.APIKey != "", APISecretSet: p.APISecret != "",
		ProjectID: p.ProjectID, OrganizationID: p.OrganizationID, APIURL: redact.URL(p.APIURL),
		DefaultAPIURL: llm.DefaultBaseURL(p.Type),
		ModelName:     p.ModelName, MaxTokens: p.MaxTokens, Temperature: p.Temperature, SystemPrompt: p.SystemPrompt,
		SupportsVision: p.SupportsVision, IsEnabled: p.IsEnabled, Offline: p.Type == "offline"}
	if v.APIKeySet {
		v.APIKey = MaskedKey
	}
	if v.APISecretSet {
		v.APISecret = MaskedKey
	}
	if !p.CreatedAt.IsZero() {
		v.CreateTime = p.CreatedAt.UTC().Format(time.RFC3339Nano)
		v.UpdateTime = p.UpdatedAt.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// Option is an entry of the chat model picker.
type Option struct {
	ID      string `json:"id"`
	AIName  string `json:"aiName"`
	AIType  string `json:"aiType"`
	Offline bool   `json:"offline"`
}
