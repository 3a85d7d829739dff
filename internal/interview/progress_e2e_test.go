package interview_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// gatedModel is the fake interview model whose replies of a stage wait
// until the test opens that stage's gate, and that can answer a stage with
// unusable output.
type gatedModel struct {
	fake interviewtest.Model

	mu      sync.Mutex // protects gates and garbage
	gates   map[string]chan struct{}
	garbage map[string]bool
}

func (g *gatedModel) hold(stage string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates == nil {
		g.gates = map[string]chan struct{}{}
	}
	g.gates[stage] = make(chan struct{})
}

func (g *gatedModel) release(stage string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch := g.gates[stage]; ch != nil {
		close(ch)
		delete(g.gates, stage)
	}
}

func (g *gatedModel) unusable(stage string, on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.garbage == nil {
		g.garbage = map[string]bool{}
	}
	g.garbage[stage] = on
}

func (g *gatedModel) Reply(req llmtest.RecordedRequest) llmtest.Reply {
	g.mu.Lock()
	gate, garbage := g.gates[req.Stage()], g.garbage[req.Stage()]
	g.mu.Unlock()
	r := g.fake.Reply(req)
	if garbage {
		r = llmtest.Reply{Content: "Sorry, I cannot help with that."}
	}
	r.Hold = gate
	return r
}

func (c *client) uploadWithID(sid, requestID string, data []byte) servertest.Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("resumePdf", "resume.pdf")
	fw.Write(data)
	w.Close()
	req, _ := http.NewRequest("POST", c.base+api+"/interview/sessions/"+sid+"/interview-questions", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Request-Id", requestID)
	return servertest.Send(c.t, req)
}

// waitStep polls the progress of requestID until it is at step.
func (c *client) waitStep(sid, requestID, step string) interview.Progress {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var p interview.Progress
	for time.Now().Before(deadline) {
		r := c.do("GET", "/sessions/"+sid+"/progress/"+requestID, nil)
		if r.Status == 200 {
			p = interview.Progress{}
			r.Decode(c.t, &p)
			if p.Step == step {
				return p
			}
		} else if r.Status != 404 {
			c.t.Fatalf("progress: %d %s", r.Status, r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("progress of %s never reached %s (last %+v)", requestID, step, p)
	return p
}

// Issue 19: the upload and the answer report their steps with elapsed
// time, readable from another instance through Redis; a failure reads as a
// sentence for the candidate, the detail stays in the log under the
// request id.
func TestProgressAcrossInstances(t *testing.T) {
	_, prefix := testenv.Redis(t)
	model := &gatedModel{}
	srv := llmtest.NewServer(t, llmtest.WithResponder(model.Reply))
	env := []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + srv.URL(), "AI_OPENAI_API_KEY=sk-test",
		"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + testenv.MySQL(t), "REDIS_ADDRS=" + testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=" + prefix}
	a := servertest.Start(t, "", env...)
	b := servertest.Start(t, "", env...)
	ca, cb := MustClient(t, a.URL, "progress"), MustClient(t, b.URL, "progress")
	sid := ca.newSession()

	// Upload on a, followed on b.
	model.hold(interview.StageProfile)
	model.hold(interview.StageExtraction)
	done := make(chan servertest.Response, 1)
	go func() { done <- ca.uploadWithID(sid, "up-1", resumePDF(t)) }()
	p := cb.waitStep(sid, "up-1", interview.StepProfile)
	if p.Kind != interview.ProgressUpload || strings.Join(p.Steps, ",") != "reading,profile,questions" ||
		len(p.Entered) != 2 || p.Entered[0].Step != interview.StepReading || p.ElapsedMs < 0 {
		t.Fatalf("upload progress at profile = %+v", p)
	}
	model.release(interview.StageProfile)
	cb.waitStep(sid, "up-1", interview.StepQuestions)
	model.release(interview.StageExtraction)
	wantOK(t, <-done)
	p = cb.waitStep(sid, "up-1", interview.StepDone)
	if !p.Done || p.Failed || p.FinishedAt == nil {
		t.Fatalf("finished upload = %+v", p)
	}
	// Elapsed time stops with the request.
	if q := cb.waitStep(sid, "up-1", interview.StepDone); q.ElapsedMs != p.ElapsedMs {
		t.Fatalf("elapsed of a finished upload moved: %d then %d", p.ElapsedMs, q.ElapsedMs)
	}

	// Another user, and an unknown request, are 404s.
	other := MustClient(t, b.URL, "progress-other")
	if r := other.do("GET", "/sessions/"+sid+"/progress/up-1", nil); r.Status != 404 {
		t.Fatalf("another user's progress: %d %s", r.Status, r.Raw)
	}
	if r := ca.do("GET", "/sessions/"+sid+"/progress/nope", nil); r.Status != 404 || r.Message == "" {
		t.Fatalf("unknown request: %d %s", r.Status, r.Raw)
	}

	// Answer on b, followed on a.
	wantOK(t, cb.do("GET", "/sessions/"+sid+"/current-question", nil))
	model.hold(interview.StageEvaluation)
	answered := make(chan servertest.Response, 1)
	go func() {
		answered <- cb.do("POST", "/sessions/"+sid+"/interview/answer-json",
			map[string]string{"questionNumber": "1", "answerContent": "A complete answer for question 1", "requestId": "ans-1"})
	}()
	p = ca.waitStep(sid, "ans-1", interview.StepScoring)
	if p.Kind != interview.ProgressAnswer || strings.Join(p.Steps, ",") != "scoring,review,followup" {
		t.Fatalf("answer progress = %+v", p)
	}
	model.release(interview.StageEvaluation)
	wantOK(t, <-answered)
	ca.waitStep(sid, "ans-1", interview.StepDone)

	// Unusable model output: a sentence for the candidate, the detail in
	// the log with the request id.
	model.unusable(interview.StageEvaluation, true)
	r := cb.do("POST", "/sessions/"+sid+"/interview/answer-json",
		map[string]string{"questionNumber": "2", "answerContent": "An answer the model cannot judge", "requestId": "ans-2"})
	if r.Status != 502 || r.Code != "B000418" || r.RequestID == "" {
		t.Fatalf("unusable output: %d %s", r.Status, r.Raw)
	}
	if strings.Contains(r.Message, "model output") || strings.Contains(r.Message, interview.StageEvaluation) ||
		!strings.Contains(r.Message, "your answer is saved") {
		t.Fatalf("message for the candidate = %q", r.Message)
	}
	p = ca.waitStep(sid, "ans-2", interview.StepFailed)
	if !p.Failed || p.Message != r.Message || p.Code != "B000418" {
		t.Fatalf("failed progress = %+v, want the envelope's message", p)
	}
	if logs := b.Logs(); !strings.Contains(logs, "is unusable") || !strings.Contains(logs, r.RequestID) {
		t.Fatalf("the log lacks the detail with request id %s:\n%s", r.RequestID, logs)
	}

	// The same for an upload whose profile the model cannot give.
	model.unusable(interview.StageProfile, true)
	sid2 := ca.newSession()
	r = ca.uploadWithID(sid2, "up-2", resumePDF(t))
	if r.Status != 502 || r.Message != "the AI could not read your resume this time; please try again" {
		t.Fatalf("unusable profile: %d %s", r.Status, r.Raw)
	}
	p = cb.waitStep(sid2, "up-2", interview.StepFailed)
	if p.Message != r.Message || len(p.Entered) != 3 || p.Entered[1].Step != interview.StepProfile {
		t.Fatalf("failed upload progress = %+v", p)
	}
}
