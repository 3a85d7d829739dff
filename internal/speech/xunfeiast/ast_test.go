package xunfeiast_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/xunfeiast"
)

const (
	appID  = "app123"
	key    = "key456"
	secret = "secret789"
)

// fakeAST implements the AST protocol: it recomputes the signature, records
// the binary frames with their arrival times, answers with partials, a
// replacement and finals, and ends with ls=true after the end frame. With
// failAfter > 0 it answers the failAfter-th frame with action "error".
type fakeAST struct {
	failAfter int
	errFrame  string // sent on the failAfter-th frame

	mu     sync.Mutex // protects the fields below
	frames [][]byte
	times  []time.Time
	end    map[string]any
	query  url.Values
}

// sign is the documented algorithm, written again so that the client's
// implementation is checked, not reused.
func sign(q url.Values) string {
	var names []string
	for k := range q {
		if k != "signature" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	pairs := make([]string, len(names))
	for i, k := range names {
		pairs[i] = url.QueryEscape(k) + "=" + url.QueryEscape(q.Get(k))
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.Join(pairs, "&")))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func (f *fakeAST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k, want := range map[string]string{"accessKeyId": key, "appId": appID, "audio_encode": "pcm_s16le", "lang": "autodialect", "samplerate": "16000"} {
		if q.Get(k) != want {
			http.Error(w, fmt.Sprintf("%s=%q", k, q.Get(k)), http.StatusBadRequest)
			return
		}
	}
	if _, err := time.Parse("2006-01-02T15:04:05-0700", q.Get("utc")); err != nil || q.Get("uuid") == "" || q.Get("sessionId") == "" {
		http.Error(w, "bad utc, uuid or sessionId", http.StatusBadRequest)
		return
	}
	if q.Get("signature") != sign(q) {
		http.Error(w, "signature mismatch", http.StatusUnauthorized)
		return
	}
	ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	f.mu.Lock()
	f.query = q
	f.mu.Unlock()
	send := func(data string) {
		ws.WriteMessage(websocket.TextMessage, []byte(`{"msg_type":"result","res_type":"asr","data":`+data+`}`))
	}
	ws.WriteMessage(websocket.TextMessage, []byte(`{"action":"started","code":"0","data":"","desc":"success","sid":"s1"}`))
	st := func(typ, text string) string {
		return fmt.Sprintf(`{"type":%q,"rt":[{"ws":[{"cw":[{"w":%q}]}]}]}`, typ, text)
	}
	answers := map[int]string{
		2: `{"seg_id":0,"cn":{"st":` + st("1", "今天") + `},"ls":false}`,
		4: `{"seg_id":1,"cn":{"st":` + st("1", "天气") + `},"ls":false}`,
		6: `{"seg_id":2,"pgs":"rpl","rg":[0,1],"cn":{"st":` + st("1", "今天天气很") + `},"ls":false}`,
		8: `{"seg_id":2,"cn":{"st":{"type":"0","rt":[{"ws":[{"cw":[{"w":"今天"}]},{"cw":[{"w":"天气"}]},{"cw":[{"w":"很好。"}]}]}]}},"ls":false}`,
	}
	for {
		typ, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if typ == websocket.TextMessage {
			var end map[string]any
			_ = json.Unmarshal(msg, &end)
			f.mu.Lock()
			f.end = end
			f.mu.Unlock()
			send(`{"seg_id":3,"st":` + st("0", "再见") + `,"ls":true}`)
			return
		}
		f.mu.Lock()
		f.frames = append(f.frames, msg)
		f.times = append(f.times, time.Now())
		n := len(f.frames)
		f.mu.Unlock()
		if n == f.failAfter {
			ws.WriteMessage(websocket.TextMessage, []byte(f.errFrame))
			return
		}
		if a, ok := answers[n]; ok && f.failAfter == 0 {
			send(a)
		}
	}
}

func newRecognizer(t *testing.T, srv *httptest.Server, apiSecret string) *xunfeiast.Recognizer {
	t.Helper()
	rec, err := xunfeiast.New(xunfeiast.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/ast/communicate/v1",
		AppID: appID, APIKey: key, APISecret: apiSecret})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestStreamPacesFramesAndAssemblesResults(t *testing.T) {
	fake := &fakeAST{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	rec := newRecognizer(t, srv, secret)

	pcm := make([]byte, 1280*10+300)
	for i := range pcm {
		pcm[i] = byte(i * 7)
	}
	var mu sync.Mutex
	var got []speech.Result
	var asm speech.Assembler
	stream, err := rec.Start(context.Background(), func(r speech.Result) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r)
		asm.Apply(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	// All the audio at once: pacing is the client's job.
	for off := 0; off < len(pcm); off += 3000 {
		if err := stream.Write(pcm[off:min(off+3000, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}

	fake.mu.Lock()
	defer fake.mu.Unlock()
	if got := bytes.Join(fake.frames, nil); !bytes.Equal(got, pcm) {
		t.Fatalf("server got %d audio bytes, want the %d sent", len(got), len(pcm))
	}
	for i, fr := range fake.frames[:len(fake.frames)-1] {
		if len(fr) != 1280 {
			t.Errorf("frame %d has %d bytes, want 1280", i, len(fr))
		}
	}
	for i := 1; i < len(fake.times); i++ {
		// 40 ms apart; the client never sends sooner, but a frame late
		// on arrival (a busy machine) shortens the next gap.
		if gap := fake.times[i].Sub(fake.times[i-1]); gap < 20*time.Millisecond {
			t.Errorf("frame %d arrived %v after the previous one, want ~40ms", i, gap)
		}
	}
	total := fake.times[len(fake.times)-1].Sub(fake.times[0])
	t.Logf("%d frames over %v (%v a frame)", len(fake.times), total, total/time.Duration(len(fake.times)-1))
	if want := 40 * time.Millisecond * time.Duration(len(fake.times)-1); total < want-20*time.Millisecond || total > want*2 {
		t.Errorf("%d frames took %v, want about %v", len(fake.times), total, want)
	}
	if fake.end["end"] != true || fake.end["sessionId"] != fake.query.Get("sessionId") {
		t.Errorf("end frame %v, session %s", fake.end, fake.query.Get("sessionId"))
	}

	mu.Lock()
	defer mu.Unlock()
	b, _ := json.Marshal(got)
	if len(got) != 5 {
		t.Fatalf("results %s", b)
	}
	if got[0].Final || got[1].Final || got[2].Final || !got[3].Final || !got[4].Final {
		t.Errorf("partial/final flags wrong: %s", b)
	}
	if got[2].Replace == nil || *got[2].Replace != (speech.Range{From: 0, To: 1}) || got[2].Segment != 2 {
		t.Errorf("replacement not passed on: %s", b)
	}
	if snap := asm.Snapshot(); snap.Full != "今天天气很好。再见" || !snap.Final {
		t.Errorf("transcript %+v", snap)
	}
}

func TestErrorActionIsSurfaced(t *testing.T) {
	for _, tc := range []struct{ name, frame string }{
		{"top level", `{"action":"error","code":"37005","data":"","desc":"client idle too long","sid":"s1"}`},
		{"inside data", `{"msg_type":"action","data":{"action":"error","code":37005,"desc":"client idle too long"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakeAST{failAfter: 2, errFrame: tc.frame})
			defer srv.Close()
			stream, err := newRecognizer(t, srv, secret).Start(context.Background(), func(speech.Result) {})
			if err != nil {
				t.Fatal(err)
			}
			_ = stream.Write(make([]byte, 1280*5))
			err = stream.Close()
			if err == nil || !strings.Contains(err.Error(), "37005") || !strings.Contains(err.Error(), "client idle too long") {
				t.Fatalf("Close = %v, want the service's error 37005", err)
			}
			// Writes after the failure report it too.
			if werr := stream.Write([]byte{1, 2}); werr == nil {
				t.Error("Write after an error succeeded")
			}
		})
	}
}

func TestCancelledContextEndsTheStream(t *testing.T) {
	srv := httptest.NewServer(&fakeAST{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := newRecognizer(t, srv, secret).Start(ctx, func(speech.Result) {})
	if err != nil {
		t.Fatal(err)
	}
	_ = stream.Write(make([]byte, 1280*100)) // 4 s at the service's pace
	time.Sleep(100 * time.Millisecond)
	cancel()
	start := time.Now()
	if err := stream.Close(); err == nil {
		t.Error("Close after cancel reported no error")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v after cancel", d)
	}
}

func TestBadSignatureRejected(t *testing.T) {
	srv := httptest.NewServer(&fakeAST{})
	defer srv.Close()
	if _, err := newRecognizer(t, srv, "wrong").Start(context.Background(), func(speech.Result) {}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a wrong secret: %v, want HTTP 401", err)
	}
}

func TestCanonicalQuery(t *testing.T) {
	q := xunfeiast.CanonicalQuery(map[string]string{"utc": "2025-09-04T15:38:07+0800", "appId": "a b", "signature": "x", "accessKeyId": "k"})
	if want := "accessKeyId=k&appId=a+b&utc=2025-09-04T15%3A38%3A07%2B0800"; q != want {
		t.Errorf("CanonicalQuery = %q, want %q", q, want)
	}
	// HMAC-SHA1("key", "The quick brown fox jumps over the lazy dog"), RFC 2104 test vector.
	if got := xunfeiast.Signature("The quick brown fox jumps over the lazy dog", "key"); got != "3nybhbi3iqa8ino29wqQcBydtNk=" {
		t.Errorf("Signature = %q", got)
	}
}

func TestNewRequiresCredentials(t *testing.T) {
	if _, err := xunfeiast.New(xunfeiast.Config{AppID: "a"}); err == nil {
		t.Error("missing key and secret accepted")
	}
}
