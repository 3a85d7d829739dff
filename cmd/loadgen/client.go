package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

const api = "/api/xunzhi/v1"

// envelope is every REST response.
type envelope struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// stats collects what every request did.
type stats struct {
	mu        sync.Mutex // protects the fields below
	requests  int
	byStatus  map[string]int       // "200", "502", "transport" ...
	latencies map[string][]float64 // kind → ms, one per HTTP request
	notes     []string
}

func newStats() *stats {
	return &stats{byStatus: map[string]int{}, latencies: map[string][]float64{}}
}

func (s *stats) record(kind string, status int, err error, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	key := strconv.Itoa(status)
	if err != nil {
		key = "transport"
	}
	s.byStatus[key]++
	s.latencies[kind] = append(s.latencies[kind], float64(d.Microseconds())/1000)
}

func (s *stats) note(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notes) < 200 {
		s.notes = append(s.notes, time.Now().UTC().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
	}
}

func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// target is where requests go: nginx for ordinary traffic, the instances
// directly for the copies of a duplicate (so they land on different ones).
type target struct {
	lb        string
	instances []string
}

// pick returns the instance for copy k of a request, starting at base.
func (t target) pick(base, k int) string {
	if len(t.instances) == 0 {
		return t.lb
	}
	return t.instances[(base+k)%len(t.instances)]
}

type client struct {
	hc    *http.Client
	st    *stats
	token string
}

// result is one HTTP exchange.
type result struct {
	status int
	env    envelope
	raw    []byte
	err    error
}

// request builds a request of c's user (its token), with body of ctype.
func (c *client) request(ctx context.Context, method, url string, body []byte, ctype string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// send sends a request and records its outcome under kind.
func (c *client) send(ctx context.Context, kind, method, url string, body []byte, ctype string) result {
	req, err := c.request(ctx, method, url, body, ctype)
	if err != nil {
		return result{err: err}
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.st.record(kind, 0, err, time.Since(start))
		return result{err: err}
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.st.record(kind, resp.StatusCode, err, time.Since(start))
	r := result{status: resp.StatusCode, raw: raw, err: err}
	if err == nil {
		if jerr := json.Unmarshal(raw, &r.env); jerr != nil && resp.StatusCode == 200 {
			r.err = fmt.Errorf("not an envelope: %q", raw)
		}
	}
	return r
}

// fire sends a fixed request the way hey does, and reports whether it was
// answered 200: the body is read and dropped, not decoded or recorded, so
// that the measuring costs the same whatever the endpoint answers.
func (c *client) fire(ctx context.Context, method, url string, body []byte) bool {
	ctype := ""
	if body != nil {
		ctype = "application/json"
	}
	req, err := c.request(ctx, method, url, body, ctype)
	if err != nil {
		return false
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err == nil && resp.StatusCode == 200
}

// retryable says whether a client (a browser, a user pressing again) would
// send the same request again: the server or the proxy failed, the answer
// is still being evaluated (202), or a rate limit.
func retryable(r result) bool {
	return r.err != nil || r.status == 202 || r.status == 429 || r.status >= 500
}

// do sends the request and retries it (same body) while retryable, moving
// to the next instance on every attempt, for at most 90 s.
func (c *client) do(ctx context.Context, kind string, tg target, base int, method, path string, body []byte, ctype string) result {
	deadline := time.Now().Add(90 * time.Second)
	for attempt := 0; ; attempt++ {
		url := tg.lb
		if base >= 0 {
			url = tg.pick(base, attempt)
		}
		r := c.send(ctx, kind, method, url+path, body, ctype)
		if !retryable(r) || time.Now().After(deadline) || ctx.Err() != nil {
			return r
		}
		wait := time.Duration(200+rand.IntN(300)) * time.Millisecond
		if r.status >= 500 || r.err != nil {
			wait = time.Duration(min(attempt+1, 5)) * 400 * time.Millisecond
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return r
		}
	}
}

func (c *client) json(ctx context.Context, kind string, tg target, base int, method, path string, v any) result {
	var body []byte
	ctype := ""
	if v != nil {
		body, _ = json.Marshal(v)
		ctype = "application/json"
	}
	return c.do(ctx, kind, tg, base, method, path, body, ctype)
}

func multipartResume(filename string, data []byte) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("resumePdf", filename)
	fw.Write(data)
	w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

func ok(r result) error {
	if r.err != nil {
		return r.err
	}
	if r.status != 200 || r.env.Code != "0" {
		return fmt.Errorf("status %d: %s", r.status, truncate(r.raw, 300))
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
