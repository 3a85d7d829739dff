package xunfei_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/xunfei"
)

const (
	appID  = "app123"
	key    = "key-abc"
	secret = "secret-xyz"
)

// fakeXunfei implements the documented task protocol: signed dts_create,
// dts_query (task_status 1 → 3 → 5, the audio URL base64-encoded in
// payload.audio.audio) and the audio download.
type fakeXunfei struct {
	t   *testing.T
	srv *httptest.Server
	pcm []byte

	mu      sync.Mutex // protects tasks, created
	tasks   map[string]int
	created []xunfei.CreateRequest
}

var authRe = regexp.MustCompile(`^api_key="([^"]+)", algorithm="hmac-sha256", headers="host date request-line", signature="([^"]+)"$`)

// verify checks the request's signature as the real service does.
func (f *fakeXunfei) verify(r *http.Request) error {
	q := r.URL.Query()
	raw, err := base64.StdEncoding.DecodeString(q.Get("authorization"))
	if err != nil {
		return fmt.Errorf("authorization is not base64")
	}
	m := authRe.FindStringSubmatch(string(raw))
	if m == nil {
		return fmt.Errorf("authorization %q malformed", raw)
	}
	if m[1] != key {
		return fmt.Errorf("unknown api_key %q", m[1])
	}
	date, err := http.ParseTime(q.Get("date"))
	if err != nil || time.Since(date).Abs() > 5*time.Minute {
		return fmt.Errorf("date %q missing or skewed", q.Get("date"))
	}
	if q.Get("host") != r.Host {
		return fmt.Errorf("host %q, request to %q", q.Get("host"), r.Host)
	}
	want := xunfei.Signature(secret, q.Get("host"), q.Get("date"), r.Method+" "+r.URL.Path+" HTTP/1.1")
	if m[2] != want {
		return fmt.Errorf("signature mismatch")
	}
	return nil
}

func newFake(t *testing.T) *fakeXunfei {
	f := &fakeXunfei{t: t, tasks: map[string]int{}, pcm: audio.PCMBytes(make([]int16, 3200))}
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any) { _ = json.NewEncoder(w).Encode(v) }
	mux.HandleFunc("POST /v1/private/dts_create", func(w http.ResponseWriter, r *http.Request) {
		if err := f.verify(r); err != nil {
			w.WriteHeader(401)
			reply(w, map[string]any{"message": err.Error()})
			return
		}
		var req xunfei.CreateRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Header.AppID != appID {
			reply(w, map[string]any{"header": map[string]any{"code": 10106, "message": "invalid request"}})
			return
		}
		f.mu.Lock()
		id := fmt.Sprintf("task-%d", len(f.created))
		f.created = append(f.created, req)
		f.tasks[id] = 0
		f.mu.Unlock()
		reply(w, map[string]any{"header": map[string]any{"code": 0, "message": "success", "sid": "sid1", "task_id": id}})
	})
	mux.HandleFunc("POST /v1/private/dts_query", func(w http.ResponseWriter, r *http.Request) {
		if err := f.verify(r); err != nil {
			w.WriteHeader(401)
			return
		}
		var req xunfei.QueryRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		polls, ok := f.tasks[req.Header.TaskID]
		f.tasks[req.Header.TaskID] = polls + 1
		f.mu.Unlock()
		if !ok {
			reply(w, map[string]any{"header": map[string]any{"code": 10404, "message": "no such task"}})
			return
		}
		status := []string{"1", "3", "5"}[min(polls, 2)]
		resp := map[string]any{"header": map[string]any{"code": 0, "task_id": req.Header.TaskID, "task_status": status}}
		if status == "5" {
			u := f.srv.URL + "/audio/" + req.Header.TaskID + ".pcm"
			resp["payload"] = map[string]any{"audio": map[string]any{"encoding": "raw",
				"audio": base64.StdEncoding.EncodeToString([]byte(u))}}
		}
		reply(w, resp)
	})
	mux.HandleFunc("GET /audio/", func(w http.ResponseWriter, r *http.Request) { w.Write(f.pcm) })
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func TestSynthesize(t *testing.T) {
	f := newFake(t)
	s, err := xunfei.New(xunfei.Config{CreateURL: f.srv.URL + "/v1/private/dts_create", AppID: appID, APIKey: key,
		APISecret: secret, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Synthesize(context.Background(), "你好，世界。", tts.Params{Speed: 60, Volume: 50, Pitch: 40, Voice: "x4_mingge"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := audio.ParseWAV(b)
	if err != nil || w.SampleRate != 16000 || w.Samples() != 3200 {
		t.Fatalf("wav %+v samples %d: %v", w.Format, w.Samples(), err)
	}
	req := f.created[0]
	text, _ := base64.StdEncoding.DecodeString(req.Payload.Text.Text)
	d := req.Parameter.DTS
	if string(text) != "你好，世界。" || d.VCN != "x4_mingge" || d.Speed != 60 || d.Pitch != 40 || d.Audio.Encoding != "raw" ||
		d.Audio.SampleRate != 16000 || req.Payload.Text.Encoding != "utf8" {
		t.Fatalf("create request %+v text %q", req, text)
	}
}

// A wrong secret is refused by the fake, proving it checks signatures.
func TestBadSignatureRejected(t *testing.T) {
	f := newFake(t)
	s, _ := xunfei.New(xunfei.Config{CreateURL: f.srv.URL + "/v1/private/dts_create", AppID: appID, APIKey: key,
		APISecret: "wrong", PollInterval: time.Millisecond})
	if _, err := s.Synthesize(context.Background(), "hi", tts.Params{}); err == nil {
		t.Fatal("a bad signature was accepted")
	}
}

// The signature of a known request (fixed date) is stable.
func TestSign(t *testing.T) {
	date := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	u, err := xunfei.Sign("https://api-dx.xf-yun.com/v1/private/dts_create", key, secret, date)
	if err != nil {
		t.Fatal(err)
	}
	want := xunfei.Signature(secret, "api-dx.xf-yun.com", "Wed, 01 May 2024 08:00:00 GMT", "POST /v1/private/dts_create HTTP/1.1")
	auth := base64.StdEncoding.EncodeToString([]byte(`api_key="` + key + `", algorithm="hmac-sha256", headers="host date request-line", signature="` + want + `"`))
	if !regexp.MustCompile(`authorization=`+regexp.QuoteMeta(urlQueryEscape(auth))).MatchString(u) ||
		!regexp.MustCompile(`date=Wed%2C\+01\+May\+2024\+08%3A00%3A00\+GMT`).MatchString(u) {
		t.Fatalf("signed URL %s", u)
	}
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
