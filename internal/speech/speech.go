// Package speech is real-time speech-to-text: a WebSocket session that
// streams PCM to a recogniser and sends the growing transcript back, a
// transcript assembler that merges segmented partial results, and the
// whole-recording transcription endpoint. The recognisers themselves live in
// subpackages (pocketsphinx, openai, xunfei, xunfeiast) behind the small Recognizer
// interface declared here.
package speech

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Audio format of every stream: PCM, signed 16-bit little-endian, 16 kHz,
// mono (api.md).
const (
	SampleRate     = 16000
	BytesPerSample = 2
	// BytesPerSecond is one second of audio.
	BytesPerSecond = SampleRate * BytesPerSample
)

// Range is an inclusive range of segment ids.
type Range struct{ From, To int }

// Result is one recogniser update of one segment of the transcript.
//
// Segment ids follow the audio: a later segment has a larger id. A result
// replaces the text of its segment; Final says it will not change again.
// Replace (iFlytek "rpl" with rg [a,b]) first removes the segments a..b.
// Dedup asks the assembler to drop the words at the start of Text that
// repeat the end of the preceding text, for providers that resend audio
// they already transcribed.
type Result struct {
	Segment int
	Text    string
	Final   bool
	Replace *Range
	Dedup   bool
}

// Recognizer is a streaming speech recogniser.
type Recognizer interface {
	// Name identifies the provider ("pocketsphinx", "openai", "xunfei",
	// "xunfei-ast").
	Name() string
	// Languages lists the languages it recognises as BCP 47 tags from
	// Supported languages ("en", "zh-CN"); empty when it recognises none.
	Languages() []string
	// Start begins recognising one stream. Results are passed to emit,
	// from any goroutine but never concurrently and never after the
	// stream's Close returned. ctx bounds the whole stream.
	Start(ctx context.Context, emit func(Result)) (Stream, error)
}

// Stream is one recognition in progress. Write and Close are called from
// one goroutine.
type Stream interface {
	// Write feeds PCM s16le 16 kHz mono audio (any length, even odd).
	Write(pcm []byte) error
	// Close ends the audio, emits the last results and releases the
	// stream. It must be called once, also after an error.
	Close() error
}

// ErrBusy is returned by Start when every recogniser is in use.
var ErrBusy = errors.New("every speech recogniser is busy")

// ErrUserBusy is returned by Start when the user of the context already
// runs as many recognitions as a user may.
var ErrUserBusy = errors.New("this user already runs as many speech recognitions as allowed")

// LimitError is a refusal by a limit: Err is ErrBusy or ErrUserBusy, Limit
// the number allowed.
type LimitError struct {
	Err   error
	Limit int
}

func (e *LimitError) Error() string { return fmt.Sprintf("%v (limit %d)", e.Err, e.Limit) }

// Unwrap returns Err.
func (e *LimitError) Unwrap() error { return e.Err }

// Unavailable is a Recognizer for a server without any configured
// provider: every Start fails with reason.
type Unavailable struct{ Reason string }

// Name implements Recognizer.
func (u Unavailable) Name() string { return "none" }

// Languages implements Recognizer: none.
func (u Unavailable) Languages() []string { return []string{} }

// Start implements Recognizer.
func (u Unavailable) Start(context.Context, func(Result)) (Stream, error) {
	return nil, apperr.New(apperr.KindUnavailable, "speech recognition is unavailable: %s", u.Reason)
}

// Language tags a Recognizer reports and start_transcription accepts.
const (
	LangEnglish = "en"
	LangChinese = "zh-CN"
)

// NormalizeLanguage maps a client's language tag to LangEnglish or
// LangChinese ("en-US" → "en", "zh", "zh-Hans", "cmn" → "zh-CN"), case
// blind; ok is false for any other language.
func NormalizeLanguage(tag string) (lang string, ok bool) {
	t := strings.ToLower(strings.TrimSpace(tag))
	base, _, _ := strings.Cut(strings.ReplaceAll(t, "_", "-"), "-")
	switch base {
	case "en":
		return LangEnglish, true
	case "zh", "cmn":
		return LangChinese, true
	}
	return "", false
}

// Supports reports whether rec recognises lang (a normalised tag).
func Supports(rec Recognizer, lang string) bool {
	return slices.Contains(rec.Languages(), lang)
}
