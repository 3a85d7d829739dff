// Package openai synthesises speech with an OpenAI-compatible
// /v1/audio/speech endpoint (OpenAI, LocalAI, openedai-speech, ...),
// asking for WAV.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// Config locates the endpoint.
type Config struct {
	BaseURL string // e.g. https://api.openai.com/v1
	APIKey  string
	Model   string // e.g. tts-1
	Voice   string // default voice, e.g. alloy
	// HTTPClient defaults to a client with a 2-minute timeout.
	HTTPClient *http.Client
}

// Synthesizer calls /audio/speech once per segment.
type Synthesizer struct {
	cfg Config
}

var _ tts.Synthesizer = (*Synthesizer)(nil)

// New checks cfg and returns a Synthesizer.
func New(cfg Config) (*Synthesizer, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("tts.openai: base-url and model are required")
	}
	if cfg.Voice == "" {
		cfg.Voice = "alloy"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 2 * time.Minute}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Synthesizer{cfg: cfg}, nil
}

// Request is the body of /audio/speech.
type Request struct {
	Model          string  `json:"model"`
	Voice          string  `json:"voice"`
	Input          string  `json:"input"`
	ResponseFormat string  `json:"response_format"`
	Speed          float64 `json:"speed"`
}

// Speed maps 0..100 (50 normal) to OpenAI's 0.5..2.0 (1.0 normal),
// exponentially so that 25 and 75 are 1/√2 and √2.
func Speed(s int) float64 {
	v := math.Pow(2, float64(s-50)/50)
	return math.Round(v*100) / 100
}

// Synthesize implements tts.Synthesizer.
func (s *Synthesizer) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	voice := p.Voice
	if voice == "" {
		voice = s.cfg.Voice
	}
	body, _ := json.Marshal(Request{Model: s.cfg.Model, Voice: voice, Input: text, ResponseFormat: "wav", Speed: Speed(p.Speed)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.BaseURL+"/audio/speech", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		// The error quotes the URL, which may carry ?key=.
		err = redact.Error(err)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, apperr.New(apperr.KindUnavailable, "TTS endpoint unreachable").WithCause(err).AsRetryable()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, apperr.New(apperr.KindUpstream, "TTS endpoint response cut short").WithCause(err).AsRetryable()
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return b, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, apperr.New(apperr.KindUpstream, "TTS endpoint answered %d: %s", resp.StatusCode, snippet(b)).AsRetryable()
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound:
		return nil, apperr.Invalid("TTS endpoint rejected the request (%d): %s", resp.StatusCode, snippet(b))
	}
	return nil, apperr.New(apperr.KindUnavailable, "TTS endpoint answered %d: %s", resp.StatusCode, snippet(b))
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprint(s)
}
