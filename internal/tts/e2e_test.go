package tts_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

const ttsAPI = "/api/xunzhi/v1/xunfei/tts"

// MustToken registers and logs in name on the server at base.
func MustToken(tb testing.TB, base, name string) string {
	tb.Helper()
	body := map[string]string{"username": name, "password": "password-" + name}
	if r := servertest.Do(tb, "POST", base+"/api/xunzhi/v1/users/register", "", body); r.Status != 200 {
		tb.Fatalf("register: %s", r.Raw)
	}
	r := servertest.Do(tb, "POST", base+"/api/xunzhi/v1/users/login", "", body)
	var out struct{ Token string }
	r.Decode(tb, &out)
	return out.Token
}

// event is one server-sent event.
type event struct {
	Name string
	View tts.View
}

// readEvents reads the events stream of a task until it ends.
func readEvents(tb testing.TB, base, token, id string) []event {
	tb.Helper()
	req, _ := http.NewRequest("GET", base+ttsAPI+"/tasks/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	var out []event
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var v tts.View
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &v); err != nil {
				tb.Fatalf("event data %q: %v", line, err)
			}
			out = append(out, event{name, v})
		}
	}
	return out
}

func get(tb testing.TB, url, token string, header ...string) (*http.Response, []byte) {
	tb.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, b
}

