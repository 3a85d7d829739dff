// Package xunfei recognises speech with iFlytek's real-time dictation API
// (iat, WebSocket v2): the URL is signed with HMAC-SHA256 over host, date
// and request line; audio goes in JSON frames with status 0 (first), 1
// (continue), 2 (last) and base64 PCM; results come back per sentence
// number sn, with dynamic correction (dwa=wpgs) saying whether a result
// appends (pgs=apd) or replaces the results rg=[a,b] (pgs=rpl).
package xunfei

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// Config holds the credentials and the session's business parameters.
type Config struct {
	URL       string // wss://iat-api.xfyun.cn/v2/iat
	AppID     string
	APIKey    string
	APISecret string
	// Language is zh_cn (default) or en_us; Accent mandarin by default.
	Language, Accent string
	// FrameBytes is the audio per frame (default 1280 = 40 ms, as
	// iFlytek recommends).
	FrameBytes int
	// FinalTimeout bounds the wait for the last result after status 2
	// (default 10 s).
	FinalTimeout time.Duration
	// Now is the clock used for the signature date (tests).
	Now    func() time.Time
	Dialer *websocket.Dialer
}

// Recognizer implements speech.Recognizer.
type Recognizer struct{ cfg Config }

var _ speech.Recognizer = (*Recognizer)(nil)

