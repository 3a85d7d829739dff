// Package xunfeiast recognises speech with iFlytek's large-model real-time
// transcription (AST, wss://office-api-ast-dx.iflyaisol.com/ast/communicate/v1),
// which detects Mandarin and the Chinese dialects by itself
// (lang=autodialect).
//
// The protocol: the URL's query parameters, sorted by name and URL-encoded,
// are signed with signature = Base64(HMAC-SHA1(apiSecret, query)); audio goes
// as binary frames of 1280 bytes (40 ms of PCM s16le 16 kHz mono) paced every
// 40 ms, as the service drops audio that arrives faster than real time; the
// text frame {"end": true, "sessionId": ...} ends it. Results come per
// segment (seg_id) in data.cn.st (or data.st) with the words in
// rt[0].ws[*].cw[0].w, type "0" for a final and "1" for a partial result,
// pgs=rpl with rg=[a,b] replacing segments a..b, and ls=true on the last
// packet. {"action": "error"} is a failure.
package xunfeiast

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// DefaultURL is the service's endpoint.
const DefaultURL = "wss://office-api-ast-dx.iflyaisol.com/ast/communicate/v1"

// Config holds the credentials and the pacing.
type Config struct {
	URL   string // DefaultURL when empty
	AppID string
	// APIKey is the accessKeyId, APISecret the key that signs.
	APIKey    string
	APISecret string
	// Lang is the lang parameter, autodialect by default.
	Lang string
	// FrameBytes is the audio per frame (default 1280) and FrameInterval
	// the pace (default 40 ms): one frame per interval at most.
	FrameBytes    int
	FrameInterval time.Duration
	// FinalTimeout bounds the wait for the last packet after the end
	// frame (default 10 s).
	FinalTimeout time.Duration
	// Now is the clock of the utc parameter and NewID makes uuid and
	// sessionId (tests).
	Now    func() time.Time
	NewID  func() string
	Dialer *websocket.Dialer
}

// Recognizer implements speech.Recognizer.
type Recognizer struct{ cfg Config }

var _ speech.Recognizer = (*Recognizer)(nil)

// New checks the configuration.
func New(cfg Config) (*Recognizer, error) {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	if cfg.AppID == "" || cfg.APIKey == "" || cfg.APISecret == "" {
		return nil, errors.New("app-id, api-key and api-secret are required")
	}
	if u, err := url.Parse(cfg.URL); err != nil || u.Host == "" {
		return nil, fmt.Errorf("url %q is not a ws:// or wss:// URL", cfg.URL)
	}
	if cfg.Lang == "" {
		cfg.Lang = "autodialect"
	}
	if cfg.FrameBytes <= 0 {
		cfg.FrameBytes = 1280
	}
	if cfg.FrameInterval <= 0 {
		cfg.FrameInterval = 40 * time.Millisecond
	}
	if cfg.FinalTimeout <= 0 {
		cfg.FinalTimeout = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = newID
	}
	if cfg.Dialer == nil {
		cfg.Dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	}
	return &Recognizer{cfg: cfg}, nil
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Name implements speech.Recognizer.
func (r *Recognizer) Name() string { return "xunfei-ast" }

// Languages implements speech.Recognizer: Mandarin (dialects auto-detected) and English.
func (*Recognizer) Languages() []string { return []string{speech.LangChinese, speech.LangEnglish} }

// SignedQuery returns the query string of params sorted by name, each name
// and value URL-encoded, followed by its signature.
func SignedQuery(params map[string]string, apiSecret string) string {
	base := CanonicalQuery(params)
	return base + "&signature=" + url.QueryEscape(Signature(base, apiSecret))
}

// CanonicalQuery is the signed string: params without signature, sorted
// by name, as name=value pairs URL-encoded and joined with &.
func CanonicalQuery(params map[string]string) string {
	names := make([]string, 0, len(params))
	for k := range params {
		if k != "signature" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(params[k]))
	}
	return b.String()
}

