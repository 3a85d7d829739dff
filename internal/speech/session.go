package speech

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
)

// Principal is the authenticated user of a socket.
type Principal struct {
	ID       string
	Username string
}

// Authenticator resolves a login token. An invalid token is an
// apperr.KindUnauthenticated error.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (Principal, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(ctx context.Context, token string) (Principal, error)

// Authenticate implements Authenticator.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, token string) (Principal, error) {
	return f(ctx, token)
}

// Config tunes the sockets. Zero values take the defaults.
type Config struct {
	// MaxSocketsPerUser bounds one user's open sockets (default 5).
	MaxSocketsPerUser int
	// IdleTimeout closes a socket that sent no frame this long (default 60 s).
	IdleTimeout time.Duration
	// MaxFrameBytes is the largest client frame; larger closes with 1009
	// (default 64 KiB).
	MaxFrameBytes int64
	// HeartbeatInterval between heartbeat messages (default 30 s).
	HeartbeatInterval time.Duration
	// WriteTimeout bounds one write to the client; a client that does not
	// read is dropped after it (default 10 s).
	WriteTimeout time.Duration
	// SendQueue is how many messages may wait for the writer; a client
	// slower than that is dropped (default 64).
	SendQueue int
	// MaxQueuedAudioBytes is audio received but not yet recognised; a
	// client that floods more is dropped (default 10 s of audio).
	MaxQueuedAudioBytes int64
}

func (c Config) withDefaults() Config {
	if c.MaxSocketsPerUser <= 0 {
		c.MaxSocketsPerUser = 5
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 60 * time.Second
	}
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = 64 << 10
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 64
	}
	if c.MaxQueuedAudioBytes <= 0 {
		c.MaxQueuedAudioBytes = 10 * BytesPerSecond
	}
	return c
}

// Close codes used besides the standard ones.
const (
	closePolicy   = websocket.ClosePolicyViolation // 1008: auth, limits, floods, slow readers
	closeTooBig   = websocket.CloseMessageTooBig   // 1009
	closeGoingAwy = websocket.CloseGoingAway       // 1001: shutdown
)

// Server runs the transcription sockets.
type Server struct {
	cfg      Config
	rec      Recognizer
	auth     Authenticator
	metrics  *Metrics
	upgrader websocket.Upgrader
	base     context.Context
	stop     context.CancelFunc
	wg       sync.WaitGroup // one per running socket

	mu      sync.Mutex // protects perUser, conns, closing
	perUser map[string]int
	conns   map[*conn]struct{}
	closing bool
}

// NewServer returns a socket server using rec; metrics may be nil.
func NewServer(cfg Config, rec Recognizer, auth Authenticator, metrics *Metrics) *Server {
	base, stop := context.WithCancel(context.Background())
	s := &Server{cfg: cfg.withDefaults(), rec: rec, auth: auth, metrics: metrics, base: base, stop: stop,
		perUser: map[string]int{}, conns: map[*conn]struct{}{}}
	s.upgrader = websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 4096,
		// The socket authenticates with a token the page must hold, never
		// with cookies, so another origin gains nothing: allow any origin.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return s
}

// Provider is the name of the recogniser.
func (s *Server) Provider() string { return s.rec.Name() }

// Protocol is the subprotocol name of the transcription socket. A browser
// sends its token as a subprotocol next to it,
// new WebSocket(url, ["aimeeting.v1", token]), and the server answers
// "aimeeting.v1": a browser fails a handshake whose answer names none of
// the offered protocols, and answering the token itself would echo a
// secret into response headers, proxies' logs and the page's
// WebSocket.protocol.
const Protocol = "aimeeting.v1"

// knownProtocols are the offered subprotocols that are names, never
// tokens: Protocol, and the markers older clients put before their token
// (["bearer", token]), which are answered as themselves.
var knownProtocols = map[string]bool{Protocol: true, "bearer": true, "token": true, "access_token": true, "authorization": true}

// tokenOf finds the token: ?token=, Authorization: Bearer, or the first
// offered subprotocol that is not a known name. It returns the subprotocol
// to answer: Protocol when offered, else an offered marker, else none. The
// answer is always one of knownProtocols, never the token.
func tokenOf(r *http.Request) (token, subprotocol string) {
	protos := websocket.Subprotocols(r)
	for _, p := range protos {
		if p == Protocol {
			subprotocol = p
			break
		}
		if subprotocol == "" && knownProtocols[strings.ToLower(p)] {
			subprotocol = p
		}
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t, subprotocol
	}
	if h := r.Header.Get("Authorization"); h != "" {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:]), subprotocol
		}
		return strings.TrimSpace(h), subprotocol
	}
	for _, p := range protos {
		if !knownProtocols[strings.ToLower(p)] {
			return p, subprotocol
		}
	}
	return "", subprotocol
}

