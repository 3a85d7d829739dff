package speech_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// fakeRecognizer emits one more word per Write as a partial result and
// the words as final on Close. block, when set, makes Write wait on it.
type fakeRecognizer struct {
	block chan struct{}
	// wordBytes pads each word, to make messages large.
	wordBytes int
	// languages, when set, replaces the default zh-CN and en.
	languages []string
}

func (f *fakeRecognizer) Name() string { return "fake" }

func (f *fakeRecognizer) Languages() []string {
	if f.languages != nil {
		return f.languages
	}
	return []string{speech.LangChinese, speech.LangEnglish}
}

func (f *fakeRecognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	return &fakeStream{f: f, emit: emit}, nil
}

type fakeStream struct {
	f     *fakeRecognizer
	emit  func(speech.Result)
	words []string
}

func (s *fakeStream) Write(pcm []byte) error {
	if s.f.block != nil {
		<-s.f.block
	}
	w := fmt.Sprintf("w%d", len(s.words)+1)
	if s.f.wordBytes > 0 {
		w += strings.Repeat("x", s.f.wordBytes)
	}
	s.words = append(s.words, w)
	s.emit(speech.Result{Segment: 0, Text: strings.Join(s.words, " ")})
	return nil
}

func (s *fakeStream) Close() error {
	s.emit(speech.Result{Segment: 0, Text: strings.Join(s.words, " "), Final: true})
	return nil
}

// fakeAuth accepts "tok-ID" as user ID (username "name-ID").
var fakeAuth = speech.AuthenticatorFunc(func(ctx context.Context, token string) (speech.Principal, error) {
	id, ok := strings.CutPrefix(token, "tok-")
	if !ok {
		return speech.Principal{}, apperr.Unauthenticated("bad token")
	}
	return speech.Principal{ID: id, Username: "name-" + id}, nil
})

type harness struct {
	srv *speech.Server
	url string // ws://host/ws/
}

func newHarness(t testing.TB, cfg speech.Config, rec speech.Recognizer) *harness {
	t.Helper()
	srv := speech.NewServer(cfg, rec, fakeAuth, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeSocket(w, r, strings.TrimPrefix(r.URL.Path, "/ws/"))
	}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		hs.Close()
	})
	return &harness{srv: srv, url: "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws/"}
}

func (h *harness) dial(t testing.TB, path string, header http.Header) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(h.url+path, header)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// mustConnect dials as user id and reads the connected message.
func (h *harness) mustConnect(t testing.TB, id string) *websocket.Conn {
	t.Helper()
	ws := h.dial(t, id+"?token=tok-"+id, nil)
	if m := mustRead(t, ws); m.Type != speech.TypeConnected {
		t.Fatalf("first message %+v, want connected", m)
	}
	return ws
}

func mustRead(t testing.TB, ws *websocket.Conn) speech.Message {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m speech.Message
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

// readUntil reads messages until one of type typ (skipping heartbeats and
// transcriptions) and returns it and the transcription messages seen.
func readUntil(t testing.TB, ws *websocket.Conn, typ string) (speech.Message, []speech.Message) {
	t.Helper()
	var seen []speech.Message
	for {
		m := mustRead(t, ws)
		if m.Type == typ {
			return m, seen
		}
		if m.Type == speech.TypeTranscription {
			seen = append(seen, m)
		}
	}
}

func mustSend(t testing.TB, ws *websocket.Conn, typ string) {
	t.Helper()
	if err := ws.WriteJSON(speech.Command{Type: typ}); err != nil {
		t.Fatalf("send %s: %v", typ, err)
	}
}

// closeCode reads until the server closes and returns the close code.
func closeCode(t testing.TB, ws *websocket.Conn) int {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			t.Fatalf("connection ended without a close frame: %v", err)
		}
	}
}

