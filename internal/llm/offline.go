package llm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// OfflineModel is the model name the offline provider reports.
const OfflineModel = "offline"

// OfflineLabel starts every built-in chat answer of the offline model.
const OfflineLabel = "[offline model]"

// StageChat is the stage of free chat; the offline model answers it (and
// the empty stage) out of the box.
const StageChat = "chat"

// Responder answers one stage deterministically for the offline model: the
// same request must always give the same text.
type Responder func(ctx context.Context, req Request) (string, error)

// Offline is the built-in model used when no real model is configured. It
// needs no network and answers deterministically: "chat" with a labelled
// echo of the last user message, other stages with the responders that
// other packages register with Handle.
type Offline struct {
	mu       sync.RWMutex         // protects handlers
	handlers map[string]Responder // by stage
}

var _ Provider = (*Offline)(nil)

// NewOffline returns an offline model that can answer only "chat".
func NewOffline() *Offline {
	return &Offline{handlers: make(map[string]Responder)}
}

// Handle registers fn as the answer to stage, replacing any earlier one
// (including the built-in chat answer).
func (o *Offline) Handle(stage string, fn Responder) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handlers[stage] = fn
}

// Name implements Provider.
func (o *Offline) Name() string { return TypeOffline }

// Offline implements Provider.
func (o *Offline) Offline() bool { return true }

// SupportsVision implements Provider.
func (o *Offline) SupportsVision() bool { return false }

// Generate implements Provider.
func (o *Offline) Generate(ctx context.Context, req Request) (Response, error) {
	return o.Stream(ctx, req, nil)
}

// Stream implements Provider. It delivers the answer in groups of a few
// words.
func (o *Offline) Stream(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error) {
	resp := Response{Model: OfflineModel, Offline: true}
	if err := ctx.Err(); err != nil {
		return resp, ctxError(err)
	}
	fn := o.responder(req.Stage)
	if fn == nil {
		e := apperr.New(apperr.KindUnavailable, "the offline model cannot do stage %q; configure a real model", req.Stage)
		return resp, e
	}
	text, err := fn(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return resp, ctxError(ctx.Err())
		}
		if apperr.As(err) != nil {
			return resp, err
		}
		return resp, apperr.New(apperr.KindUpstream, "offline model failed at stage %q", req.Stage).WithCause(err)
	}
	if onChunk == nil {
		resp.Content = text
		return resp, nil
	}
	var sent strings.Builder
	for _, ch := range splitWords(text, 3) {
		if err := ctx.Err(); err != nil {
			resp.Content = sent.String()
			return resp, ctxError(err)
		}
		sent.WriteString(ch)
		if err := onChunk(Chunk{Content: ch}); err != nil {
			resp.Content = sent.String()
			return resp, err
		}
	}
	resp.Content = sent.String()
	return resp, nil
}

// responder returns the responder for stage, or nil.
func (o *Offline) responder(stage string) Responder {
	o.mu.RLock()
	fn := o.handlers[stage]
	o.mu.RUnlock()
	if fn == nil && (stage == StageChat || stage == "") {
		return offlineChat
	}
	return fn
}

// OfflineLabelZH is OfflineLabel in Chinese, for answers to Chinese messages.
const OfflineLabelZH = "[离线模型]"

// offlineChat is the built-in chat answer: a labelled echo of the last user
// message, in Chinese when the message is mostly Chinese.
func offlineChat(_ context.Context, req Request) (string, error) {
	said := strings.Join(strings.Fields(lastUserContent(req.Messages)), " ")
	if said == "" {
		return OfflineLabel + " No AI model is configured, so this answer comes from the built-in offline model. Ask me something and I will repeat it back.", nil
	}
	han, zhWords := countWords(said)
	words := len(strings.Fields(said))
	if utf8.RuneCountInString(said) > 200 {
		said = string([]rune(said)[:200]) + "…"
	}
	if han > 0 && han*10 >= (han+latinLetters(said))*3 {
		return fmt.Sprintf("%s 当前没有配置 AI 模型，这条回复来自内置的离线模型。你说了（%d 个字）：“%s”",
			OfflineLabelZH, zhWords, said), nil
	}
	return fmt.Sprintf("%s No AI model is configured, so this answer comes from the built-in offline model. "+
		"You said (%d words): %q", OfflineLabel, words, said), nil
}

// countWords returns the Chinese characters of s and its words, where a
// Chinese character counts as one word and other words are separated by
// spaces or Chinese characters ("用 Redis 做缓存" is 5 + 1 = 6 words).
func countWords(s string) (han, words int) {
	inWord := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			words++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
			inWord = false
		}
	}
	return han, words
}

// latinLetters counts the letters of s that are not Chinese characters.
func latinLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return n
}

// splitWords cuts text into chunks of n words each, keeping the spaces so
// that the chunks concatenate back to text.
func splitWords(text string, n int) []string {
	var chunks []string
	words, start := 0, 0
	inWord := false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t'
		if !space && !inWord {
			if words == n {
				chunks = append(chunks, text[start:i])
				start, words = i, 0
			}
			words++
		}
		inWord = !space
	}
	if start < len(text) {
		chunks = append(chunks, text[start:])
	}
	return chunks
}

// ctxError wraps the caller's context error: a deadline is a retryable
// timeout, a cancellation stays context.Canceled.
func ctxError(err error) error {
	return classify(failure{provider: TypeOffline, ctxErr: err})
}