func createTask(tb testing.TB, base, token string, body any) tts.Created {
	tb.Helper()
	r := servertest.Do(tb, "POST", base+ttsAPI+"/tasks", token, body)
	if r.Status != 200 {
		tb.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	var c tts.Created
	r.Decode(tb, &c)
	return c
}

// The real server binary: a 20,000-character mixed text through the API,
// progress over SSE, the WAV downloaded whole and by Range, ownership,
// cancel and delete.
func TestServerLongText(t *testing.T) {
	requireTool(t, "espeak-ng")
	s := servertest.Start(t, "")
	alice, bob := MustToken(t, s.URL, "alice"), MustToken(t, s.URL, "bob")

	if r := servertest.Do(t, "POST", s.URL+ttsAPI+"/tasks", alice, map[string]any{"text": "hi", "speed": 300}); r.Status != 400 ||
		!strings.Contains(r.Message, "speed must be between 0 and 100") {
		t.Fatalf("validation: %d %s", r.Status, r.Raw)
	}
	if r := servertest.Do(t, "POST", s.URL+ttsAPI+"/tasks", "", map[string]any{"text": "hi"}); r.Status != 401 {
		t.Fatalf("anonymous: %d", r.Status)
	}

	text := mixedText(20000)
	c := createTask(t, s.URL, alice, map[string]any{"text": text})
	if c.TaskStatus != tts.StatusCreated && c.TaskStatus != tts.StatusRunning {
		t.Fatalf("created: %+v", c)
	}
	events := readEvents(t, s.URL, alice, c.TaskID)
	var progress []int
	for _, e := range events {
		progress = append(progress, e.View.Progress)
	}
	checkMonotonic(t, progress)
	last := events[len(events)-1]
	if last.Name != "done" || last.View.AudioURL == nil || last.View.DurationMs == nil {
		t.Fatalf("last event %+v", last)
	}
	t.Logf("SSE: %d events, progress %v ... %v", len(events), progress[:min(5, len(progress))], progress[len(progress)-1])

	resp, wavBytes := get(t, s.URL+*last.View.AudioURL, alice)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("audio: %d %v", resp.StatusCode, resp.Header)
	}
	w, err := audio.ParseWAV(wavBytes)
	if err != nil {
		t.Fatal(err)
	}
	riff := int(uint32(wavBytes[4]) | uint32(wavBytes[5])<<8 | uint32(wavBytes[6])<<16 | uint32(wavBytes[7])<<24)
	if riff != len(wavBytes)-8 || len(w.Data) != len(wavBytes)-44 || w.SampleRate != 16000 || w.Channels != 1 {
		t.Fatalf("header: riff %d for %d bytes, data %d, %+v", riff, len(wavBytes), len(w.Data), w.Format)
	}
	if w.DurationMs() != *last.View.DurationMs {
		t.Fatalf("durationMs %d, file %d", *last.View.DurationMs, w.DurationMs())
	}
	segs := tts.Segments(text, 300)
	if last.View.SegmentsTotal != len(segs) || last.View.SegmentsDone != len(segs) {
		t.Fatalf("segments %d/%d, want %d", last.View.SegmentsDone, last.View.SegmentsTotal, len(segs))
	}
	minMs := int64(len(segs)-1) * 250
	if w.DurationMs() <= minMs {
		t.Fatalf("duration %d ms is not more than the pauses", w.DurationMs())
	}

	// Range.
	resp, part := get(t, s.URL+*last.View.AudioURL, alice, "Range", "bytes=100-1099")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, wavBytes[100:1100]) ||
		resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 100-1099/%d", len(wavBytes)) {
		t.Fatalf("range: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(part))
	}
	resp, part = get(t, s.URL+*last.View.AudioURL, alice, "Range", "bytes=-44")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, wavBytes[len(wavBytes)-44:]) {
		t.Fatalf("suffix range: %d", resp.StatusCode)
	}

	// Another user's task is 404 everywhere.
	for _, path := range []string{"", "/audio", "/events"} {
		if resp, b := get(t, s.URL+ttsAPI+"/tasks/"+c.TaskID+path, bob); resp.StatusCode != 404 {
			t.Errorf("bob GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	if r := servertest.Do(t, "DELETE", s.URL+ttsAPI+"/tasks/"+c.TaskID, bob, nil); r.Status != 404 {
		t.Errorf("bob DELETE: %d", r.Status)
	}
	var pg struct {
		Records []tts.View
		Total   int
	}
	servertest.Do(t, "GET", s.URL+ttsAPI+"/tasks?current=1&size=10", bob, nil).Decode(t, &pg)
	if pg.Total != 0 {
		t.Errorf("bob lists %d tasks", pg.Total)
	}
	servertest.Do(t, "GET", s.URL+ttsAPI+"/tasks", alice, nil).Decode(t, &pg)
	if pg.Total != 1 || pg.Records[0].TaskID != c.TaskID || pg.Records[0].TaskStatus != tts.StatusDone {
		t.Errorf("alice lists %+v", pg)
	}

	// Cancel mid-task.
	long := createTask(t, s.URL, alice, map[string]any{"text": strings.Repeat("This sentence is long enough to take a while to read aloud. ", 600)})
	for deadline := time.Now().Add(30 * time.Second); ; {
		var v tts.View
		servertest.Do(t, "GET", s.URL+ttsAPI+"/tasks/"+long.TaskID, alice, nil).Decode(t, &v)
		if v.SegmentsDone > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress: %+v", v)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var cancelled tts.View
	servertest.Do(t, "DELETE", s.URL+ttsAPI+"/tasks/"+long.TaskID, alice, nil).Decode(t, &cancelled)
	if cancelled.TaskStatus != tts.StatusFailed || cancelled.ErrorMessage == nil || *cancelled.ErrorMessage != "cancelled" ||
		cancelled.SegmentsDone >= cancelled.SegmentsTotal {
		t.Fatalf("cancelled: %+v", cancelled)
	}
	ev := readEvents(t, s.URL, alice, long.TaskID)
	if ev[len(ev)-1].Name != "failed" {
		t.Fatalf("events of a cancelled task end with %q", ev[len(ev)-1].Name)
	}

	// Delete the finished one: the task and its audio go.
	if r := servertest.Do(t, "DELETE", s.URL+ttsAPI+"/tasks/"+c.TaskID, alice, nil); r.Status != 200 {
		t.Fatalf("delete: %s", r.Raw)
	}
	if resp, _ := get(t, s.URL+ttsAPI+"/tasks/"+c.TaskID+"/audio", alice); resp.StatusCode != 404 {
		t.Fatalf("audio after delete: %d", resp.StatusCode)
	}

	// POST /synthesize waits for a short text.
	r := servertest.Do(t, "POST", s.URL+ttsAPI+"/synthesize", alice, map[string]any{"text": "Hello there.", "audioEncoding": "mp3"})
	var sv tts.View
	r.Decode(t, &sv)
	if r.Status != 200 || sv.TaskStatus != tts.StatusDone || sv.AudioEncoding != "mp3" {
		t.Fatalf("synthesize: %d %s", r.Status, r.Raw)
	}
}

// Two server processes share MariaDB, Redis and the data directory; the
// same request sent to both at once is synthesised once.
func TestTwoInstancesSynthesizeOnce(t *testing.T) {
	requireTool(t, "espeak-ng")
	testenv.Redis(t)
	dsn := testenv.MySQL(t)
	dir := t.TempDir()
	env := []string{"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + dsn, "REDIS_ADDRS=" + testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=test:" + testenv.RandomSuffix(8) + ":", "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=distributed"}
	a := servertest.Start(t, dir, env...)
	b := servertest.Start(t, dir, env...)
	ta, tb := MustToken(t, a.URL, "alice"), MustToken(t, b.URL, "bob")
	text := strings.Repeat("Both instances receive this very same paragraph at the same time. 两个实例同时收到同一段文字。", 40)
	var wg sync.WaitGroup
	results := make([]event, 2)
	for i, srv := range []struct{ url, token string }{{a.URL, ta}, {b.URL, tb}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := createTask(t, srv.url, srv.token, map[string]any{"text": text})
			ev := readEvents(t, srv.url, srv.token, c.TaskID)
			results[i] = ev[len(ev)-1]
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Name != "done" {
			t.Fatalf("instance %d: %+v", i, r)
		}
	}
	if *results[0].View.DurationMs != *results[1].View.DurationMs {
		t.Fatalf("different audio: %d vs %d ms", *results[0].View.DurationMs, *results[1].View.DurationMs)
	}
	runs := metric(t, a.URL, "tts_synthesis_runs_total") + metric(t, b.URL, "tts_synthesis_runs_total")
	calls := metric(t, a.URL, `tts_segment_calls_total{result="ok"}`) + metric(t, b.URL, `tts_segment_calls_total{result="ok"}`)
	segs := len(tts.Segments(text, 300))
	if runs != 1 || int(calls) != segs {
		t.Fatalf("%v syntheses and %v segment calls over both instances, want 1 and %d", runs, calls, segs)
	}
	_, wa := get(t, a.URL+*results[0].View.AudioURL, ta)
	_, wb := get(t, b.URL+*results[1].View.AudioURL, tb)
	if !bytes.Equal(wa, wb) {
		t.Fatal("the two tasks serve different audio")
	}
}

var _ = os.Getenv

// metric reads one sample of the server's /metrics (0 when absent).
func metric(tb testing.TB, base, name string) float64 {
	tb.Helper()
	v, _ := servertest.Metric(tb, base, name)
	return v
}
