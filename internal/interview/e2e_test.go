package interview_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

const api = "/api/xunzhi/v1"

// fakeInterviewer plays every interview stage as a real model would, from
// the JSON inputs of the prompts. Answers containing "WEAK" are judged
// partial on the core anchor (earning a follow-up); "FAIL" makes the model
// return HTTP 500.
type fakeInterviewer struct {
	evaluations atomic.Int64
	demeanors   atomic.Int64
	failing     atomic.Bool
	evalDelay   time.Duration
}

func stageOf(req llmtest.RecordedRequest) string {
	sys := req.SystemPrompt()
	switch {
	case strings.Contains(sys, "senior technical recruiter"):
		return interview.StageProfile
	case strings.Contains(sys, "designing a technical interview"):
		return interview.StageExtraction
	case strings.Contains(sys, "strict, fair technical interviewer"):
		return interview.StageEvaluation
	case strings.Contains(sys, "Write ONE follow-up question"):
		return interview.StageFollowUp
	case strings.Contains(sys, "demeanor from a webcam photo"):
		return interview.StageDemeanor
	}
	return ""
}

func (f *fakeInterviewer) reply(req llmtest.RecordedRequest) llmtest.Reply {
	user := req.LastUserMessage()
	switch stageOf(req) {
	case interview.StageProfile:
		return llmtest.Reply{Content: `{"skills":["Go","MySQL","Redis"],"skillEvidence":[{"skill":"Go","evidence":"Go services"}],
			"roleHypotheses":[{"target":"backend engineer","evidence":"Go services","confidence":"0.8"}],
			"resumeScore":"72","resumeSuggestions":["Quantify your impact."],"projectQuestionHints":["payment service"],"resumeType":"backend"}`}
	case interview.StageExtraction:
		var qs []string
		for i := 1; i <= 5; i++ {
			qs = append(qs, fmt.Sprintf(`{"content":"Question %d: how does topic %d work?","anchors":[
				{"name":"core idea %d","weight":60,"core":true,"acceptableStatements":["explains topic %d"]},
				{"name":"trade-offs","weight":40,"core":false,"acceptableStatements":["names a trade-off"]}],
				"commonMistakes":["confuses it"],"followUpStrategy":"What would you change for topic %d?","rubricVersion":1}`, i, i, i, i, i))
		}
		// Fenced, with prose around: parsing must be lenient.
		return llmtest.Reply{Content: "Here you go:\n```json\n{\"questions\":[" + strings.Join(qs, ",") +
			"],\"suggestions\":[\"Add links to code.\"],\"interviewType\":\"backend engineer\",\"resumeScore\":75}\n```\nGood luck!"}
	case interview.StageEvaluation:
		f.evaluations.Add(1)
		if f.failing.Load() {
			return llmtest.Reply{Status: 500, ErrorBody: `{"error":{"message":"upstream overloaded"}}`}
		}
		var in interview.EvaluationInput
		_ = json.Unmarshal([]byte(user), &in)
		core := "met"
		if strings.Contains(in.Answer, "WEAK") {
			core = "partial"
		}
		dims := []string{}
		for _, d := range interview.Dimensions {
			st := "met"
			if core == "partial" && (d == "completeness" || d == "depth") {
				st = "partial"
			}
			dims = append(dims, fmt.Sprintf(`{"id":%q,"status":%q,"evidence":"said so","confidence":0.95}`, d, st))
		}
		anchors := fmt.Sprintf(`[{"name":%q,"status":%q,"evidence":"e"},{"name":"trade-offs","status":"met","evidence":"e"}]`,
			in.Question.Anchors[0].Name, core)
		return llmtest.Reply{Delay: f.evalDelay, Content: `{"result":{"dimensions":[` + strings.Join(dims, ",") + `],"anchors":` + anchors +
			`,"score":88,"feedback":"Clear answer about the topic.","missingPoints":["an example"]}}`}
	case interview.StageFollowUp:
		return llmtest.Reply{Content: `{"followUp":"Could you go deeper into the core idea?","endInterview":false}`}
	case interview.StageDemeanor:
		f.demeanors.Add(1)
		if len(req.Messages) < 2 || len(req.Messages[len(req.Messages)-1].Images) != 1 ||
			!strings.HasPrefix(req.Messages[len(req.Messages)-1].Images[0], "data:image/png;base64,") {
			return llmtest.ErrorReply(400, "expected one PNG image part", "invalid_request_error")
		}
		// A 0-10 scale answer: the backend must scale it to 0-100.
		return llmtest.Reply{Content: `{"panicLevel":8,"seriousnessLevel":9,"emoticonHandling":7,"compositeScore":8}`}
	}
	return llmtest.ErrorReply(400, "unexpected stage", "invalid_request_error")
}

