package llm

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Client is a Provider backed by a langchaingo model: an OpenAI-compatible
// API (NewOpenAI) or the native Ollama API (NewOllama).
type Client struct {
	name         string // "openai" or "ollama"
	model        llms.Model
	defaultModel string
	maxTokens    int
	temperature  *float64
	vision       bool
	apiKey       string // only to redact it from error messages
	apiSecret    string // likewise
	baseURL      string // likewise: its secrets are redacted from messages

	// legacyMaxTokens sends max_tokens instead of max_completion_tokens,
	// which most OpenAI-compatible servers other than OpenAI expect.
	legacyMaxTokens bool
	// reasoning streams reasoning_content deltas (DeepSeek style) separately.
	reasoning bool
	// imagePart converts an image to the part the library sends.
	imagePart func(Image) llms.ContentPart
}

var _ Provider = (*Client)(nil)

// NewOpenAI returns a client for an OpenAI-compatible chat completions API.
// cfg.Type must be one of openai, deepseek, doubao, spark, qwen, zhipu,
// moonshot or other (empty means openai); BaseURL defaults to the type's
// entry in DefaultBaseURLs.
func NewOpenAI(cfg Config) (*Client, error) {
	typ := normalizeType(cfg.Type)
	switch typ {
	case "":
		typ = TypeOpenAI
	case TypeOpenAI, TypeDeepSeek, TypeDoubao, TypeSpark, TypeQwen, TypeZhipu, TypeMoonshot, TypeOther:
	default:
		return nil, apperr.Invalid("llm: config type %q is not OpenAI-compatible", cfg.Type)
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		if base = DefaultBaseURLs[typ]; base == "" {
			return nil, apperr.Invalid("llm: config base URL is required for type %q", typ)
		}
	}
	if err := validateBaseURL(base); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, apperr.Invalid("llm: config model is required for type %q", typ)
	}

	// langchaingo refuses an empty token; keyless local servers (vLLM,
	// Ollama's /v1) get a placeholder that the transport strips again.
	token, keyless := cfg.APIKey, cfg.APIKey == ""
	if keyless {
		token = "unused"
	} else if typ == TypeSpark && cfg.APISecret != "" {
		token = cfg.APIKey + ":" + cfg.APISecret
	}
	headers := http.Header{}
	if o := strings.TrimSpace(cfg.Organization); o != "" {
		headers.Set("OpenAI-Organization", o)
	}
	if p := strings.TrimSpace(cfg.Project); p != "" {
		headers.Set("OpenAI-Project", p)
	}
	m, err := openai.New(
		// Every option is explicit: langchaingo otherwise falls back to
		// OPENAI_* environment variables.
		openai.WithOrganization(""),
		openai.WithToken(token),
		openai.WithBaseURL(base),
		openai.WithModel(cfg.Model),
		openai.WithHTTPClient(newHTTPClient(cfg.HTTPClient, keyless, headers)),
	)
	if err != nil {
		return nil, apperr.Invalid("llm: cannot create OpenAI-compatible client: %v", redactor(cfg.APIKey, base, cfg.APISecret)(err.Error()))
	}
	return &Client{
		name:            TypeOpenAI,
		model:           m,
		defaultModel:    cfg.Model,
		maxTokens:       cfg.MaxTokens,
		temperature:     cfg.Temperature,
		vision:          cfg.Vision,
		apiKey:          cfg.APIKey,
		apiSecret:       cfg.APISecret,
		baseURL:         base,
		legacyMaxTokens: typ != TypeOpenAI,
		reasoning:       true,
		imagePart: func(img Image) llms.ContentPart {
			return llms.ImageURLContent{URL: dataURL(img)}
		},
	}, nil
}

// NewOllama returns a client for the native Ollama API. BaseURL defaults to
// DefaultOllamaBaseURL; Model is required.
func NewOllama(cfg Config) (*Client, error) {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultOllamaBaseURL
	}
	// Validate here: ollama.WithServerURL calls log.Fatal on a bad URL.
	if err := validateBaseURL(base); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, apperr.Invalid("llm: config model is required for type %q", TypeOllama)
	}
	m, err := ollama.New(
		ollama.WithServerURL(base),
		ollama.WithModel(cfg.Model),
		ollama.WithHTTPClient(newHTTPClient(cfg.HTTPClient, false, nil)),
	)
	if err != nil {
		return nil, apperr.Invalid("llm: cannot create Ollama client: %v", redactor(cfg.APIKey, base)(err.Error()))
	}
	return &Client{
		name:         TypeOllama,
		model:        m,
		defaultModel: cfg.Model,
		maxTokens:    cfg.MaxTokens,
		temperature:  cfg.Temperature,
		vision:       cfg.Vision,
		apiKey:       cfg.APIKey,
		baseURL:      base,
		imagePart: func(img Image) llms.ContentPart {
			return llms.BinaryContent{MIMEType: img.MIME, Data: img.Data}
		},
	}, nil
}