func TestAuth(t *testing.T) {
	h := newHarness(t, speech.Config{}, &fakeRecognizer{})
	tests := []struct {
		name   string
		path   string
		header http.Header
		want   int // close code; 0 = connected
	}{
		{"no token", "u1", nil, websocket.ClosePolicyViolation},
		{"bad token", "u1?token=nope", nil, websocket.ClosePolicyViolation},
		{"wrong path user", "u2?token=tok-u1", nil, websocket.ClosePolicyViolation},
		{"query token", "u1?token=tok-u1", nil, 0},
		{"username in path", "name-u1?token=tok-u1", nil, 0},
		{"bearer header", "u1", http.Header{"Authorization": {"Bearer tok-u1"}}, 0},
		{"subprotocol", "u1", http.Header{"Sec-Websocket-Protocol": {"bearer, tok-u1"}}, 0},
		{"wrong user by subprotocol", "u2", http.Header{"Sec-Websocket-Protocol": {"tok-u1"}}, websocket.ClosePolicyViolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := h.dial(t, tt.path, tt.header)
			if tt.want != 0 {
				if got := closeCode(t, ws); got != tt.want {
					t.Fatalf("close code %d, want %d", got, tt.want)
				}
				return
			}
			if m := mustRead(t, ws); m.Type != speech.TypeConnected {
				t.Fatalf("got %+v, want connected", m)
			}
		})
	}
	// The answer names a protocol, never the token (issue 16): the token
	// must not come back in the response headers.
	protoTests := []struct {
		name    string
		offered []string
		want    string
	}{
		{"aimeeting.v1 then token", []string{speech.Protocol, "tok-u1"}, speech.Protocol},
		{"token then aimeeting.v1", []string{"tok-u1", speech.Protocol}, speech.Protocol},
		{"bearer marker", []string{"bearer", "tok-u1"}, "bearer"},
		{"token alone", []string{"tok-u1"}, ""},
	}
	for _, tt := range protoTests {
		t.Run("subprotocol "+tt.name, func(t *testing.T) {
			d := websocket.Dialer{Subprotocols: tt.offered}
			ws, resp, err := d.Dial(h.url+"u1", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if got := ws.Subprotocol(); got != tt.want {
				t.Errorf("subprotocol %q, want %q", got, tt.want)
			}
			for k, vs := range resp.Header {
				for _, v := range vs {
					if strings.Contains(v, "tok-u1") {
						t.Errorf("response header %s: %q echoes the token", k, v)
					}
				}
			}
			if m := mustRead(t, ws); m.Type != speech.TypeConnected {
				t.Fatalf("got %+v, want connected", m)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	h := newHarness(t, speech.Config{}, &fakeRecognizer{})
	ws := h.mustConnect(t, "u1")

	mustSend(t, ws, "ping")
	if m := mustRead(t, ws); m.Type != speech.TypePong {
		t.Fatalf("got %+v, want pong", m)
	}
	mustSend(t, ws, "dance")
	if m := mustRead(t, ws); m.Type != speech.TypeUnknownCommand {
		t.Fatalf("got %+v, want unknown_command", m)
	}
	if err := ws.WriteMessage(websocket.BinaryMessage, make([]byte, 3200)); err != nil {
		t.Fatal(err)
	}
	if m := mustRead(t, ws); m.Type != speech.TypeError || !strings.Contains(m.Message, "start_transcription") {
		t.Fatalf("audio before start: got %+v, want an error message", m)
	}
	mustSend(t, ws, "start_transcription")
	if m := mustRead(t, ws); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("got %+v, want transcription_started", m)
	}
	mustSend(t, ws, "start_transcription")
	if m := mustRead(t, ws); m.Type != speech.TypeTranscriptionAlreadyStarted {
		t.Fatalf("got %+v, want transcription_already_started", m)
	}
	for i := 0; i < 3; i++ {
		if err := ws.WriteMessage(websocket.BinaryMessage, make([]byte, 3200)); err != nil {
			t.Fatal(err)
		}
	}
	mustSend(t, ws, "get_status")
	st, partials := readUntil(t, ws, speech.TypeStatus)
	if !strings.Contains(fmt.Sprint(st.Data), "transcribing:true") {
		t.Errorf("status %+v", st)
	}
	mustSend(t, ws, "stop_transcription")
	final, more := readUntil(t, ws, speech.TypeFinal)
	partials = append(partials, more...)
	if final.FullText != "w1 w2 w3" || final.CommittedText != "w1 w2 w3" || final.LiveText != "" || final.ResultStatus != speech.ResultLast {
		t.Errorf("final %+v", final)
	}
	// Three partials, then the commit of the segment when the audio ended.
	if len(partials) != 4 || partials[3].CommittedText != "w1 w2 w3" || partials[2].LiveText != "w1 w2 w3" {
		t.Errorf("got transcription messages %+v, want 3 partials and a commit", partials)
	}
	for i, p := range partials {
		if p.Revision != i+1 {
			t.Errorf("partial %d revision %d", i, p.Revision)
		}
	}
	if m := mustRead(t, ws); m.Type != speech.TypeTranscriptionStopped {
		t.Fatalf("got %+v, want transcription_stopped", m)
	}
	mustSend(t, ws, "stop_transcription")
	if m := mustRead(t, ws); m.Type != speech.TypeError {
		t.Fatalf("stop when stopped: got %+v, want error", m)
	}
	if err := ws.WriteMessage(websocket.TextMessage, []byte("not json")); err != nil {
		t.Fatal(err)
	}
	if m := mustRead(t, ws); m.Type != speech.TypeError {
		t.Fatalf("garbage: got %+v, want error", m)
	}
}

func TestOversizedFrameCloses1009(t *testing.T) {
	h := newHarness(t, speech.Config{MaxFrameBytes: 1024}, &fakeRecognizer{})
	ws := h.mustConnect(t, "u1")
	mustSend(t, ws, "start_transcription")
	mustRead(t, ws)
	if err := ws.WriteMessage(websocket.BinaryMessage, make([]byte, 1025)); err != nil {
		t.Fatal(err)
	}
	if got := closeCode(t, ws); got != websocket.CloseMessageTooBig {
		t.Fatalf("close code %d, want 1009", got)
	}
}

func TestHeartbeatAndIdle(t *testing.T) {
	h := newHarness(t, speech.Config{HeartbeatInterval: 50 * time.Millisecond, IdleTimeout: 400 * time.Millisecond}, &fakeRecognizer{})
	ws := h.mustConnect(t, "u1")
	if m := mustRead(t, ws); m.Type != speech.TypeHeartbeat {
		t.Fatalf("got %+v, want heartbeat", m)
	}
	// Sending nothing: the idle timeout closes the socket.
	if got := closeCode(t, ws); got != websocket.ClosePolicyViolation {
		t.Fatalf("close code %d, want 1008 (idle)", got)
	}
}

func TestSocketLimitPerUser(t *testing.T) {
	h := newHarness(t, speech.Config{MaxSocketsPerUser: 2}, &fakeRecognizer{})
	a := h.mustConnect(t, "u1")
	h.mustConnect(t, "u1")
	h.mustConnect(t, "u2") // other users are not counted
	if got := closeCode(t, h.dial(t, "u1?token=tok-u1", nil)); got != websocket.ClosePolicyViolation {
		t.Fatalf("third socket: close code %d, want 1008", got)
	}
	a.Close()
	// The slot frees once the server notices.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws := h.dial(t, "u1?token=tok-u1", nil)
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		var m speech.Message
		if err := ws.ReadJSON(&m); err == nil && m.Type == speech.TypeConnected {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("slot not freed after a socket closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSocketsOfOneUserAreIndependent(t *testing.T) {
	h := newHarness(t, speech.Config{}, &fakeRecognizer{})
	a, b := h.mustConnect(t, "u1"), h.mustConnect(t, "u1")
	mustSend(t, a, "start_transcription")
	mustRead(t, a)
	a.WriteMessage(websocket.BinaryMessage, make([]byte, 320))
	if m, _ := readUntil(t, a, speech.TypeTranscription); m.FullText != "w1" {
		t.Fatalf("a: %+v", m)
	}
	mustSend(t, b, "get_status")
	if m, _ := readUntil(t, b, speech.TypeStatus); strings.Contains(fmt.Sprint(m.Data), "transcribing:true") || m.FullText != "" {
		t.Fatalf("b sees a's transcription: %+v", m)
	}
}

func TestShutdownCloses1001(t *testing.T) {
	srv := speech.NewServer(speech.Config{}, &fakeRecognizer{}, fakeAuth, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeSocket(w, r, strings.TrimPrefix(r.URL.Path, "/"))
	}))
	defer hs.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/u1?token=tok-u1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	mustRead(t, ws)
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := closeCode(t, ws); got != websocket.CloseGoingAway {
		t.Fatalf("close code %d, want 1001", got)
	}
}

func TestAudioFloodIsDropped(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	h := newHarness(t, speech.Config{MaxQueuedAudioBytes: 32000}, &fakeRecognizer{block: block})
	ws := h.mustConnect(t, "u1")
	mustSend(t, ws, "start_transcription")
	mustRead(t, ws)
	// The recogniser is stuck: the queue fills and the client is dropped.
	for i := 0; i < 20; i++ {
		if ws.WriteMessage(websocket.BinaryMessage, make([]byte, 3200)) != nil {
			break
		}
	}
	if got := closeCode(t, ws); got != websocket.ClosePolicyViolation {
		t.Fatalf("close code %d, want 1008", got)
	}
}

// A client that stops reading is dropped, and meanwhile another client's
// messages keep flowing.
func TestSlowReaderDroppedWithoutStallingOthers(t *testing.T) {
	h := newHarness(t, speech.Config{WriteTimeout: 300 * time.Millisecond, SendQueue: 8},
		&fakeRecognizer{wordBytes: 16 << 10})
	slow := h.mustConnect(t, "slow")
	mustSend(t, slow, "start_transcription")
	mustRead(t, slow)
	// The slow client sends audio but never reads again. Each message
	// carries the whole growing transcript, so socket buffers fill fast.
	slowDone := make(chan error, 1)
	go func() {
		chunk := make([]byte, 320)
		for i := 0; i < 5000; i++ {
			if err := slow.WriteMessage(websocket.BinaryMessage, chunk); err != nil {
				slowDone <- nil
				return
			}
		}
		slowDone <- errors.New("the slow client was never dropped")
	}()

	fast := h.mustConnect(t, "fast")
	mustSend(t, fast, "start_transcription")
	mustRead(t, fast)
	for i := 0; i < 20; i++ {
		fast.WriteMessage(websocket.BinaryMessage, make([]byte, 320))
		start := time.Now()
		readUntil(t, fast, speech.TypeTranscription)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("fast client waited %v for a message", d)
		}
	}
	select {
	case err := <-slowDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("slow client still connected after 20 s")
	}
}

// 50 sockets stream 3 s of audio each at once; the heap growth of the
// whole process (server and clients) stays under a bound.
func TestFiftySocketsMemoryBound(t *testing.T) {
	const (
		sockets = 50
		bound   = 16 << 20
	)
	h := newHarness(t, speech.Config{MaxSocketsPerUser: sockets}, &fakeRecognizer{})
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, sockets)
	for i := 0; i < sockets; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, _, err := websocket.DefaultDialer.Dial(h.url+"u?token=tok-u", nil)
			if err != nil {
				errs <- err
				return
			}
			defer ws.Close()
			ws.WriteJSON(speech.Command{Type: speech.CmdStart})
			chunk := make([]byte, 3200) // 100 ms
			for j := 0; j < 30; j++ {
				if err := ws.WriteMessage(websocket.BinaryMessage, chunk); err != nil {
					errs <- err
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			ws.WriteJSON(speech.Command{Type: speech.CmdStop})
			_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
			for {
				var m speech.Message
				if err := ws.ReadJSON(&m); err != nil {
					errs <- err
					return
				}
				if m.Type == speech.TypeTranscriptionStopped {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	growth := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("%d sockets: heap %d KiB before, peak %d KiB, growth %d KiB (bound %d KiB)",
		sockets, base.HeapAlloc>>10, peak.Load()>>10, growth>>10, bound>>10)
	if growth > bound {
		t.Errorf("heap grew %d KiB, bound %d KiB", growth>>10, bound>>10)
	}
}

// limitRecognizer admits one stream per user (the caller in ctx) and
// max in all, like the pocketsphinx engine.
type limitRecognizer struct {
	fakeRecognizer
	max int

	mu      sync.Mutex // protects perUser, total
	perUser map[string]int
	total   int
}

func (l *limitRecognizer) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	caller, _ := auth.FromContext(ctx)
	user := caller.UserID
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case user == "":
		return nil, errors.New("no user in the context")
	case l.perUser[user] >= 1:
		return nil, &speech.LimitError{Err: speech.ErrUserBusy, Limit: 1}
	case l.total >= l.max:
		return nil, &speech.LimitError{Err: speech.ErrBusy, Limit: l.max}
	}
	l.perUser[user]++
	l.total++
	st, _ := l.fakeRecognizer.Start(ctx, emit)
	return &limitStream{Stream: st, release: func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.perUser[user]--
		l.total--
	}}, nil
}

type limitStream struct {
	speech.Stream
	release func()
}

func (s *limitStream) Close() error { defer s.release(); return s.Stream.Close() }

// A start over the user's share or over every recogniser gets an error
// message at once, and the socket stays usable (issue 16).
func TestRecognizerLimits(t *testing.T) {
	rec := &limitRecognizer{max: 2, perUser: map[string]int{}}
	h := newHarness(t, speech.Config{}, rec)
	a1 := h.mustConnect(t, "u1")
	a2 := h.mustConnect(t, "u1")
	b := h.mustConnect(t, "u2")
	c := h.mustConnect(t, "u3")

	start := func(ws *websocket.Conn) speech.Message {
		t.Helper()
		mustSend(t, ws, speech.CmdStart)
		return mustRead(t, ws)
	}
	if m := start(a1); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("first start: %+v", m)
	}
	m := start(a2)
	if m.Type != speech.TypeError || !strings.Contains(m.Message, "stop the other one") {
		t.Fatalf("second start of one user: %+v, want an error saying to stop the other", m)
	}
	if d, _ := m.Data.(map[string]any); d["reason"] != "user_limit" || d["limit"] != float64(1) {
		t.Fatalf("user limit data %+v", m.Data)
	}
	if m := start(b); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("other user's start: %+v", m)
	}
	m = start(c)
	if m.Type != speech.TypeError || !strings.Contains(m.Message, "busy") {
		t.Fatalf("start over the global limit: %+v, want a busy error", m)
	}
	if d, _ := m.Data.(map[string]any); d["reason"] != "busy" {
		t.Fatalf("busy data %+v", m.Data)
	}
	// The refused socket still answers, and starts once a recogniser frees.
	mustSend(t, c, speech.CmdPing)
	if m := mustRead(t, c); m.Type != speech.TypePong {
		t.Fatalf("after refusal: %+v, want pong", m)
	}
	mustSend(t, b, speech.CmdStop)
	readUntil(t, b, speech.TypeTranscriptionStopped)
	if m := start(c); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("start after a stop elsewhere: %+v", m)
	}
}