type client struct {
	t     *testing.T
	base  string
	token string
}

func MustClient(t *testing.T, base, name string) *client {
	t.Helper()
	r := servertest.Do(t, "POST", base+api+"/users/register", "", map[string]string{"username": name, "password": "password-" + name})
	if r.Status != 200 && r.Status != 409 {
		t.Fatalf("register: %s", r.Raw)
	}
	r = servertest.Do(t, "POST", base+api+"/users/login", "", map[string]string{"username": name, "password": "password-" + name})
	var l struct{ Token string }
	r.Decode(t, &l)
	return &client{t: t, base: base, token: l.Token}
}

func (c *client) do(method, path string, body any) servertest.Response {
	c.t.Helper()
	return servertest.Do(c.t, method, c.base+api+"/interview"+path, c.token, body)
}

func (c *client) upload(sid, filename string, data []byte, target string) servertest.Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("resumePdf", filename)
	fw.Write(data)
	if target != "" {
		w.WriteField("confirmedTarget", target)
	}
	w.Close()
	req, _ := http.NewRequest("POST", c.base+api+"/interview/sessions/"+sid+"/interview-questions", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	return servertest.Send(c.t, req)
}

func wantOK(t *testing.T, r servertest.Response) {
	t.Helper()
	if r.Status != 200 || r.Code != "0" {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
}

func resumePDF(t *testing.T) []byte {
	return doctexttest.PDF(t, "Jane Doe - Backend Engineer", "Built Go services on MySQL and Redis.",
		"Led a payment service handling 2000 requests per second.", "Education: BSc Computer Science",
		"Five years in a product team: owned features from design to release,",
		"wrote tests and runbooks, and mentored two junior engineers.")
}

// resumeFiller makes a short test resume long enough to be read as one
// (doctext.min-chars is 200) without naming any skill.
const resumeFiller = "\nFive years in a product team: owned features from design to release, wrote tests and runbooks, " +
	"and mentored two junior engineers. Education: bachelor's degree in mathematics, 2016.\n"

func (c *client) newSession() string {
	c.t.Helper()
	r := c.do("POST", "/sessions", nil)
	wantOK(c.t, r)
	var s struct{ SessionID, Status string }
	r.Decode(c.t, &s)
	if s.Status != "DRAFT" {
		c.t.Fatalf("new session status %s", s.Status)
	}
	return s.SessionID
}

// runInterview answers every question; answerFor chooses the text.
func (c *client) runInterview(sid string, answerFor func(no string) string) []interview.AnswerResp {
	c.t.Helper()
	r := c.do("GET", "/sessions/"+sid+"/current-question", nil)
	wantOK(c.t, r)
	var cur interview.AnswerResp
	r.Decode(c.t, &cur)
	var out []interview.AnswerResp
	for i := 0; !cur.Finished; i++ {
		if i > 20 {
			c.t.Fatal("interview does not finish")
		}
		no := cur.QuestionNumber
		if i > 0 {
			no = cur.NextQuestionNumber
		}
		r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": no, "answerContent": answerFor(no)})
		wantOK(c.t, r)
		cur = interview.AnswerResp{}
		r.Decode(c.t, &cur)
		if cur.QuestionNumber != no || cur.Score == nil || cur.Status != "done" {
			c.t.Fatalf("answer to %s: %s", no, r.Raw)
		}
		out = append(out, cur)
	}
	return out
}

func TestInterviewEndToEndWithModel(t *testing.T) {
	fake := &fakeInterviewer{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test", "AI_OPENAI_MODEL=fake-gpt")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()

	r := c.upload(sid, "resume.pdf", resumePDF(t), "")
	wantOK(t, r)
	var up interview.UploadResult
	r.Decode(t, &up)
	if up.QuestionCount != 5 || up.InterviewType != "backend engineer" || up.ResumeScore == nil || *up.ResumeScore != 75 || up.Offline {
		t.Fatalf("upload = %s", r.Raw)
	}
	profileReq := model.Requests()[0]
	if profileReq.Model != "fake-gpt" || profileReq.ResponseFormat != "json_object" || !strings.Contains(profileReq.LastUserMessage(), "payment service") {
		t.Fatalf("profile request: model %q format %q user %q", profileReq.Model, profileReq.ResponseFormat, profileReq.LastUserMessage())
	}

	answers := c.runInterview(sid, func(no string) string {
		if no == "2" {
			return "WEAK answer for " + no
		}
		return "A complete answer for question " + no
	})
	var numbers []string
	for _, a := range answers {
		numbers = append(numbers, a.QuestionNumber)
	}
	if got := strings.Join(numbers, ","); got != "1,2,2-F1,3,4,5" {
		t.Fatalf("answered %s, want 1,2,2-F1,3,4,5", got)
	}
	if !answers[1].IsFollowUp || answers[1].NextQuestionNumber != "2-F1" || answers[1].NextQuestion != "Could you go deeper into the core idea?" {
		t.Fatalf("weak answer did not earn the follow-up: %+v", answers[1])
	}
	if !answers[len(answers)-1].Finished {
		t.Fatal("last answer not finished")
	}
	if fake.evaluations.Load() != 6 {
		t.Fatalf("evaluations = %d, want one per answer (6)", fake.evaluations.Load())
	}
	// Score: all main answers scored by rules (weights 30/25/20/15/10).
	r = c.do("GET", "/sessions/"+sid+"/interview/score", nil)
	wantOK(t, r)
	var total int
	r.Decode(t, &total)
	if total < 60 || total > 100 {
		t.Fatalf("session score %d", total)
	}
	// A repeat of an earlier request replays its stored response.
	r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "A complete answer for question 1"})
	wantOK(t, r)
	var replay interview.AnswerResp
	r.Decode(t, &replay)
	if replay.QuestionNumber != "1" || *replay.Score != *answers[0].Score || fake.evaluations.Load() != 6 {
		t.Fatalf("replay = %+v, evaluations %d", replay, fake.evaluations.Load())
	}
	// The resume can be previewed by its owner only.
	resp, err := http.Get(s.URL + api + "/interview/sessions/" + sid + "/resume/preview")
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("anonymous preview: %v %v", resp.StatusCode, err)
	}
	other := MustClient(t, s.URL, "mallory")
	for _, path := range []string{"/sessions/" + sid + "/current-question", "/sessions/" + sid + "/restore",
		"/sessions/" + sid + "/interview/score", "/sessions/" + sid + "/resume/preview"} {
		if r := other.do("GET", path, nil); r.Status != 404 {
			t.Fatalf("another user GET %s = %d, want 404", path, r.Status)
		}
	}
}