// Authenticate resolves the request's token (see tokenOf) and returns the
// subprotocol to answer (never the token).
func (s *Server) Authenticate(r *http.Request) (Principal, string, error) {
	token, proto := tokenOf(r)
	if token == "" {
		return Principal{}, proto, apperr.Unauthenticated("no token: send ?token=, Authorization: Bearer or Sec-WebSocket-Protocol")
	}
	who, err := s.auth.Authenticate(r.Context(), token)
	return who, proto, err
}

// ServeSocket upgrades the request and runs the socket of pathUser until it
// closes. The path user must be the token's user (by id or username).
func (s *Server) ServeSocket(w http.ResponseWriter, r *http.Request, pathUser string) {
	who, proto, authErr := s.Authenticate(r)
	var header http.Header
	if proto != "" {
		header = http.Header{"Sec-Websocket-Protocol": {proto}}
	}
	ws, err := s.upgrader.Upgrade(w, r, header)
	if err != nil {
		return // the upgrader wrote the HTTP error
	}
	reject := func(code int, label, reason string) {
		s.metrics.rejected(label)
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		_ = ws.Close()
	}
	switch {
	case authErr != nil && apperr.Is(authErr, apperr.KindUnauthenticated):
		reject(closePolicy, "unauthenticated", "unauthenticated")
		return
	case authErr != nil:
		reject(websocket.CloseInternalServerErr, "auth_error", "authentication failed")
		return
	case pathUser != who.ID && pathUser != who.Username:
		reject(closePolicy, "wrong_user", "the path user is not the token's user")
		return
	}
	c, code, reason := s.register(ws, who)
	if c == nil {
		reject(code, "limit", reason)
		return
	}
	defer s.unregister(c)
	c.lang = httpx.Language(r.Header.Get("Accept-Language"))
	c.run()
}

// register admits the socket, or returns the close code and reason.
func (s *Server) register(ws *websocket.Conn, who Principal) (*conn, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, closeGoingAwy, "server shutting down"
	}
	if s.perUser[who.ID] >= s.cfg.MaxSocketsPerUser {
		return nil, closePolicy, fmt.Sprintf("at most %d sockets per user", s.cfg.MaxSocketsPerUser)
	}
	s.perUser[who.ID]++
	// The user travels in the context to the recogniser, which bounds
	// each user's share of decoders.
	ctx, cancel := context.WithCancel(auth.NewContext(s.base, auth.Caller{UserID: who.ID, Username: who.Username}))
	c := &conn{s: s, ws: ws, user: who, ctx: ctx, cancel: cancel, out: make(chan []byte, s.cfg.SendQueue)}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.metrics.opened()
	return c, 0, ""
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	if s.perUser[c.user.ID]--; s.perUser[c.user.ID] <= 0 {
		delete(s.perUser, c.user.ID)
	}
	delete(s.conns, c)
	s.mu.Unlock()
	s.metrics.closed()
	s.wg.Done()
}

// Shutdown closes every socket with 1001 (going away) and waits for them
// to finish, at most until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for c := range s.conns {
		c.close(closeGoingAwy, "server shutting down")
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	defer s.stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("speech sockets still open: %w", ctx.Err())
	}
}

// conn is one socket. The handler goroutine reads frames (run), a writer
// goroutine owns every data write, and a recogniser goroutine runs while a
// transcription is on. ctx is cancelled on close, for whatever reason.
type conn struct {
	s      *Server
	ws     *websocket.Conn
	user   Principal
	ctx    context.Context
	cancel context.CancelFunc
	out    chan []byte // encoded messages for the writer
	lang   string      // the upgrade request's Accept-Language: errors are sent in it

	closeOnce   sync.Once
	closeCode   int    // set once, before cancel
	closeReason string // set once, before cancel

	// tr is the transcription in progress; only the reader goroutine
	// touches the field.
	tr *transcription
}

// transcription is one start..stop run of the recogniser.
type transcription struct {
	audio  chan []byte // frames for the recogniser goroutine
	queued atomic.Int64
	done   chan struct{} // closed when the recogniser goroutine ended

	mu  sync.Mutex // protects asm, sent
	asm Assembler
	// sent counts transcription messages, for resultStatus.
	sent int
}

// close records why the socket ends and cancels it; the first call wins.
func (c *conn) close(code int, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = code, reason
		c.cancel()
	})
}

