// Package llm is the one interface the application uses to talk to a chat
// model, blocking or streaming: an OpenAI-compatible HTTP API (OpenAI,
// DeepSeek, Doubao, Spark, Qwen compatible mode, vLLM, Ollama's /v1), the
// native Ollama API, or a built-in offline model that answers deterministically
// without any network.
//
// Every error a Provider returns is an *apperr.Error classified for the
// retry, single-flight and guard layers (timeout, unavailable, overloaded,
// upstream; retryable or not), except the caller's own cancellation, which is
// returned wrapping context.Canceled. Error messages never contain the API key.
package llm

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

// Role is the author of a message.
type Role string

// The roles a message may have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Image is an image attached to a message, sent to vision models.
type Image struct {
	MIME string // e.g. "image/jpeg"
	Data []byte
}

// Message is one turn of the conversation sent to the model.
type Message struct {
	Role    Role
	Content string
	Images  []Image
}

// Request is one chat completion call.
type Request struct {
	// Stage names the purpose of the call, e.g. "interview-evaluation" or
	// "chat". The offline provider dispatches on it; the others ignore it.
	Stage string
	// Model overrides the provider's default model when set.
	Model    string
	Messages []Message
	// Temperature overrides the provider's default when set. When neither is
	// set, the client library sends temperature 0.
	Temperature *float64
	// MaxTokens overrides the provider's default when positive.
	MaxTokens int
	// JSON asks for one JSON object (response_format json_object, or Ollama's
	// format "json").
	JSON bool
}

// Response is the model's answer.
type Response struct {
	Content   string
	Reasoning string // reasoning ("thinking") text, when the server sends it separately
	Model     string // the model that was asked
	// Token usage as reported by the server; zero when it reports none.
	PromptTokens     int
	CompletionTokens int
	// Offline is true when the built-in offline model answered.
	Offline bool
}

// Chunk is one piece of a streamed answer. Exactly one of the fields is
// usually set.
type Chunk struct {
	Content   string
	Reasoning string
}

// Provider is a chat model.
type Provider interface {
	// Name returns the provider type: "openai" (any OpenAI-compatible API),
	// "ollama" or "offline".
	Name() string
	// Offline reports whether this is the built-in offline model, which the
	// UI and API label as such.
	Offline() bool
	// SupportsVision reports whether messages may carry images.
	SupportsVision() bool
	// Generate returns the whole answer at once.
	Generate(ctx context.Context, req Request) (Response, error)
	// Stream calls onChunk for each chunk, in order; an error returned by
	// onChunk aborts the call and is returned as is. The Response holds the
	// whole text, and on error the partial text received so far.
	Stream(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error)
}

// Provider types accepted by Config.Type.
const (
	TypeOpenAI   = "openai"
	TypeDeepSeek = "deepseek"
	TypeDoubao   = "doubao"
	TypeSpark    = "spark"
	TypeQwen     = "qwen"
	TypeZhipu    = "zhipu"
	TypeMoonshot = "moonshot"
	TypeOther    = "other"
	TypeOllama   = "ollama"
	TypeOffline  = "offline"
)

// Default base URLs.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultOllamaBaseURL = "http://127.0.0.1:11434"
)

// DefaultBaseURLs are the API roots of the vendors whose type names them, so
// that a configuration of one of these types may leave its base URL empty.
// Types without an entry (other) need one.
var DefaultBaseURLs = map[string]string{
	TypeOpenAI:   DefaultOpenAIBaseURL,
	TypeDeepSeek: "https://api.deepseek.com/v1",
	TypeDoubao:   "https://ark.cn-beijing.volces.com/api/v3",
	TypeSpark:    "https://spark-api-open.xf-yun.com/v1",
	TypeQwen:     "https://dashscope.aliyuncs.com/compatible-mode/v1",
	TypeZhipu:    "https://open.bigmodel.cn/api/paas/v4",
	TypeMoonshot: "https://api.moonshot.cn/v1",
	TypeOllama:   DefaultOllamaBaseURL,
}

// DefaultBaseURL returns the API root of type typ, "" when it has none.
func DefaultBaseURL(typ string) string { return DefaultBaseURLs[normalizeType(typ)] }

// Config selects and configures a provider.
type Config struct {
	// Type is one of openai, deepseek, doubao, spark, qwen, zhipu, moonshot,
	// other (all spoken to through the OpenAI-compatible API), ollama
	// (native API) or offline.
	Type string
	// BaseURL is the API root, e.g. "https://api.deepseek.com/v1". Empty
	// means the type's entry in DefaultBaseURLs; required for other.
	BaseURL string
	// APIKey is sent as a bearer token; it may be empty for local servers.
	APIKey string
	// APISecret completes the key where the vendor's API wants both: Spark
	// (iFlytek) takes "APIKey:APISecret" as its bearer token. Other types
	// do not send it.
	APISecret string
	// Organization and Project are sent as the OpenAI-Organization and
	// OpenAI-Project headers when set (OpenAI-compatible types).
	Organization string
	Project      string
	// Model is the default model; required except for offline.
	Model string
	// MaxTokens is the default completion limit; 0 leaves it to the server.
	MaxTokens int
	// Temperature is the default sampling temperature.
	Temperature *float64
	// Vision says the model accepts images.
	Vision bool
	// HTTPClient is used for requests; nil means a client with a transport
	// shared by the providers (http.DefaultTransport's settings, idle
	// connections kept for up to 256 calls at once per host). Its Timeout,
	// if any, applies to whole calls.
	HTTPClient *http.Client
}

// New returns the provider cfg describes, or an *apperr.Error (KindInvalid)
// naming the field to fix.
func New(cfg Config) (Provider, error) {
	switch normalizeType(cfg.Type) {
	case TypeOpenAI, TypeDeepSeek, TypeDoubao, TypeSpark, TypeQwen, TypeZhipu, TypeMoonshot, TypeOther:
		return NewOpenAI(cfg)
	case TypeOllama:
		return NewOllama(cfg)
	case TypeOffline:
		return NewOffline(), nil
	case "":
		return nil, apperr.Invalid("llm: config type is empty; want one of %s", typeList)
	default:
		return nil, apperr.Invalid("llm: unknown config type %q; want one of %s", cfg.Type, typeList)
	}
}

const typeList = "openai, deepseek, doubao, spark, qwen, zhipu, moonshot, other, ollama, offline"

func normalizeType(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// validateBaseURL checks that raw is an absolute http(s) URL.
func validateBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apperr.Invalid("llm: config base URL %q is not an absolute http(s) URL", redact.URL(raw))
	}
	return nil
}

// lastUserContent returns the content of the last user message.
func lastUserContent(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// hasImages reports whether any message carries an image.
func hasImages(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}
