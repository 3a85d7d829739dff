// Package xunfei recognises speech with iFlytek's real-time dictation API
// (iat, WebSocket v2): the URL is signed with HMAC-SHA256 over host, date
// and request line; audio goes in JSON frames with status 0 (first), 1
// (continue), 2 (last) and base64 PCM; results come back per sentence
// number sn, with dynamic correction (dwa=wpgs) saying whether a result
// appends (pgs=apd) or replaces the results rg=[a,b] (pgs=rpl).
//
// iFlytek ends a dictation session after 60 s of audio, so a stream is a
// chain of sessions: a little before the limit the current session gets
// its last frame (status 2) and a new one takes the following audio, while
// the old one still delivers its final results. Segment ids of session k
// are offset by k*SessionStride, so the transcript keeps its order.
package xunfei

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
	// SessionLimit is the longest session iFlytek allows, in audio and in
	// time (default 60 s); RenewBefore is how long before it a new session
	// is opened (default 2 s, at most a quarter of the limit).
	SessionLimit, RenewBefore time.Duration
	// Now is the clock used for the signature date (tests).
	Now    func() time.Time
	Dialer *websocket.Dialer
}

// SessionStride separates the segment ids of consecutive sessions.
const SessionStride = 1_000_000

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
	if cfg.SessionLimit <= 0 {
		cfg.SessionLimit = 60 * time.Second
	}
	if cfg.RenewBefore <= 0 {
		cfg.RenewBefore = 2 * time.Second
	}
	cfg.RenewBefore = min(cfg.RenewBefore, cfg.SessionLimit/4)
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

// Languages implements speech.Recognizer: Mandarin and English.
func (*Recognizer) Languages() []string { return []string{speech.LangChinese, speech.LangEnglish} }

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

// Start implements speech.Recognizer: it dials and signs the first session.
func (r *Recognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	s := &stream{r: r, ctx: ctx, emit: emit}
	cur, err := s.open()
	if err != nil {
		return nil, err
	}
	s.cur = cur
	return s, nil
}

// stream is a chain of sessions. Write and Close run on the caller's
// goroutine, which is the only writer of every session's connection.
type stream struct {
	r    *Recognizer
	ctx  context.Context
	emit func(speech.Result)

	cur     *session   // takes the audio
	retired []*session // ended (status 2 sent), still delivering results
	opened  int        // sessions opened so far
	buf     []byte     // less than a frame of audio
	err     error      // a failed send or renewal: nothing more is sent

	emitMu sync.Mutex // serialises emit across sessions; protects closed
	closed bool       // Close returned: results are dropped
}

// session is one iFlytek connection.
type session struct {
	ws    *websocket.Conn
	prev  *session // the session before, nil for the first
	base  int      // added to its sn
	start time.Time
	audio int            // bytes sent
	sent  bool           // the first frame (status 0) went out
	live  map[int]string // sn → text of results not yet final (read goroutine only)
	done  chan struct{}  // closed when read returns
	mu    sync.Mutex     // protects err
	err   error
}

func (s *stream) open() (*session, error) {
	signed, err := SignURL(s.r.cfg.URL, s.r.cfg.APIKey, s.r.cfg.APISecret, s.r.cfg.Now())
	if err != nil {
		return nil, err
	}
	ws, resp, err := s.r.cfg.Dialer.DialContext(s.ctx, signed, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, apperr.New(apperr.KindUnavailable, "iFlytek unreachable (HTTP %d)", status).WithCause(err)
	}
	ss := &session{ws: ws, prev: s.cur, base: s.opened * SessionStride, start: time.Now(), live: map[int]string{}, done: make(chan struct{})}
	s.opened++
	go s.read(ss)
	go func() {
		select {
		case <-s.ctx.Done():
			_ = ws.Close()
		case <-ss.done:
		}
	}()
	return ss, nil
}

func (s *stream) Write(pcm []byte) error {
	if err := s.sessionErr(); err != nil {
		return err
	}
	n := s.r.cfg.FrameBytes
	s.buf = append(s.buf, pcm...)
	for len(s.buf) >= n {
		if err := s.renewIfDue(n); err != nil {
			s.err = err
			return err
		}
		if err := s.send(s.cur, s.buf[:n], false); err != nil {
			s.err = err
			return err
		}
		s.buf = s.buf[n:]
	}
	s.buf = append([]byte(nil), s.buf...)
	return nil
}