// Signature is Base64(HMAC-SHA1(apiSecret, query)).
func Signature(query, apiSecret string) string {
	mac := hmac.New(sha1.New, []byte(apiSecret))
	mac.Write([]byte(query))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Response is a server frame: a result, or an action (started, error).
type Response struct {
	Action  string          `json:"action"`
	Code    json.RawMessage `json:"code"` // a number or a string
	Desc    string          `json:"desc"`
	Message string          `json:"message"`
	MsgType string          `json:"msg_type"`
	ResType string          `json:"res_type"`
	Data    json.RawMessage `json:"data"` // an object with results, else ""
}

// Data is the payload of a result.
type Data struct {
	SegID int  `json:"seg_id"`
	LS    bool `json:"ls"`
	CN    *struct {
		ST *ST `json:"st"`
	} `json:"cn"`
	ST  *ST    `json:"st"`
	Pgs string `json:"pgs"`
	Rg  []int  `json:"rg"`
	// Action, Code and Desc carry an error sent inside data.
	Action string          `json:"action"`
	Code   json.RawMessage `json:"code"`
	Desc   string          `json:"desc"`
}

// ST is one sentence: type "0" final, "1" partial.
type ST struct {
	Type string `json:"type"`
	Pgs  string `json:"pgs"`
	Rg   []int  `json:"rg"`
	RT   []struct {
		WS []struct {
			CW []struct {
				W string `json:"w"`
			} `json:"cw"`
		} `json:"ws"`
	} `json:"rt"`
}

// Text joins the best candidate of each word of rt[0].
func (st *ST) Text() string {
	if st == nil || len(st.RT) == 0 {
		return ""
	}
	var b strings.Builder
	for _, ws := range st.RT[0].WS {
		if len(ws.CW) > 0 {
			w := ws.CW[0].W
			// English words come separately, Chinese characters do not
			// take spaces.
			if b.Len() > 0 && isASCIIWord(w[:min(1, len(w))]) && isASCIIWord(b.String()[b.Len()-1:]) {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
	}
	return b.String()
}

func isASCIIWord(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// result converts a result payload; ok is false for packets without a
// sentence.
func (d *Data) result() (r speech.Result, ok bool) {
	st := d.ST
	if d.CN != nil && d.CN.ST != nil {
		st = d.CN.ST
	}
	if st == nil {
		return r, false
	}
	r = speech.Result{Segment: d.SegID, Text: st.Text(), Final: st.Type == "0" || d.LS}
	pgs, rg := d.Pgs, d.Rg
	if pgs == "" {
		pgs, rg = st.Pgs, st.Rg
	}
	if pgs == "rpl" && len(rg) == 2 {
		r.Replace = &speech.Range{From: rg[0], To: rg[1]}
	}
	return r, true
}

// Start implements speech.Recognizer: it signs the URL and dials.
func (r *Recognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	sessionID := r.cfg.NewID()
	params := map[string]string{
		"accessKeyId":  r.cfg.APIKey,
		"appId":        r.cfg.AppID,
		"audio_encode": "pcm_s16le",
		"lang":         r.cfg.Lang,
		"samplerate":   "16000",
		"sessionId":    sessionID,
		"utc":          r.cfg.Now().Format("2006-01-02T15:04:05-0700"),
		"uuid":         r.cfg.NewID(),
	}
	base := r.cfg.URL
	if i := strings.IndexByte(base, '?'); i >= 0 {
		base = base[:i]
	}
	ws, resp, err := r.cfg.Dialer.DialContext(ctx, base+"?"+SignedQuery(params, r.cfg.APISecret), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, apperr.New(apperr.KindUnavailable, "iFlytek AST unreachable (HTTP %d)", status).WithCause(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{r: r, ws: ws, emit: emit, sessionID: sessionID, cancel: cancel,
		wake: make(chan struct{}, 1), sent: make(chan struct{}), done: make(chan struct{})}
	go s.read()
	go s.send(ctx)
	go func() {
		<-ctx.Done()
		_ = ws.Close()
	}()
	return s, nil
}

type stream struct {
	r         *Recognizer
	ws        *websocket.Conn
	emit      func(speech.Result)
	sessionID string
	cancel    context.CancelFunc

	wake chan struct{} // audio arrived or the stream is closing
	sent chan struct{} // closed when send returns (after the end frame)
	done chan struct{} // closed when read returns

	mu      sync.Mutex // protects the fields below
	buf     []byte     // audio not sent yet
	closing bool
	err     error
}

// Write queues audio; the sender paces it out.
func (s *stream) Write(pcm []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.buf = append(s.buf, pcm...)
	s.signal()
	return nil
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *stream) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	s.signal() // the sender stops
}

func (s *stream) errLocked() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// send is the connection's only writer: one frame of FrameBytes per
// FrameInterval at most, the rest of the audio once closing, then the end
// frame.
func (s *stream) send(ctx context.Context) {
	defer close(s.sent)
	n := s.r.cfg.FrameBytes
	var last time.Time
	for {
		s.mu.Lock()
		var frame []byte
		end := false
		switch {
		case s.err != nil:
			s.mu.Unlock()
			return
		case len(s.buf) >= n:
			frame = bytes.Clone(s.buf[:n])
			s.buf = s.buf[n:]
		case s.closing && len(s.buf) > 0:
			frame, s.buf = s.buf, nil
		case s.closing:
			end = true
		}
		s.mu.Unlock()
		if frame == nil && !end {
			select {
			case <-s.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		if wait := s.r.cfg.FrameInterval - time.Since(last); !last.IsZero() && wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
		}
		_ = s.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
		var err error
		if end {
			msg, _ := json.Marshal(struct {
				End       bool   `json:"end"`
				SessionID string `json:"sessionId"`
			}{true, s.sessionID})
			err = s.ws.WriteMessage(websocket.TextMessage, msg)
		} else {
			err = s.ws.WriteMessage(websocket.BinaryMessage, frame)
			last = time.Now()
		}
		if err != nil {
			// The server's reason, such as an error frame before it
			// closed, says more than the broken pipe: the reader ends
			// soon and its error is kept first.
			select {
			case <-s.done:
			case <-time.After(time.Second):
			}
			s.fail(apperr.New(apperr.KindUnavailable, "iFlytek AST connection lost").WithCause(err))
			return
		}
		if end {
			return
		}
	}
}

// Close sends the rest of the audio at its pace and the end frame, and
// waits for the last packet.
func (s *stream) Close() error {
	defer s.cancel()
	s.mu.Lock()
	s.closing = true
	s.signal()
	s.mu.Unlock()
	<-s.sent
	select {
	case <-s.done:
	case <-time.After(s.r.cfg.FinalTimeout):
		_ = s.ws.Close()
		<-s.done
		s.fail(apperr.New(apperr.KindTimeout, "iFlytek AST sent no last result"))
	}
	return s.errLocked()
}

// read turns server frames into results until the last packet (ls).
func (s *stream) read() {
	defer close(s.done)
	for {
		_, msg, err := s.ws.ReadMessage()
		if err != nil {
			s.fail(apperr.New(apperr.KindUnavailable, "iFlytek AST connection lost").WithCause(err))
			return
		}
		var resp Response
		if err := json.Unmarshal(msg, &resp); err != nil {
			s.fail(apperr.New(apperr.KindUpstream, "iFlytek AST sent an unreadable frame").WithCause(err))
			return
		}
		if resp.Action == "error" || resp.MsgType == "error" {
			desc := resp.Desc
			if desc == "" {
				desc = resp.Message
			}
			s.fail(apperr.New(apperr.KindUpstream, "iFlytek AST error %s: %s", bytes.Trim(resp.Code, `"`), desc))
			return
		}
		if len(resp.Data) == 0 || resp.Data[0] != '{' {
			continue // "started" and other actions
		}
		var d Data
		if err := json.Unmarshal(resp.Data, &d); err != nil {
			s.fail(apperr.New(apperr.KindUpstream, "iFlytek AST sent an unreadable result").WithCause(err))
			return
		}
		if d.Action == "error" { // the error inside data
			s.fail(apperr.New(apperr.KindUpstream, "iFlytek AST error %s: %s", bytes.Trim(d.Code, `"`), d.Desc))
			return
		}
		if r, ok := d.result(); ok {
			s.emit(r)
		}
		if d.LS {
			return
		}
	}
}
