// Package xunfei synthesises speech with the iFlytek (讯飞) long-text TTS
// task API: create a task (dts_create), poll it (dts_query) until its
// task_status is 5, then download the audio from the URL it returns. Every
// request is signed with HMAC-SHA256 over "host", "date" and the request
// line, passed as the host, date and authorization query parameters.
package xunfei

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// Config holds the endpoint and credentials.
type Config struct {
	// CreateURL is the dts_create endpoint; QueryURL defaults to it with
	// dts_create replaced by dts_query.
	CreateURL string
	QueryURL  string
	AppID     string
	APIKey    string
	APISecret string
	// Voice is the default vcn (x4_yeting when empty).
	Voice string
	// PollInterval between dts_query calls (1 s when zero).
	PollInterval time.Duration
	HTTPClient   *http.Client
	// Now is the clock of the date header (time.Now when nil).
	Now func() time.Time
}

// SampleRate is the rate asked of the service (raw 16-bit mono PCM).
const SampleRate = 16000

// Synthesizer runs one iFlytek task per segment.
type Synthesizer struct {
	cfg Config
}

var _ tts.Synthesizer = (*Synthesizer)(nil)

// New checks cfg and returns a Synthesizer.
func New(cfg Config) (*Synthesizer, error) {
	if cfg.CreateURL == "" || cfg.AppID == "" || cfg.APIKey == "" || cfg.APISecret == "" {
		return nil, errors.New("tts.xunfei: url, app-id, api-key and api-secret are required")
	}
	if cfg.QueryURL == "" {
		cfg.QueryURL = strings.Replace(cfg.CreateURL, "dts_create", "dts_query", 1)
	}
	if cfg.Voice == "" {
		cfg.Voice = "x4_yeting"
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: time.Minute}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Synthesizer{cfg: cfg}, nil
}

// Sign returns the signed URL of a POST to rawURL at date: rawURL with the
// query parameters host, date and authorization, where authorization is
// base64(`api_key="…", algorithm="hmac-sha256", headers="host date
// request-line", signature="…"`) and signature is base64(HMAC-SHA256(secret,
// "host: H\ndate: D\nPOST /path HTTP/1.1")).
func Sign(rawURL, apiKey, apiSecret string, date time.Time) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	d := date.UTC().Format(http.TimeFormat)
	sig := Signature(apiSecret, u.Host, d, "POST "+u.Path+" HTTP/1.1")
	auth := fmt.Sprintf(`api_key="%s", algorithm="hmac-sha256", headers="host date request-line", signature="%s"`, apiKey, sig)
	q := url.Values{}
	q.Set("host", u.Host)
	q.Set("date", d)
	q.Set("authorization", base64.StdEncoding.EncodeToString([]byte(auth)))
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Signature is base64(HMAC-SHA256(secret, "host: …\ndate: …\n<request line>")).
func Signature(secret, host, date, requestLine string) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "host: %s\ndate: %s\n%s", host, date, requestLine)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Wire types of the task API.
type (
	// Header is the header of requests and responses.
	Header struct {
		AppID      string `json:"app_id,omitempty"`
		TaskID     string `json:"task_id,omitempty"`
		Code       int    `json:"code"`
		Message    string `json:"message,omitempty"`
		SID        string `json:"sid,omitempty"`
		TaskStatus string `json:"task_status,omitempty"`
	}
	// CreateRequest is the body of dts_create.
	CreateRequest struct {
		Header    Header `json:"header"`
		Parameter struct {
			DTS DTS `json:"dts"`
		} `json:"parameter"`
		Payload struct {
			Text Text `json:"text"`
		} `json:"payload"`
	}
	// DTS are the synthesis parameters.
	DTS struct {
		VCN      string `json:"vcn"`
		Language string `json:"language"`
		Speed    int    `json:"speed"`
		Volume   int    `json:"volume"`
		Pitch    int    `json:"pitch"`
		Rhy      int    `json:"rhy"`
		Audio    Audio  `json:"audio"`
	}
	// Audio is the requested audio format.
	Audio struct {
		Encoding   string `json:"encoding"`
		SampleRate int    `json:"sample_rate"`
	}
	// Text is the text payload (base64).
	Text struct {
		Encoding string `json:"encoding"`
		Compress string `json:"compress"`
		Format   string `json:"format"`
		Text     string `json:"text"`
	}
	// QueryRequest is the body of dts_query.
	QueryRequest struct {
		Header Header `json:"header"`
	}
	// Response is the answer of both calls; Payload.Audio.Audio is the
	// base64 of the download URL once task_status is 5.
	Response struct {
		Header  Header `json:"header"`
		Payload struct {
			Audio struct {
				Audio    string `json:"audio"`
				Encoding string `json:"encoding"`
			} `json:"audio"`
		} `json:"payload"`
	}
)

