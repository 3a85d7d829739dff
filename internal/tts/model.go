// Package tts is long-text speech synthesis as tasks: a text of up to
// 100,000 characters is split at sentence boundaries, its segments are
// synthesised by a provider with bounded concurrency, and the results are
// joined in order into one WAV (or MP3) file that clients download with
// Range support. Progress is persisted, so any instance answers for any task;
// identical requests share one synthesis across the cluster through the
// single-flight group, and tasks left running by a dead instance are resumed
// by another one when their lease expires.
//
// The package imports no provider: providers live in subpackages
// (tts/espeak, tts/openai, tts/xunfei) and implement Synthesizer.
package tts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Status is the state of a task; the values are those of api.md (and of the
// iFlytek task API).
type Status int

// The task states.
const (
	StatusCreated Status = 1 // queued, not yet claimed by a worker
	StatusRunning Status = 3 // claimed: segments are being synthesised
	StatusFailed  Status = 4 // ended without audio (errorMessage says why)
	StatusDone    Status = 5 // the audio is ready
)

// Terminal reports whether s is an end state.
func (s Status) Terminal() bool { return s == StatusFailed || s == StatusDone }

// Encodings of the finished audio.
const (
	EncodingWAV = "wav"
	EncodingMP3 = "mp3"
)

// MaxTextChars bounds the text of one task (api.md).
const MaxTextChars = 100_000

// Defaults of the optional request fields.
const (
	DefaultSpeed      = 50
	DefaultVolume     = 50
	DefaultPitch      = 50
	DefaultSampleRate = 16000
)

// SampleRates are the accepted output sample rates.
var SampleRates = []int{8000, 16000, 22050, 24000, 44100, 48000}

// CancelledMessage is the error message of a task cancelled by its owner.
const CancelledMessage = "cancelled"

// Params are the voice parameters of a synthesis. Speed, Volume and Pitch are
// 0..100 with 50 the provider's normal; providers map them to their own
// scales.
type Params struct {
	Voice      string `json:"vcn,omitempty"`      // provider voice name; "" = by language
	Language   string `json:"language,omitempty"` // "zh", "en" or "" (detected per segment)
	Speed      int    `json:"speed"`
	Volume     int    `json:"volume"`
	Pitch      int    `json:"pitch"`
	Encoding   string `json:"audioEncoding"` // wav or mp3
	SampleRate int    `json:"sampleRate"`
}

// Synthesizer turns one segment of text into speech. Implementations return
// a complete WAV file (RIFF, PCM); the task joins and resamples segments
// itself, so the WAV may have any PCM sample rate and channel count.
// Errors marked retryable (apperr) or plain errors are retried; an
// *apperr.Error of KindInvalid is not.
type Synthesizer interface {
	Synthesize(ctx context.Context, text string, p Params) ([]byte, error)
}

// CreateRequest is the body of POST /tasks and POST /synthesize. Pointer
// fields are optional.
type CreateRequest struct {
	Text          string  `json:"text"`
	Vcn           *string `json:"vcn"`
	Language      *string `json:"language"`
	Speed         *int    `json:"speed"`
	Volume        *int    `json:"volume"`
	Pitch         *int    `json:"pitch"`
	AudioEncoding *string `json:"audioEncoding"`
	SampleRate    *int    `json:"sampleRate"`
}

var voicePattern = regexp.MustCompile(`^[A-Za-z0-9_+\-]{1,64}$`)

// Validate checks r and returns its parameters with defaults applied. Each
// error says which field to fix. mp3 reports whether MP3 can be produced.
func (r CreateRequest) Validate(mp3 bool) (Params, error) {
	p := Params{Speed: DefaultSpeed, Volume: DefaultVolume, Pitch: DefaultPitch,
		Encoding: EncodingWAV, SampleRate: DefaultSampleRate}
	if strings.TrimSpace(r.Text) == "" {
		return p, apperr.Invalid("text is required: send 1 to %d characters", MaxTextChars)
	}
	if !utf8.ValidString(r.Text) {
		return p, apperr.Invalid("text must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(r.Text); n > MaxTextChars {
		return p, apperr.New(apperr.KindTooLarge, "text has %d characters; at most %d are allowed", n, MaxTextChars)
	}
	if r.Vcn != nil && *r.Vcn != "" {
		if !voicePattern.MatchString(*r.Vcn) {
			return p, apperr.Invalid("vcn must be a voice name of 1 to 64 letters, digits, '_', '-' or '+', got %q", *r.Vcn)
		}
		p.Voice = *r.Vcn
	}
	if r.Language != nil {
		switch l := strings.ToLower(strings.TrimSpace(*r.Language)); l {
		case "", "auto":
		case "zh", "cmn", "zh-cn":
			p.Language = "zh"
		case "en", "en-us", "en-gb":
			p.Language = "en"
		default:
			return p, apperr.Invalid("language must be zh, en or auto, got %q", *r.Language)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		dst  *int
	}{{"speed", r.Speed, &p.Speed}, {"volume", r.Volume, &p.Volume}, {"pitch", r.Pitch, &p.Pitch}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > 100 {
			return p, apperr.Invalid("%s must be between 0 and 100 (50 is normal), got %d", f.name, *f.v)
		}
		*f.dst = *f.v
	}
	if r.AudioEncoding != nil && *r.AudioEncoding != "" {
		switch e := strings.ToLower(*r.AudioEncoding); e {
		case EncodingWAV:
		case EncodingMP3:
			if !mp3 {
				return p, apperr.Invalid("audioEncoding mp3 is unavailable on this server (lame is not installed); use wav")
			}
			p.Encoding = EncodingMP3
		default:
			return p, apperr.Invalid("audioEncoding must be wav or mp3, got %q", *r.AudioEncoding)
		}
	}
	if r.SampleRate != nil {
		ok := false
		for _, sr := range SampleRates {
			ok = ok || sr == *r.SampleRate
		}
		if !ok {
			return p, apperr.Invalid("sampleRate must be one of %v, got %d", SampleRates, *r.SampleRate)
		}
		p.SampleRate = *r.SampleRate
	}
	return p, nil
}

// Key identifies the audio of text synthesised with p when split at
// maxChars: the SHA-256 (hex) of all three. Identical requests have the same
// key, share one single-flight and one audio file.
func Key(text string, p Params, maxChars int, provider string) string {
	h := sha256.New()
	fmt.Fprintf(h, "tts/v1\x00%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%s\x00%d\x00%d\x00",
		provider, p.Voice, p.Language, p.Speed, p.Volume, p.Pitch, p.Encoding, p.SampleRate, maxChars)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Task is one synthesis task.
type Task struct {
	ID            string
	UserID        string
	Text          string
	Params        Params
	Key           string // see Key
	Status        Status
	SegmentsDone  int
	SegmentsTotal int
	DurationMs    int64
	AudioBytes    int64
	ErrorMessage  string
	Owner         string    // instance running it; "" when unclaimed
	LeaseUntil    time.Time // the owner must heartbeat before this
	Attempts      int       // claims so far (a crash mid-task costs one)
	CreatedAt     time.Time
	UpdatedAt     time.Time
	FinishedAt    *time.Time
}

// Progress is SegmentsDone/SegmentsTotal in percent; 100 only when done.
func (t *Task) Progress() int {
	if t.Status == StatusDone {
		return 100
	}
	if t.SegmentsTotal <= 0 {
		return 0
	}
	p := t.SegmentsDone * 100 / t.SegmentsTotal
	return min(p, 99)
}

// View is the JSON form of a task (api.md).
type View struct {
	TaskID        string  `json:"taskId"`
	TaskStatus    Status  `json:"taskStatus"`
	Progress      int     `json:"progress"`
	SegmentsDone  int     `json:"segmentsDone"`
	SegmentsTotal int     `json:"segmentsTotal"`
	DurationMs    *int64  `json:"durationMs,omitempty"`
	AudioURL      *string `json:"audioUrl,omitempty"`
	AudioEncoding string  `json:"audioEncoding"`
	SampleRate    int     `json:"sampleRate"`
	ErrorMessage  *string `json:"errorMessage,omitempty"`
	TextPreview   string  `json:"textPreview"`
	CreateTime    string  `json:"createTime"`
	FinishTime    *string `json:"finishTime,omitempty"`
}

// ViewOf returns the JSON form of t; audio URLs start with base.
func ViewOf(t *Task, base string) View {
	v := View{TaskID: t.ID, TaskStatus: t.Status, Progress: t.Progress(), SegmentsDone: t.SegmentsDone,
		SegmentsTotal: t.SegmentsTotal, AudioEncoding: t.Params.Encoding, SampleRate: t.Params.SampleRate,
		TextPreview: preview(t.Text, 40), CreateTime: t.CreatedAt.UTC().Format(time.RFC3339)}
	if t.Status == StatusDone {
		d := t.DurationMs
		u := base + "/tasks/" + t.ID + "/audio"
		v.DurationMs, v.AudioURL = &d, &u
	}
	if t.ErrorMessage != "" {
		m := t.ErrorMessage
		v.ErrorMessage = &m
	}
	if t.FinishedAt != nil {
		f := t.FinishedAt.UTC().Format(time.RFC3339)
		v.FinishTime = &f
	}
	return v
}

func preview(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "..."
}