// TestStartLanguage checks that start_transcription's language is honoured:
// a recogniser that cannot recognise it refuses with reason
// unsupported_language and starts nothing; one it can starts.
func TestStartLanguage(t *testing.T) {
	h := newHarness(t, speech.Config{}, &fakeRecognizer{languages: []string{speech.LangEnglish}})
	ws := h.mustConnect(t, "u1")
	refused := func(lang string) {
		t.Helper()
		if err := ws.WriteJSON(speech.Command{Type: speech.CmdStart, Language: lang}); err != nil {
			t.Fatal(err)
		}
		m := mustRead(t, ws)
		data, _ := m.Data.(map[string]any)
		if m.Type != speech.TypeError || data["reason"] != "unsupported_language" || data["language"] != lang ||
			!strings.Contains(m.Message, "type your answer") || !strings.Contains(m.Message, "en") {
			t.Fatalf("start in %q: got %+v, want an unsupported_language error", lang, m)
		}
		if langs, _ := data["languages"].([]any); len(langs) != 1 || langs[0] != "en" {
			t.Errorf("error lists languages %v, want [en]", data["languages"])
		}
	}
	refused("zh-CN")
	refused("fr")
	// Nothing started: status says so, audio is still refused.
	mustSend(t, ws, "get_status")
	if st := mustRead(t, ws); !strings.Contains(fmt.Sprint(st.Data), "transcribing:false") {
		t.Errorf("after refusals status %+v, want not transcribing", st)
	}
	if err := ws.WriteJSON(speech.Command{Type: speech.CmdStart, Language: "en-US"}); err != nil {
		t.Fatal(err)
	}
	if m := mustRead(t, ws); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("start in en-US: got %+v, want transcription_started", m)
	}

	// A bilingual recogniser starts in Chinese; an unavailable one refuses
	// every language and says speech is unavailable.
	zh := newHarness(t, speech.Config{}, &fakeRecognizer{}).mustConnect(t, "u2")
	if err := zh.WriteJSON(speech.Command{Type: speech.CmdStart, Language: "zh-CN"}); err != nil {
		t.Fatal(err)
	}
	if m := mustRead(t, zh); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("bilingual start in zh-CN: got %+v", m)
	}
	none := newHarness(t, speech.Config{}, speech.Unavailable{Reason: "none"}).mustConnect(t, "u3")
	if err := none.WriteJSON(speech.Command{Type: speech.CmdStart, Language: "en"}); err != nil {
		t.Fatal(err)
	}
	if m := mustRead(t, none); m.Type != speech.TypeError || !strings.Contains(m.Message, "unavailable") ||
		!strings.Contains(fmt.Sprint(m.Data), "unsupported_language") {
		t.Fatalf("unavailable start: got %+v", m)
	}
}