func TestInterviewEndToEndOffline(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	r := c.upload(sid, "resume.txt", []byte("Backend engineer. Go, MySQL, Redis, Kubernetes.\nBuilt an order service, cut latency by 40%.\n"+resumeFiller), "")
	wantOK(t, r)
	var up interview.UploadResult
	r.Decode(t, &up)
	if !up.Offline || up.QuestionCount < 5 {
		t.Fatalf("offline upload = %s", r.Raw)
	}
	answers := c.runInterview(sid, func(no string) string {
		return "I would use an index on the filtered columns because it avoids full scans; then measure with EXPLAIN."
	})
	if len(answers) < up.QuestionCount || !answers[len(answers)-1].Finished || !answers[0].Offline {
		t.Fatalf("offline interview answers: %+v", answers)
	}
	// A bad upload type is a 422 and changes nothing.
	sid2 := c.newSession()
	r = c.upload(sid2, "photo.pdf", []byte("\x89PNG\r\n\x1a\nnot a pdf"), "")
	if r.Status != 422 {
		t.Fatalf("PNG named .pdf: %d %s", r.Status, r.Raw)
	}
	r = c.do("GET", "/sessions/"+sid2+"/restore", nil)
	if !strings.Contains(string(r.Data), `"status":"DRAFT"`) {
		t.Fatalf("after a rejected upload: %s", r.Data)
	}
	// Creating a session abandoned the first one.
	r = c.do("GET", "/conversations?status=ABANDONED", nil)
	if !strings.Contains(string(r.Data), sid) {
		t.Fatalf("first session not abandoned: %s", r.Data)
	}
}

