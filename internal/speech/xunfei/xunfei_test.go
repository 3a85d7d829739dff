package xunfei_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/xunfei"
)

const (
	appID  = "app123"
	key    = "key456"
	secret = "secret789"
)

// fakeIAT implements the iat v2 protocol: it checks the signature, reads
// frames 0/1/2 and answers with wpgs results (apd, then rpl).
type fakeIAT struct {
	t     *testing.T
	now   time.Time
	audio bytes.Buffer
}

var authRe = regexp.MustCompile(`^api_key="([^"]*)", algorithm="hmac-sha256", headers="host date request-line", signature="([^"]*)"$`)

func (f *fakeIAT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	raw, err := base64.StdEncoding.DecodeString(q.Get("authorization"))
	if err != nil {
		http.Error(w, "authorization not base64", http.StatusUnauthorized)
		return
	}
	m := authRe.FindStringSubmatch(string(raw))
	if m == nil || m[1] != key {
		http.Error(w, "bad authorization "+string(raw), http.StatusUnauthorized)
		return
	}
	date := q.Get("date")
	d, err := time.Parse(time.RFC1123, date)
	if err != nil || !strings.HasSuffix(date, " GMT") || d.Sub(f.now).Abs() > 5*time.Minute {
		http.Error(w, "bad date "+date, http.StatusUnauthorized)
		return
	}
	if q.Get("host") != r.Host {
		http.Error(w, "host mismatch", http.StatusUnauthorized)
		return
	}
	want := xunfei.Signature(r.Host, date, "GET "+r.URL.Path+" HTTP/1.1", secret)
	if m[2] != want {
		http.Error(w, "signature mismatch", http.StatusUnauthorized)
		return
	}
	ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	results := []string{
		`{"sn":1,"ls":false,"pgs":"apd","ws":[{"cw":[{"w":"今天"}]}]}`,
		`{"sn":2,"ls":false,"pgs":"apd","ws":[{"cw":[{"w":"天气"}]}]}`,
		`{"sn":3,"ls":false,"pgs":"rpl","rg":[1,2],"ws":[{"cw":[{"w":"今天"}]},{"cw":[{"w":"天气"}]},{"cw":[{"w":"很好"}]}]}`,
	}
	frames := 0
	for {
		var fr xunfei.Frame
		if err := ws.ReadJSON(&fr); err != nil {
			f.t.Errorf("read frame: %v", err)
			return
		}
		if frames == 0 && (fr.Data.Status != 0 || fr.Common == nil || fr.Common.AppID != appID || fr.Business == nil || fr.Business.DWA != "wpgs") {
			f.t.Errorf("first frame %+v", fr)
		}
		if frames > 0 && fr.Common != nil {
			f.t.Errorf("frame %d repeats common", frames)
		}
		if fr.Data.Format != "audio/L16;rate=16000" || fr.Data.Encoding != "raw" {
			f.t.Errorf("frame format %q encoding %q", fr.Data.Format, fr.Data.Encoding)
		}
		pcm, _ := base64.StdEncoding.DecodeString(fr.Data.Audio)
		f.audio.Write(pcm)
		if frames < len(results) {
			ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"code":0,"message":"success","sid":"s1","data":{"status":1,"result":%s}}`, results[frames]))
		}
		frames++
		if fr.Data.Status == 2 {
			ws.WriteMessage(websocket.TextMessage, []byte(`{"code":0,"message":"success","sid":"s1","data":{"status":2,"result":{"sn":4,"ls":true,"pgs":"apd","ws":[{"cw":[{"w":"。"}]}]}}}`))
			return
		}
	}
}

func TestStream(t *testing.T) {
	now := time.Now()
	fake := &fakeIAT{t: t, now: now}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	rec, err := xunfei.New(xunfei.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v2/iat",
		AppID: appID, APIKey: key, APISecret: secret, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]byte, 1280*4+100)
	for i := range pcm {
		pcm[i] = byte(i)
	}
	var got []speech.Result
	var asm speech.Assembler
	stream, err := rec.Start(context.Background(), func(r speech.Result) { got = append(got, r); asm.Apply(r) })
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(pcm); off += 1000 {
		if err := stream.Write(pcm[off:min(off+1000, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fake.audio.Bytes(), pcm) {
		t.Errorf("server got %d audio bytes, want the %d sent", fake.audio.Len(), len(pcm))
	}
	// The last result, then the session's live segment made final.
	if len(got) != 5 || got[2].Replace == nil || *got[2].Replace != (speech.Range{From: 1, To: 2}) || !got[3].Final ||
		got[4] != (speech.Result{Segment: 3, Text: "今天天气很好", Final: true}) {
		b, _ := json.Marshal(got)
		t.Errorf("results %s", b)
	}
	if full := asm.Snapshot().Full; full != "今天天气很好。" {
		t.Errorf("transcript %q", full)
	}
}

func TestBadSignatureRejected(t *testing.T) {
	now := time.Now()
	srv := httptest.NewServer(&fakeIAT{t: t, now: now})
	defer srv.Close()
	rec, _ := xunfei.New(xunfei.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v2/iat",
		AppID: appID, APIKey: key, APISecret: "wrong", Now: func() time.Time { return now }})
	if _, err := rec.Start(context.Background(), func(speech.Result) {}); err == nil {
		t.Fatal("a wrong secret was accepted")
	}
}

func TestSignURL(t *testing.T) {
	// The documented example shape: the query carries authorization, date, host.
	at := time.Date(2021, 4, 19, 3, 14, 1, 0, time.UTC)
	signed, err := xunfei.SignURL("wss://iat-api.xfyun.cn/v2/iat", "k", "s", at)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(signed, "date=Mon%2C+19+Apr+2021+03%3A14%3A01+GMT") || !strings.Contains(signed, "host=iat-api.xfyun.cn") {
		t.Errorf("signed URL %s", signed)
	}
}

// fakeLimitedIAT is an iat server that cuts a session after limit, in
// audio or in time, with iFlytek's error, as the real one does at 60 s.
// Each frame's first two bytes number it; the fake answers frame k of a
// session with the word "w<number>" as sn k, and sn 2 replaces 1..2 with
// both words (pgs=rpl), so the transcript shows every frame in order.
type fakeLimitedIAT struct {
	limit time.Duration
	// hold keeps a session's results until its end, and delays them by
	// 100 ms when it was renewed (more than half the limit of audio): a
	// slow old session, whose results come after the next one's.
	hold bool

	mu       sync.Mutex // protects the fields below
	sessions int
	longest  time.Duration // most audio one session received
}

func (f *fakeLimitedIAT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	f.mu.Lock()
	f.sessions++
	f.mu.Unlock()
	start, audio, sn := time.Now(), 0, 0
	var words []string
	var held [][]byte
	reply := func(status int, res string) {
		msg := fmt.Appendf(nil, `{"code":0,"message":"success","sid":"s","data":{"status":%d,"result":%s}}`, status, res)
		if f.hold && status != 2 {
			held = append(held, msg)
			return
		}
		for _, m := range held {
			ws.WriteMessage(websocket.TextMessage, m)
		}
		ws.WriteMessage(websocket.TextMessage, msg)
	}
	for {
		var fr xunfei.Frame
		if err := ws.ReadJSON(&fr); err != nil {
			return
		}
		pcm, _ := base64.StdEncoding.DecodeString(fr.Data.Audio)
		audio += len(pcm)
		d := time.Duration(audio) * time.Second / speech.BytesPerSecond
		f.mu.Lock()
		f.longest = max(f.longest, d)
		f.mu.Unlock()
		if d > f.limit || time.Since(start) > f.limit {
			ws.WriteMessage(websocket.TextMessage, []byte(`{"code":10163,"message":"audio longer than the session allows","sid":"s"}`))
			// Close as a server does: a close frame, then read until the
			// client's frames stop. Closing with unread frames makes the
			// kernel reset the connection, and the client could see the
			// reset before the error frame (a flaky test, not a bug).
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			ws.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			for {
				if _, _, err := ws.ReadMessage(); err != nil {
					return
				}
			}
		}
		if len(pcm) >= 2 {
			sn++
			words = append(words, "w"+strconv.Itoa(int(pcm[0])|int(pcm[1])<<8))
			if sn == 2 {
				reply(1, fmt.Sprintf(`{"sn":2,"pgs":"rpl","rg":[1,2],"ws":[{"cw":[{"w":%q}]},{"cw":[{"w":" %s"}]}]}`, words[0], words[1]))
			} else {
				reply(1, fmt.Sprintf(`{"sn":%d,"pgs":"apd","ws":[{"cw":[{"w":%q}]}]}`, sn, words[len(words)-1]))
			}
		}
		if fr.Data.Status == 2 {
			if f.hold && time.Duration(audio)*time.Second/speech.BytesPerSecond > f.limit/2 {
				time.Sleep(100 * time.Millisecond)
			}
			reply(2, fmt.Sprintf(`{"sn":%d,"ls":true,"pgs":"apd","ws":[]}`, sn+1))
			return
		}
	}
}

// numberedAudio is frames frames of 1280 bytes, each starting with its number.
func numberedAudio(frames int) []byte {
	pcm := make([]byte, 1280*frames)
	for i := range frames {
		pcm[i*1280], pcm[i*1280+1] = byte(i), byte(i>>8)
	}
	return pcm
}

func TestSessionRenewedBeforeTheLimit(t *testing.T) {
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprintf("hold=%v", hold), func(t *testing.T) { testSessionRenewed(t, hold) })
	}
}

func testSessionRenewed(t *testing.T, hold bool) {
	fake := &fakeLimitedIAT{limit: 2 * time.Second, hold: hold}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	rec, err := xunfei.New(xunfei.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v2/iat",
		AppID: appID, APIKey: key, APISecret: secret, SessionLimit: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const frames = 200 // 8 s of audio, four sessions' worth
	var mu sync.Mutex
	var asm speech.Assembler
	var committed []string // every committed text, in order
	stream, err := rec.Start(context.Background(), func(r speech.Result) {
		mu.Lock()
		defer mu.Unlock()
		if snap, _ := asm.Apply(r); snap.Committed != "" {
			committed = append(committed, snap.Committed)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	pcm := numberedAudio(frames)
	for off := 0; off < len(pcm); off += 3200 {
		if err := stream.Write(pcm[off:min(off+3200, len(pcm))]); err != nil {
			t.Fatalf("Write at %d bytes: %v", off, err)
		}
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	sessions, longest := fake.sessions, fake.longest
	fake.mu.Unlock()
	if sessions < 4 || longest > 2*time.Second {
		t.Errorf("%d sessions, the longest %v of audio; want >= 4 sessions within the 2s limit", sessions, longest)
	}
	mu.Lock()
	defer mu.Unlock()
	words := strings.Fields(asm.Snapshot().Full)
	if len(words) != frames {
		t.Fatalf("transcript has %d words, want %d: %q", len(words), frames, asm.Snapshot().Full)
	}
	for i, w := range words {
		if w != "w"+strconv.Itoa(i) {
			t.Fatalf("word %d is %q, want w%d (audio lost or reordered across sessions)", i, w, i)
		}
	}
	// A renewed session's text was committed before the stream ended.
	if len(committed) == 0 || len(strings.Fields(committed[0])) >= frames {
		t.Errorf("nothing was committed before the end (%d commits)", len(committed))
	}
	for i := 1; i < len(committed); i++ {
		if !strings.HasPrefix(committed[i], committed[i-1]) {
			t.Fatalf("committed text went back: %q then %q", committed[i-1], committed[i])
		}
	}
}

func TestWithoutRenewalTheFakeCutsTheSession(t *testing.T) {
	srv := httptest.NewServer(&fakeLimitedIAT{limit: 2 * time.Second})
	defer srv.Close()
	rec, _ := xunfei.New(xunfei.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v2/iat",
		AppID: appID, APIKey: key, APISecret: secret, SessionLimit: time.Hour})
	stream, err := rec.Start(context.Background(), func(speech.Result) {})
	if err != nil {
		t.Fatal(err)
	}
	_ = stream.Write(numberedAudio(100)) // 4 s in one session
	if err := stream.Close(); err == nil || !strings.Contains(err.Error(), "10163") {
		t.Fatalf("Close = %v, want the fake's 10163 cut", err)
	}
}

// A slow stream (less audio than time) is renewed on time too: the fake
// cuts a session open longer than its limit.
func TestSessionRenewedOnTime(t *testing.T) {
	fake := &fakeLimitedIAT{limit: time.Second}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	rec, _ := xunfei.New(xunfei.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v2/iat",
		AppID: appID, APIKey: key, APISecret: secret, SessionLimit: time.Second})
	var mu sync.Mutex
	var asm speech.Assembler
	stream, err := rec.Start(context.Background(), func(r speech.Result) { mu.Lock(); asm.Apply(r); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	pcm := numberedAudio(16)
	for i := range 16 { // 0.64 s of audio over 1.6 s
		if err := stream.Write(pcm[i*1280 : (i+1)*1280]); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if words := strings.Fields(asm.Snapshot().Full); len(words) != 16 || words[15] != "w15" {
		t.Errorf("transcript %q", asm.Snapshot().Full)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.sessions < 2 {
		t.Errorf("%d sessions, want a renewal", fake.sessions)
	}
}