// Synthesize implements tts.Synthesizer: the raw PCM downloaded is wrapped
// in a WAV header.
func (s *Synthesizer) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	var cr CreateRequest
	cr.Header.AppID = s.cfg.AppID
	vcn := p.Voice
	if vcn == "" {
		vcn = s.cfg.Voice
	}
	lang := "zh"
	if p.Language == "en" {
		lang = "en"
	}
	cr.Parameter.DTS = DTS{VCN: vcn, Language: lang, Speed: p.Speed, Volume: p.Volume, Pitch: p.Pitch,
		Audio: Audio{Encoding: "raw", SampleRate: SampleRate}}
	cr.Payload.Text = Text{Encoding: "utf8", Compress: "raw", Format: "plain",
		Text: base64.StdEncoding.EncodeToString([]byte(text))}
	var created Response
	if err := s.post(ctx, s.cfg.CreateURL, cr, &created); err != nil {
		return nil, err
	}
	taskID := created.Header.TaskID
	if taskID == "" {
		return nil, apperr.New(apperr.KindUpstream, "iFlytek created no task (sid %s)", created.Header.SID).AsRetryable()
	}
	tick := time.NewTicker(s.cfg.PollInterval)
	defer tick.Stop()
	for {
		var q Response
		if err := s.post(ctx, s.cfg.QueryURL, QueryRequest{Header: Header{AppID: s.cfg.AppID, TaskID: taskID}}, &q); err != nil {
			return nil, err
		}
		switch q.Header.TaskStatus {
		case "5":
			u, err := base64.StdEncoding.DecodeString(q.Payload.Audio.Audio)
			if err != nil || len(u) == 0 {
				return nil, apperr.New(apperr.KindUpstream, "iFlytek task %s has no audio URL", taskID).AsRetryable()
			}
			pcm, err := s.download(ctx, string(u))
			if err != nil {
				return nil, err
			}
			return audio.EncodeWAV(pcm, SampleRate), nil
		case "4":
			return nil, apperr.New(apperr.KindUpstream, "iFlytek task %s failed: %s", taskID, q.Header.Message).AsRetryable()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// post sends body, signed, to rawURL and decodes the answer into out.
func (s *Synthesizer) post(ctx context.Context, rawURL string, body, out any) error {
	signed, err := Sign(rawURL, s.cfg.APIKey, s.cfg.APISecret, s.cfg.Now())
	if err != nil {
		return fmt.Errorf("tts.xunfei.url: %w", err)
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, signed, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		err = redact.Error(err) // the signed URL carries authorization=
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return apperr.New(apperr.KindUnavailable, "iFlytek unreachable").WithCause(err).AsRetryable()
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		e := apperr.New(apperr.KindUpstream, "iFlytek answered %d: %.200s", resp.StatusCode, rb)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return e.AsRetryable()
		}
		return e
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return apperr.New(apperr.KindUpstream, "iFlytek answered no JSON: %.200s", rb).AsRetryable()
	}
	var h struct {
		Header Header `json:"header"`
	}
	_ = json.Unmarshal(rb, &h)
	if h.Header.Code != 0 {
		return apperr.New(apperr.KindUpstream, "iFlytek error %d: %s", h.Header.Code, h.Header.Message)
	}
	return nil
}

func (s *Synthesizer) download(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, apperr.New(apperr.KindUpstream, "iFlytek audio URL is invalid").WithCause(err)
	}
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		err = redact.Error(err) // a pre-signed download URL carries its signature
		return nil, apperr.New(apperr.KindUnavailable, "download iFlytek audio").WithCause(err).AsRetryable()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, apperr.New(apperr.KindUpstream, "download iFlytek audio: status %d", resp.StatusCode).AsRetryable()
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
	if err != nil {
		return nil, apperr.New(apperr.KindUpstream, "download iFlytek audio").WithCause(err).AsRetryable()
	}
	return b, nil
}