// Three server processes share MariaDB and Redis. 30 concurrent copies of
// one answer spread over them make exactly one evaluation call and get 30
// identical responses; different answers racing for one question: one is
// scored, the others get 409 with the current question.
func TestDuplicateStormAcrossInstances(t *testing.T) {
	testenv.Redis(t)
	fake := &fakeInterviewer{evalDelay: 1500 * time.Millisecond}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.reply))
	dsn := testenv.MySQL(t)
	env := []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + model.URL(), "AI_OPENAI_API_KEY=sk-test",
		"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + dsn, "REDIS_ADDRS=" + testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=test:" + testenv.RandomSuffix(8) + ":", "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=distributed"}
	var servers []*servertest.Server
	for range 3 {
		servers = append(servers, servertest.Start(t, "", env...))
	}
	c := MustClient(t, servers[0].URL, "alice")
	sid := c.newSession()
	// A double-clicked upload lands on two instances: both succeed with the
	// same questions, and the questions are stored once.
	pdf := resumePDF(t)
	var uploads [2]servertest.Response
	var wg sync.WaitGroup
	for i := range uploads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := *c
			cc.base = servers[i].URL
			uploads[i] = cc.upload(sid, "resume.pdf", pdf, "")
		}()
	}
	wg.Wait()
	for i, r := range uploads {
		wantOK(t, r)
		var up interview.UploadResult
		r.Decode(t, &up)
		if up.QuestionCount != 5 || up.Questions["1"] == "" {
			t.Fatalf("upload copy %d = %s", i, r.Raw)
		}
	}
	wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))

	const copies = 30
	raws := make([]string, copies)
	statuses := make([]int, copies)
	for i := range copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := *c
			cc.base = servers[i%3].URL
			r := cc.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "My answer to one"})
			statuses[i], raws[i] = r.Status, string(r.Data)
		}()
	}
	wg.Wait()
	for i := range copies {
		if statuses[i] != 200 || raws[i] != raws[0] {
			t.Fatalf("copy %d: status %d data %s; copy 0: %s", i, statuses[i], raws[i], raws[0])
		}
	}
	if got := fake.evaluations.Load(); got != 1 {
		t.Fatalf("evaluation calls = %d, want exactly 1", got)
	}

	// Different answers race for question 2.
	var ok, conflict atomic.Int64
	var mu sync.Mutex
	var conflictData []string
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := *c
			cc.base = servers[i%3].URL
			r := cc.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "2", "answerContent": fmt.Sprintf("answer variant %d", i)})
			switch r.Status {
			case 200:
				ok.Add(1)
			case 409:
				conflict.Add(1)
				mu.Lock()
				conflictData = append(conflictData, string(r.Data))
				mu.Unlock()
			default:
				t.Errorf("variant %d: %d %s", i, r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || conflict.Load() != 5 {
		t.Fatalf("racing answers: %d scored, %d conflicts; want 1 and 5", ok.Load(), conflict.Load())
	}
	for _, d := range conflictData {
		if !strings.Contains(d, `"questionNumber":"`) {
			t.Fatalf("409 without the current question: %s", d)
		}
	}
}

// A model failure during evaluation keeps the stored answer and the
// question; the same request succeeds when retried.
func TestModelFailureKeepsAnswerAndAllowsRetry(t *testing.T) {
	fake := &fakeInterviewer{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))

	fake.failing.Store(true)
	body := map[string]string{"questionNumber": "1", "answerContent": "An answer that must not be lost", "requestId": "req-1"}
	r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	if r.Status != 502 || r.Code != "B000418" {
		t.Fatalf("model failure: %d %s", r.Status, r.Raw)
	}
	r = c.do("GET", "/sessions/"+sid+"/current-question", nil)
	if !strings.Contains(string(r.Data), `"questionNumber":"1"`) {
		t.Fatalf("question not given back: %s", r.Data)
	}
	fake.failing.Store(false)
	r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	wantOK(t, r)
	var a interview.AnswerResp
	r.Decode(t, &a)
	if a.QuestionNumber != "1" || a.RequestID != "req-1" || a.Score == nil {
		t.Fatalf("retry = %s", r.Raw)
	}
}