// Name implements Provider.
func (c *Client) Name() string { return c.name }

// Offline implements Provider.
func (c *Client) Offline() bool { return false }

// SupportsVision implements Provider.
func (c *Client) SupportsVision() bool { return c.vision }

// Generate implements Provider.
func (c *Client) Generate(ctx context.Context, req Request) (Response, error) {
	return c.call(ctx, req, nil)
}

// Stream implements Provider.
func (c *Client) Stream(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error) {
	if onChunk == nil {
		onChunk = func(Chunk) error { return nil }
	}
	return c.call(ctx, req, onChunk)
}

// call performs one request, streaming when onChunk is not nil.
func (c *Client) call(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, apperr.Invalid("llm: request has no messages")
	}
	if !c.vision && hasImages(req.Messages) {
		return Response{}, apperr.Invalid("llm: the configured model does not accept images")
	}
	model := req.Model
	if model == "" {
		model = c.defaultModel
	}
	resp := Response{Model: model}

	opts := []llms.CallOption{llms.WithModel(model)}
	if t := req.Temperature; t != nil {
		opts = append(opts, llms.WithTemperature(*t))
	} else if t := c.temperature; t != nil {
		opts = append(opts, llms.WithTemperature(*t))
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.maxTokens
	}
	if maxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(maxTokens))
		if c.legacyMaxTokens {
			opts = append(opts, openai.WithLegacyMaxTokensField())
		}
	}
	if req.JSON {
		opts = append(opts, llms.WithJSONMode())
	}

	// The library returns no text when streaming fails, so keep our own.
	// The streaming funcs run one at a time, in order, and finish before
	// GenerateContent returns.
	var content, reasoning strings.Builder
	var chunkErr error
	emit := func(ch Chunk) error {
		if ch.Content == "" && ch.Reasoning == "" {
			return nil
		}
		content.WriteString(ch.Content)
		reasoning.WriteString(ch.Reasoning)
		if err := onChunk(ch); err != nil {
			chunkErr = err
			return err
		}
		return nil
	}
	switch {
	case onChunk == nil:
	case c.reasoning:
		opts = append(opts, llms.WithStreamingReasoningFunc(func(_ context.Context, r, ch []byte) error {
			return emit(Chunk{Reasoning: string(r), Content: string(ch)})
		}))
	default:
		opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, ch []byte) error {
			return emit(Chunk{Content: string(ch)})
		}))
	}

	callCtx, ex := withExchange(ctx, req.Stage)
	out, err := c.model.GenerateContent(callCtx, c.messages(req.Messages), opts...)
	if chunkErr != nil {
		resp.Content, resp.Reasoning = content.String(), reasoning.String()
		return resp, chunkErr
	}

	status, body, transportErr := ex.snapshot()
	f := failure{
		provider:     c.name,
		ctxErr:       ctx.Err(),
		status:       status,
		body:         body,
		transportErr: transportErr,
		err:          err,
		apiKey:       c.apiKey,
		apiSecret:    c.apiSecret,
		baseURL:      c.baseURL,
	}
	switch {
	case err != nil:
	case out == nil || len(out.Choices) == 0:
		f.err = errors.New("response has no choices")
	default:
		choice := out.Choices[0]
		resp.Content, resp.Reasoning = choice.Content, choice.ReasoningContent
		resp.PromptTokens = intOf(choice.GenerationInfo["PromptTokens"])
		resp.CompletionTokens = intOf(choice.GenerationInfo["CompletionTokens"])
		f.finishReason = choice.StopReason
	}
	if err := classify(f); err != nil {
		if resp.Content == "" && resp.Reasoning == "" {
			resp.Content, resp.Reasoning = content.String(), reasoning.String()
		}
		return resp, err
	}
	return resp, nil
}

// messages converts messages to the library's form.
func (c *Client) messages(msgs []Message) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, m := range msgs {
		mc := llms.MessageContent{Role: chatRole(m.Role)}
		mc.Parts = append(mc.Parts, llms.TextContent{Text: m.Content})
		for _, img := range m.Images {
			mc.Parts = append(mc.Parts, c.imagePart(img))
		}
		out = append(out, mc)
	}
	return out
}

func chatRole(r Role) llms.ChatMessageType {
	switch r {
	case RoleSystem:
		return llms.ChatMessageTypeSystem
	case RoleAssistant:
		return llms.ChatMessageTypeAI
	default:
		return llms.ChatMessageTypeHuman
	}
}

// dataURL encodes img as a data: URL, the form OpenAI's image_url accepts.
func dataURL(img Image) string {
	mime := img.MIME
	if mime == "" {
		mime = "image/jpeg"
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}
