// Package chattest helps end-to-end tests of chat and agent sessions: it
// logs users in against a running server and reads server-sent event
// streams incrementally, one event at a time.
package chattest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// API is the REST prefix.
const API = "/api/xunzhi/v1"

// Login registers name (if new) on the server at base and returns a token.
func Login(tb testing.TB, base, name string) string {
	tb.Helper()
	creds := map[string]string{"username": name, "password": "password-" + name}
	r := servertest.Do(tb, "POST", base+API+"/users/register", "", creds)
	if r.Status != 200 && r.Status != 409 {
		tb.Fatalf("register %s: %s", name, r.Raw)
	}
	r = servertest.Do(tb, "POST", base+API+"/users/login", "", creds)
	var l struct{ Token string }
	r.Decode(tb, &l)
	if l.Token == "" {
		tb.Fatalf("login %s: %s", name, r.Raw)
	}
	return l.Token
}

// Event is one server-sent event.
type Event struct {
	Name string // "" for the default (message) event
	Data string
}

// Decode unmarshals the event's data into v.
func (e Event) Decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(e.Data), v); err != nil {
		tb.Fatalf("event %q data %q: %v", e.Name, e.Data, err)
	}
}

// Stream is an open event stream.
type Stream struct {
	Resp *http.Response
	sc   *bufio.Scanner
}

// Open posts body as JSON to url with token and returns the open stream;
// it fails the test unless the answer is 200 text/event-stream.
func Open(tb testing.TB, url, token string, body any) *Stream {
	tb.Helper()
	return OpenWith(tb, url, token, body, nil)
}

// OpenWith is Open with extra request headers (Accept-Language).
func OpenWith(tb testing.TB, url, token string, body any, header http.Header) *Stream {
	tb.Helper()
	resp := post(tb, url, token, body, header)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		tb.Fatalf("POST %s: status %d %s: %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), buf.String())
	}
	s := &Stream{Resp: resp, sc: bufio.NewScanner(resp.Body)}
	s.sc.Buffer(make([]byte, 64<<10), 4<<20)
	tb.Cleanup(func() { resp.Body.Close() })
	return s
}

// Post posts body as JSON and returns the raw response (the caller closes it).
func post(tb testing.TB, url, token string, body any, header http.Header) *http.Response {
	tb.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, vs := range header {
		req.Header[k] = vs
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// Next reads the next event; ok is false at the end of the stream.
func (s *Stream) Next() (ev Event, ok bool) {
	var data []string
	started := false
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if started {
				ev.Data = strings.Join(data, "\n")
				return ev, true
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			ev.Name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			started = true
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			started = true
		}
	}
	if started {
		ev.Data = strings.Join(data, "\n")
		return ev, true
	}
	return Event{}, false
}

// All reads the remaining events.
func (s *Stream) All() []Event {
	var out []Event
	for {
		ev, ok := s.Next()
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// Close closes the connection: the server sees the client go away.
func (s *Stream) Close() { s.Resp.Body.Close() }

// Chunk is the data of a chunk event.
type Chunk struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// End is the data of the end event.
type End struct {
	MessageSeq int64 `json:"messageSeq"`
	TokenCount int   `json:"tokenCount"`
	Offline    bool  `json:"offline"`
}

// Message is a stored message as the history endpoints return it.
type Message struct {
	ID               string  `json:"id"`
	MessageType      int     `json:"messageType"`
	MessageContent   string  `json:"messageContent"`
	ReasoningContent *string `json:"reasoningContent"`
	MessageSeq       int64   `json:"messageSeq"`
	TokenCount       int     `json:"tokenCount"`
	ResponseTime     int64   `json:"responseTime"`
	ErrorMessage     *string `json:"errorMessage"`
	Stopped          bool    `json:"stopped"`
	Incomplete       bool    `json:"incomplete"`
	StopReason       string  `json:"stopReason"`
	Offline          bool    `json:"offline"`
}

// Exchange sends one message over the stream at url and reads it to the
// end: the chunks, and the end event (failing the test on an error event).
func Exchange(tb testing.TB, url, token, text string) ([]Chunk, End) {
	tb.Helper()
	s := Open(tb, url, token, map[string]string{"inputMessage": text})
	defer s.Close()
	var chunks []Chunk
	for _, ev := range s.All() {
		switch ev.Name {
		case "":
			var c Chunk
			ev.Decode(tb, &c)
			chunks = append(chunks, c)
		case "end":
			var e End
			ev.Decode(tb, &e)
			return chunks, e
		default:
			tb.Fatalf("event %q: %s", ev.Name, ev.Data)
		}
	}
	tb.Fatalf("stream ended without an end event after %d chunks", len(chunks))
	return nil, End{}
}
