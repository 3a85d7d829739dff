package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

// latency is a uniform random duration in [Min, Max].
type latency struct{ Min, Max time.Duration }

func (l latency) draw() time.Duration {
	if l.Max <= l.Min {
		return l.Min
	}
	return l.Min + rand.N(l.Max-l.Min)
}

// modelCall is one chat completions request seen by the fake model.
type modelCall struct {
	ID       int
	Instance string // "app2": from the base URL path the instance was given
	Stage    string
	Identity string // stage + hash of the prompt's user message: the business flight
	Start    time.Time
	End      time.Time
	Status   int  // what the proxy answered; 0 when the instance went away first
	Gone     bool // the instance closed the connection before the answer (killed or cancelled)
}

// fakeModel is an OpenAI-compatible model that plays every interview stage
// (the tests' interviewtest.Model) with realistic latencies. It is
// llmtest.Server behind a small reverse proxy on a fixed address: the proxy
// learns which instance called (path /appN/v1/...) and when the call ended.
type fakeModel struct {
	model *interviewtest.Model
	srv   *llmtest.Server
	ln    net.Listener
	hs    *http.Server

	mu    sync.Mutex // protects calls
	calls []*modelCall
}

var instancePath = regexp.MustCompile(`^/(app\d+)(/v1/.*)$`)

func startModel(addr string, evalLatency latency) (*fakeModel, error) {
	lat := map[string]latency{
		interview.StageProfile:    {200 * time.Millisecond, 600 * time.Millisecond},
		interview.StageExtraction: {500 * time.Millisecond, 1500 * time.Millisecond},
		interview.StageEvaluation: evalLatency,
		interview.StageReview:     evalLatency,
		interview.StageFollowUp:   {200 * time.Millisecond, 700 * time.Millisecond},
	}
	m := &fakeModel{model: &interviewtest.Model{Latency: func(stage string) time.Duration { return lat[stage].draw() }}}
	m.srv = llmtest.Start(llmtest.WithResponder(m.reply))
	target, _ := url.Parse(strings.TrimSuffix(m.srv.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {} // the caller went away
	var err error
	if m.ln, err = net.Listen("tcp", addr); err != nil {
		m.srv.Close()
		return nil, fmt.Errorf("fake model: %w", err)
	}
	m.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &modelCall{Start: time.Now(), Instance: "direct"}
		if mm := instancePath.FindStringSubmatch(r.URL.Path); mm != nil {
			c.Instance, r.URL.Path = mm[1], mm[2]
		}
		m.mu.Lock()
		c.ID = len(m.calls)
		m.calls = append(m.calls, c)
		m.mu.Unlock()
		r.Header.Set("X-Loadgen-Call", fmt.Sprint(c.ID))
		sw := &statusWriter{ResponseWriter: w}
		proxy.ServeHTTP(sw, r)
		m.mu.Lock()
		c.End, c.Status = time.Now(), sw.status
		c.Gone = r.Context().Err() != nil
		m.mu.Unlock()
	})}
	go m.hs.Serve(m.ln)
	return m, nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	return w.ResponseWriter.Write(b)
}

// BaseURL is what instance {i} is given as AI_OPENAI_BASE_URL.
func (m *fakeModel) BaseURL() string { return "http://" + m.ln.Addr().String() + "/app{i}/v1" }

// DirectURL is the fake model itself, without the proxy: the benchmark's
// instances call it there, so that the load generator's own share of the
// cores is one HTTP exchange per model call, not two (the proxy only
// tells the calls' instances apart, which -bench does not report).
func (m *fakeModel) DirectURL() string { return m.srv.URL() }

func (m *fakeModel) Close() {
	m.hs.Close()
	m.srv.Close()
}

// Calls returns a snapshot of every call.
func (m *fakeModel) Calls() []modelCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]modelCall, len(m.calls))
	for i, c := range m.calls {
		out[i] = *c
	}
	return out
}

// reply answers as the shared fake interview model does, after recording
// the call's stage and identity (stage + hash of the prompt's user message:
// the business flight).
func (m *fakeModel) reply(req llmtest.RecordedRequest) llmtest.Reply {
	stage := req.Stage()
	if stage == "" {
		stage = "unknown"
	}
	sum := sha256.Sum256([]byte(req.LastUserMessage()))
	m.mu.Lock()
	var id int
	fmt.Sscan(req.Header.Get("X-Loadgen-Call"), &id)
	if id < len(m.calls) {
		m.calls[id].Stage, m.calls[id].Identity = stage, stage+"|"+hex.EncodeToString(sum[:8])
	}
	m.mu.Unlock()
	return m.model.Reply(req)
}