// New checks the configuration.
func New(cfg Config) (*Recognizer, error) {
	if cfg.URL == "" || cfg.AppID == "" || cfg.APIKey == "" || cfg.APISecret == "" {
		return nil, errors.New("speech.xunfei: url, app-id, api-key and api-secret are required")
	}
	if _, err := url.Parse(cfg.URL); err != nil {
		return nil, fmt.Errorf("speech.xunfei.url: %w", err)
	}
	if cfg.Language == "" {
		cfg.Language = "zh_cn"
	}
	if cfg.Accent == "" {
		cfg.Accent = "mandarin"
	}
	if cfg.FrameBytes <= 0 {
		cfg.FrameBytes = 1280
	}
	if cfg.FinalTimeout <= 0 {
		cfg.FinalTimeout = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Dialer == nil {
		cfg.Dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	}
	return &Recognizer{cfg: cfg}, nil
}

// Name implements speech.Recognizer.
func (r *Recognizer) Name() string { return "xunfei" }

// SignURL returns the URL with iFlytek's authorization query:
// signature = base64(HMAC-SHA256(secret, "host: H\ndate: D\nGET /path HTTP/1.1")),
// authorization = base64(`api_key="K", algorithm="hmac-sha256",
// headers="host date request-line", signature="S"`).
func SignURL(rawURL, apiKey, apiSecret string, now time.Time) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	date := now.UTC().Format(time.RFC1123) // "Mon, 02 Jan 2006 15:04:05 UTC"
	date = strings.TrimSuffix(date, "UTC") + "GMT"
	sig := Signature(u.Host, date, "GET "+u.EscapedPath()+" HTTP/1.1", apiSecret)
	auth := fmt.Sprintf(`api_key="%s", algorithm="hmac-sha256", headers="host date request-line", signature="%s"`, apiKey, sig)
	q := u.Query()
	q.Set("authorization", base64.StdEncoding.EncodeToString([]byte(auth)))
	q.Set("date", date)
	q.Set("host", u.Host)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Signature is the base64 HMAC-SHA256 of the signed lines.
func Signature(host, date, requestLine, apiSecret string) string {
	mac := hmac.New(sha256.New, []byte(apiSecret))
	fmt.Fprintf(mac, "host: %s\ndate: %s\n%s", host, date, requestLine)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Frame is a client frame.
type Frame struct {
	Common   *Common   `json:"common,omitempty"`
	Business *Business `json:"business,omitempty"`
	Data     FrameData `json:"data"`
}

// Common carries the app id (first frame only).
type Common struct {
	AppID string `json:"app_id"`
}

// Business carries the session parameters (first frame only).
type Business struct {
	Language string `json:"language"`
	Domain   string `json:"domain"`
	Accent   string `json:"accent"`
	DWA      string `json:"dwa,omitempty"`
	VadEOS   int    `json:"vad_eos,omitempty"`
}

// FrameData is the audio of a frame.
type FrameData struct {
	Status   int    `json:"status"` // 0 first, 1 continue, 2 last
	Format   string `json:"format"`
	Encoding string `json:"encoding"`
	Audio    string `json:"audio"`
}

// Response is a server frame.
type Response struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	SID     string `json:"sid"`
	Data    *struct {
		Status int    `json:"status"`
		Result Result `json:"result"`
	} `json:"data"`
}

// Result is one recognition result.
type Result struct {
	SN  int    `json:"sn"`
	LS  bool   `json:"ls"`
	Pgs string `json:"pgs"` // apd | rpl
	Rg  []int  `json:"rg"`  // with rpl: the sn range replaced
	WS  []struct {
		CW []struct {
			W string `json:"w"`
		} `json:"cw"`
	} `json:"ws"`
}

// Text joins the best candidate of each word.
func (r Result) Text() string {
	var b strings.Builder
	for _, ws := range r.WS {
		if len(ws.CW) > 0 {
			w := ws.CW[0].W
			// English results come as separate words.
			if b.Len() > 0 && isWordStart(w) && isWordEnd(b.String()) {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
	}
	return b.String()
}

func isWordStart(s string) bool {
	return s != "" && s[0] < 0x80 && (s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9')
}

func isWordEnd(s string) bool {
	c := s[len(s)-1]
	return c < 0x80 && (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ',' || c == '.')
}

// Start implements speech.Recognizer: it dials and signs the session.
func (r *Recognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	signed, err := SignURL(r.cfg.URL, r.cfg.APIKey, r.cfg.APISecret, r.cfg.Now())
	if err != nil {
		return nil, err
	}
	ws, resp, err := r.cfg.Dialer.DialContext(ctx, signed, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, apperr.New(apperr.KindUnavailable, "iFlytek unreachable (HTTP %d)", status).WithCause(err)
	}
	s := &stream{r: r, ws: ws, emit: emit, done: make(chan struct{})}
	go s.read()
	go func() {
		select {
		case <-ctx.Done():
			_ = ws.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

type stream struct {
	r    *Recognizer
	ws   *websocket.Conn
	emit func(speech.Result)
	sent bool // the first frame (status 0) went out
	buf  []byte

	done chan struct{} // closed when read returns
	mu   sync.Mutex    // protects err
	err  error
}

func (s *stream) Write(pcm []byte) error {
	if err := s.readErr(); err != nil {
		return err
	}
	s.buf = append(s.buf, pcm...)
	for len(s.buf) >= s.r.cfg.FrameBytes {
		if err := s.send(s.buf[:s.r.cfg.FrameBytes], false); err != nil {
			return err
		}
		s.buf = s.buf[s.r.cfg.FrameBytes:]
	}
	s.buf = append([]byte(nil), s.buf...)
	return nil
}

func (s *stream) send(pcm []byte, last bool) error {
	f := Frame{Data: FrameData{Status: 1, Format: "audio/L16;rate=16000", Encoding: "raw",
		Audio: base64.StdEncoding.EncodeToString(pcm)}}
	if !s.sent {
		f.Common = &Common{AppID: s.r.cfg.AppID}
		f.Business = &Business{Language: s.r.cfg.Language, Domain: "iat", Accent: s.r.cfg.Accent, DWA: "wpgs"}
		f.Data.Status = 0
		s.sent = true
	} else if last {
		f.Data.Status = 2
	}
	_ = s.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := s.ws.WriteJSON(f); err != nil {
		return apperr.New(apperr.KindUnavailable, "iFlytek connection lost").WithCause(err)
	}
	return nil
}

func (s *stream) Close() error {
	defer s.ws.Close()
	err := s.readErr()
	if err == nil {
		if len(s.buf) > 0 || !s.sent {
			err = s.send(s.buf, false)
		}
		if err == nil {
			err = s.send(nil, true)
		}
	}
	select {
	case <-s.done:
	case <-time.After(s.r.cfg.FinalTimeout):
		_ = s.ws.Close()
		<-s.done
		if err == nil {
			err = apperr.New(apperr.KindTimeout, "iFlytek sent no final result")
		}
	}
	if err == nil {
		err = s.readErr()
	}
	return err
}

func (s *stream) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// read turns server frames into results until the last one (status 2).
func (s *stream) read() {
	defer close(s.done)
	fail := func(err error) {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
	}
	for {
		var resp Response
		if err := s.ws.ReadJSON(&resp); err != nil {
			fail(apperr.New(apperr.KindUnavailable, "iFlytek connection lost").WithCause(err))
			return
		}
		if resp.Code != 0 {
			fail(apperr.New(apperr.KindUpstream, "iFlytek error %d", resp.Code).WithCause(errors.New(resp.Message)))
			return
		}
		if resp.Data == nil {
			continue
		}
		res := resp.Data.Result
		r := speech.Result{Segment: res.SN, Text: res.Text(), Final: resp.Data.Status == 2}
		if res.Pgs == "rpl" && len(res.Rg) == 2 {
			r.Replace = &speech.Range{From: res.Rg[0], To: res.Rg[1]}
		}
		s.emit(r)
		if resp.Data.Status == 2 {
			return
		}
	}
}
