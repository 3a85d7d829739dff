// Package openai recognises speech with an OpenAI-compatible
// /v1/audio/transcriptions endpoint (OpenAI, whisper.cpp server, LocalAI).
// That API takes whole files, so the stream is cut into utterances with an
// energy-based silence detector and each utterance is sent as a WAV file;
// every answer becomes one final segment.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// Config is the endpoint.
type Config struct {
	BaseURL string // e.g. https://api.openai.com/v1
	APIKey  string
	Model   string // e.g. whisper-1
	// Language is an optional ISO-639-1 hint.
	Language string
	// Timeout bounds one request (default 60 s).
	Timeout time.Duration
	// Segmenter tunes the silence detection; zero values take its defaults.
	Segmenter audio.Segmenter
	Client    *http.Client
}

// Recognizer implements speech.Recognizer.
type Recognizer struct{ cfg Config }

var _ speech.Recognizer = (*Recognizer)(nil)

// New checks the configuration.
func New(cfg Config) (*Recognizer, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("speech.openai: base-url and model are required")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &Recognizer{cfg: cfg}, nil
}

// Name implements speech.Recognizer.
func (r *Recognizer) Name() string { return "openai" }

// Languages implements speech.Recognizer: Mandarin and English (Whisper is multilingual).
func (*Recognizer) Languages() []string { return []string{speech.LangChinese, speech.LangEnglish} }

// Start implements speech.Recognizer.
func (r *Recognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	return &stream{r: r, ctx: ctx, emit: emit, seg: r.cfg.Segmenter}, nil
}

type stream struct {
	r      *Recognizer
	ctx    context.Context
	emit   func(speech.Result)
	seg    audio.Segmenter
	next   int // next segment id
	closed bool
}

func (s *stream) Write(pcm []byte) error {
	for _, utt := range s.seg.Write(pcm) {
		if err := s.recognize(utt); err != nil {
			return err
		}
	}
	return nil
}

func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if utt := s.seg.Flush(); len(utt) > 0 {
		return s.recognize(utt)
	}
	return nil
}

func (s *stream) recognize(pcm []byte) error {
	text, err := s.r.Transcribe(s.ctx, audio.EncodeWAV(pcm, audio.Rate))
	if err != nil {
		return err
	}
	s.emit(speech.Result{Segment: s.next, Text: text, Final: true})
	s.next++
	return nil
}

// Transcribe posts one WAV file and returns its text.
func (r *Recognizer) Transcribe(ctx context.Context, wav []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "audio.wav")
	if err != nil {
		return "", err
	}
	fw.Write(wav)
	_ = mw.WriteField("model", r.cfg.Model)
	_ = mw.WriteField("response_format", "json")
	if r.cfg.Language != "" {
		_ = mw.WriteField("language", r.cfg.Language)
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.cfg.BaseURL+"/audio/transcriptions", &body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		// The error quotes the URL, which may carry ?key=.
		err = redact.Error(err)
		if ctx.Err() != nil {
			return "", apperr.New(apperr.KindTimeout, "speech API did not answer in time").WithCause(err)
		}
		return "", apperr.New(apperr.KindUnavailable, "speech API unreachable").WithCause(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", apperr.New(apperr.KindUpstream, "speech API answer unreadable").WithCause(err)
	}
	if resp.StatusCode != http.StatusOK {
		kind := apperr.KindUpstream
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			kind = apperr.KindUnavailable
		}
		return "", apperr.New(kind, "speech API answered %d", resp.StatusCode).
			WithCause(fmt.Errorf("%s", truncate(string(raw), 300)))
	}
	var out struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", apperr.New(apperr.KindUpstream, "speech API answer is not JSON").WithCause(err)
	}
	return strings.TrimSpace(out.Text), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