// send queues m for the writer without blocking; a full queue means the
// client does not keep up, and it is dropped.
func (c *conn) send(m Message) {
	if (m.Type == TypeError || m.Type == TypeUnknownCommand) && c.lang == apperr.LangZH {
		if zh, ok := apperr.Translate(m.Message); ok {
			m.Message = zh
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	select {
	case <-c.ctx.Done():
	case c.out <- b:
	default:
		c.s.metrics.dropped("slow_consumer")
		c.close(closePolicy, "client too slow: message queue full")
	}
}

// writer is the only goroutine writing data frames. On close it sends the
// close frame and closes the network connection, which ends the reader.
func (c *conn) writer(done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(c.s.cfg.HeartbeatInterval)
	defer tick.Stop()
	write := func(b []byte) bool {
		_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteTimeout))
		if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
			c.s.metrics.dropped("write_failed")
			c.close(closePolicy, "write failed")
			return false
		}
		return true
	}
	for {
		select {
		case <-c.ctx.Done():
			code, reason := c.closeCode, c.closeReason
			_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
			_ = c.ws.Close()
			return
		case b := <-c.out:
			if !write(b) {
				continue
			}
		case <-tick.C:
			b, _ := json.Marshal(newMessage(TypeHeartbeat, "heartbeat"))
			write(b)
		}
	}
}

// run reads frames until the socket closes, then stops the transcription
// and waits for the writer.
func (c *conn) run() {
	writerDone := make(chan struct{})
	go c.writer(writerDone)
	defer func() {
		c.close(websocket.CloseNormalClosure, "")
		c.stopTranscription(false)
		<-writerDone
	}()
	c.ws.SetReadLimit(c.s.cfg.MaxFrameBytes)
	hello := newMessage(TypeConnected, "connected; send start_transcription, then PCM s16le 16 kHz mono")
	hello.Data = Status{UserID: c.user.ID, Provider: c.s.rec.Name()}
	c.send(hello)
	for {
		_ = c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.IdleTimeout))
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			var ne net.Error
			switch {
			case errors.Is(err, websocket.ErrReadLimit):
				// gorilla already sent the 1009 close frame.
				c.s.metrics.dropped("frame_too_big")
				c.close(closeTooBig, fmt.Sprintf("frame larger than %d bytes", c.s.cfg.MaxFrameBytes))
			case errors.As(err, &ne) && ne.Timeout() && c.ctx.Err() == nil:
				c.s.metrics.dropped("idle")
				c.close(closePolicy, "idle timeout")
			}
			return
		}
		switch typ {
		case websocket.TextMessage:
			c.command(data)
		case websocket.BinaryMessage:
			c.audio(data)
		}
		if c.ctx.Err() != nil {
			return
		}
	}
}

func (c *conn) command(data []byte) {
	var cmd Command
	if err := json.Unmarshal(data, &cmd); err != nil {
		c.send(newMessage(TypeError, `text frames must be JSON {"type": "ping" | "start_transcription" | "stop_transcription" | "get_status"}`))
		return
	}
	switch cmd.Type {
	case CmdPing:
		c.send(newMessage(TypePong, "pong"))
	case CmdStart:
		if cmd.Language != "" && !c.languageOK(cmd.Language) {
			return
		}
		c.startTranscription()
	case CmdStop:
		if c.tr == nil {
			c.send(newMessage(TypeError, "no transcription is running: send start_transcription first"))
			return
		}
		c.stopTranscription(true)
	case CmdState:
		m := newMessage(TypeStatus, "status")
		st := Status{UserID: c.user.ID, Provider: c.s.rec.Name(), Transcribing: c.tr != nil}
		if c.tr != nil {
			st.QueuedAudioBytes = c.tr.queued.Load()
			c.tr.mu.Lock()
			m = m.withSnapshot(c.tr.asm.Snapshot())
			c.tr.mu.Unlock()
		}
		m.Data = st
		c.send(m)
	default:
		m := newMessage(TypeUnknownCommand, fmt.Sprintf("unknown command %q: use ping, start_transcription, stop_transcription or get_status", cmd.Type))
		m.Data = map[string]string{"command": cmd.Type}
		c.send(m)
	}
}

// languageOK reports whether the recogniser recognises tag, else answers
// an error with reason unsupported_language.
func (c *conn) languageOK(tag string) bool {
	langs := c.s.rec.Languages()
	lang, known := NormalizeLanguage(tag)
	if known && Supports(c.s.rec, lang) {
		return true
	}
	var msg string
	if len(langs) == 0 {
		msg = "speech recognition is unavailable on this server: type your answer instead"
	} else {
		msg = fmt.Sprintf("this server's speech recogniser (%s) cannot recognise language %q, only %s: "+
			"type your answer, or start again with one of those languages", c.s.rec.Name(), tag, strings.Join(langs, ", "))
	}
	m := newMessage(TypeError, msg)
	m.Data = map[string]any{"provider": c.s.rec.Name(), "reason": "unsupported_language",
		"language": tag, "languages": langs}
	c.send(m)
	return false
}