// renewIfDue ends the current session and opens the next when sending
// more bytes would come within RenewBefore of the session limit.
func (s *stream) renewIfDue(more int) error {
	limit, margin := s.r.cfg.SessionLimit, s.r.cfg.RenewBefore
	audio := time.Duration(s.cur.audio+more) * time.Second / speech.BytesPerSecond
	if audio <= limit-margin && time.Since(s.cur.start) <= limit-margin {
		return nil
	}
	if err := s.send(s.cur, nil, true); err != nil {
		return err
	}
	s.retired = append(s.retired, s.cur)
	next, err := s.open()
	if err != nil {
		return err
	}
	s.cur = next
	return nil
}

func (s *stream) send(ss *session, pcm []byte, last bool) error {
	f := Frame{Data: FrameData{Status: 1, Format: "audio/L16;rate=16000", Encoding: "raw",
		Audio: base64.StdEncoding.EncodeToString(pcm)}}
	if !ss.sent {
		f.Common = &Common{AppID: s.r.cfg.AppID}
		f.Business = &Business{Language: s.r.cfg.Language, Domain: "iat", Accent: s.r.cfg.Accent, DWA: "wpgs"}
		f.Data.Status = 0
		ss.sent = true
	} else if last {
		f.Data.Status = 2
	}
	_ = ss.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := ss.ws.WriteJSON(f); err != nil {
		// The server's reason, such as an error frame before it closed,
		// says more than the broken pipe: the reader ends soon.
		select {
		case <-ss.done:
		case <-time.After(time.Second):
		}
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if ss.err != nil {
			return ss.err
		}
		return apperr.New(apperr.KindUnavailable, "iFlytek connection lost").WithCause(err)
	}
	ss.audio += len(pcm)
	return nil
}

// Close ends the current session and waits for the last results of every
// session.
func (s *stream) Close() error {
	var err error
	if err = s.sessionErr(); err == nil {
		if len(s.buf) > 0 || !s.cur.sent {
			err = s.send(s.cur, s.buf, false)
		}
		if err == nil {
			err = s.send(s.cur, nil, true)
		}
	}
	deadline := time.After(s.r.cfg.FinalTimeout)
	for _, ss := range append(s.retired, s.cur) {
		select {
		case <-ss.done:
		case <-deadline:
			_ = ss.ws.Close()
			<-ss.done
			if err == nil {
				err = apperr.New(apperr.KindTimeout, "iFlytek sent no final result")
			}
		}
		_ = ss.ws.Close()
	}
	s.emitMu.Lock()
	s.closed = true
	s.emitMu.Unlock()
	if err == nil {
		err = s.sessionErr()
	}
	return err
}

// sessionErr is the stream's error or the first error of any session.
func (s *stream) sessionErr() error {
	if s.err != nil {
		return s.err
	}
	for _, ss := range append(s.retired, s.cur) {
		ss.mu.Lock()
		err := ss.err
		ss.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *stream) deliver(r speech.Result) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if !s.closed {
		s.emit(r)
	}
}

// read turns one session's frames into results until its last one
// (status 2), then marks every segment of the session final.
func (s *stream) read(ss *session) {
	defer close(ss.done)
	if ss.prev != nil {
		// The previous session's last results come first, so the
		// transcript's committed text only grows. It ends soon after
		// its status 2, or on Close's timeout.
		<-ss.prev.done
		ss.prev = nil
	}
	fail := func(err error) {
		ss.mu.Lock()
		ss.err = err
		ss.mu.Unlock()
	}
	for {
		var resp Response
		if err := ss.ws.ReadJSON(&resp); err != nil {
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
		last := resp.Data.Status == 2
		r := speech.Result{Segment: ss.base + res.SN, Text: res.Text(), Final: last}
		if res.Pgs == "rpl" && len(res.Rg) == 2 {
			r.Replace = &speech.Range{From: ss.base + res.Rg[0], To: ss.base + res.Rg[1]}
			for sn := res.Rg[0]; sn <= res.Rg[1]; sn++ {
				delete(ss.live, sn)
			}
		}
		s.deliver(r)
		if !last {
			ss.live[res.SN] = r.Text
			continue
		}
		// The session is over: what it recognised no longer changes.
		delete(ss.live, res.SN)
		sns := make([]int, 0, len(ss.live))
		for sn := range ss.live {
			sns = append(sns, sn)
		}
		slices.Sort(sns)
		for _, sn := range sns {
			s.deliver(speech.Result{Segment: ss.base + sn, Text: ss.live[sn], Final: true})
		}
		return
	}
}