func (c *conn) startTranscription() {
	if c.tr != nil {
		c.send(newMessage(TypeTranscriptionAlreadyStarted, "transcription already started"))
		return
	}
	tr := &transcription{
		// Frames are bounded by bytes (queued); the channel only needs
		// room for the smallest frames within that budget.
		audio: make(chan []byte, 256),
		done:  make(chan struct{}),
	}
	stream, err := c.s.rec.Start(c.ctx, func(r Result) { c.emit(tr, r) })
	if err != nil {
		// Refusals answer at once, never wait: the page says why.
		msg, reason := "could not start the recogniser", "failed"
		limit := 0
		var le *LimitError
		if errors.As(err, &le) {
			limit = le.Limit
		}
		switch {
		case errors.Is(err, ErrUserBusy):
			msg, reason = fmt.Sprintf("you already run %d speech transcription(s), the most one user may at once: "+
				"stop the other one (stop_transcription, or close its page) and start again", limit), "user_limit"
		case errors.Is(err, ErrBusy):
			msg, reason = "every speech recogniser of this server is busy; try again in a few seconds", "busy"
		}
		m := newMessage(TypeError, msg)
		data := map[string]any{"provider": c.s.rec.Name(), "reason": reason}
		if limit > 0 {
			data["limit"] = limit
		}
		m.Data = data
		c.send(m)
		return
	}
	c.tr = tr
	go c.recognize(tr, stream)
	m := newMessage(TypeTranscriptionStarted, "transcription started")
	m.Data = map[string]string{"provider": c.s.rec.Name()}
	c.send(m)
}

// recognize feeds the recogniser until the audio channel closes.
func (c *conn) recognize(tr *transcription, stream Stream) {
	defer close(tr.done)
	failed := false
	for pcm := range tr.audio {
		tr.queued.Add(-int64(len(pcm)))
		if failed || c.ctx.Err() != nil {
			continue // drain: the socket is gone or the recogniser failed
		}
		if err := stream.Write(pcm); err != nil {
			failed = true
			if c.ctx.Err() == nil {
				c.send(newMessage(TypeError, "speech recognition failed; send stop_transcription and start again"))
			}
		}
	}
	if err := stream.Close(); err != nil && !failed && c.ctx.Err() == nil {
		c.send(newMessage(TypeError, "speech recognition failed at the end of the audio"))
	}
}

// emit merges a recogniser result and sends the snapshot when the visible
// text changed.
func (c *conn) emit(tr *transcription, r Result) {
	tr.mu.Lock()
	snap, changed := tr.asm.Apply(r)
	status := ResultPartial
	if changed {
		if tr.sent == 0 {
			status = ResultFirst
		}
		tr.sent++
	}
	tr.mu.Unlock()
	if !changed {
		return
	}
	m := newMessage(TypeTranscription, "").withSnapshot(snap)
	m.ResultStatus = status
	c.send(m)
}

func (c *conn) audio(pcm []byte) {
	tr := c.tr
	if tr == nil {
		c.send(newMessage(TypeError, "audio received before start_transcription: send {\"type\": \"start_transcription\"} first"))
		return
	}
	if len(pcm) == 0 {
		return
	}
	if tr.queued.Add(int64(len(pcm))) > c.s.cfg.MaxQueuedAudioBytes {
		c.s.metrics.dropped("audio_flood")
		c.close(closePolicy, "audio arrives faster than it can be recognised")
		return
	}
	c.s.metrics.audio(len(pcm))
	select {
	case tr.audio <- pcm:
	default:
		c.s.metrics.dropped("audio_flood")
		c.close(closePolicy, "audio arrives faster than it can be recognised")
	}
}

// stopTranscription ends the audio, waits for the recogniser's last
// results and, when report is set, sends final and transcription_stopped.
func (c *conn) stopTranscription(report bool) {
	tr := c.tr
	if tr == nil {
		return
	}
	c.tr = nil
	close(tr.audio)
	<-tr.done
	if !report {
		return
	}
	tr.mu.Lock()
	snap, _ := tr.asm.Finish()
	tr.mu.Unlock()
	m := newMessage(TypeFinal, "final transcript").withSnapshot(snap)
	m.ResultStatus = ResultLast
	c.send(m)
	c.send(newMessage(TypeTranscriptionStopped, "transcription stopped"))
}
