package interview_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

const api = "/api/xunzhi/v1"

// slowEvaluation is a model latency: d for evaluations, none otherwise.
func slowEvaluation(d time.Duration) func(stage string) time.Duration {
	return func(stage string) time.Duration {
		if stage == interview.StageEvaluation {
			return d
		}
		return 0
	}
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
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
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
	if up.Read.Pages != 1 || up.Read.Source != interview.ReadFromText || up.Read.Chars < 100 || up.Replaced {
		t.Fatalf("a one-page PDF read as %+v (replaced %v)", up.Read, up.Replaced)
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
	if fake.Calls(interview.StageEvaluation) != 6 {
		t.Fatalf("evaluations = %d, want one per answer (6)", fake.Calls(interview.StageEvaluation))
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
	if replay.QuestionNumber != "1" || *replay.Score != *answers[0].Score || fake.Calls(interview.StageEvaluation) != 6 {
		t.Fatalf("replay = %+v, evaluations %d", replay, fake.Calls(interview.StageEvaluation))
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
	fake := &interviewtest.Model{Latency: slowEvaluation(1500 * time.Millisecond)}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
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
	if got := fake.Calls(interview.StageEvaluation); got != 1 {
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
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))

	fake.Fail(interview.StageEvaluation, true)
	body := map[string]string{"questionNumber": "1", "answerContent": "An answer that must not be lost", "requestId": "req-1"}
	r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	if r.Status != 502 || r.Code != "B000418" {
		t.Fatalf("model failure: %d %s", r.Status, r.Raw)
	}
	r = c.do("GET", "/sessions/"+sid+"/current-question", nil)
	if !strings.Contains(string(r.Data), `"questionNumber":"1"`) {
		t.Fatalf("question not given back: %s", r.Data)
	}
	fake.Fail(interview.StageEvaluation, false)
	r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	wantOK(t, r)
	var a interview.AnswerResp
	r.Decode(t, &a)
	if a.QuestionNumber != "1" || a.RequestID != "req-1" || a.Score == nil {
		t.Fatalf("retry = %s", r.Raw)
	}
}

// resumeFiles lists the resume files a server keeps on disk.
func resumeFiles(t *testing.T, s *servertest.Server) []string {
	t.Helper()
	var out []string
	root := filepath.Join(s.Dir, "data", "files", "uploads", "resumes")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (c *client) preview(sid string) string {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+api+"/interview/sessions/"+sid+"/resume/preview", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		c.t.Fatalf("preview: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// Issue 14: before the first answer a new upload replaces the resume
// (questions regenerated, old file removed); a failing replacement keeps
// the old one; after the first answer it is a 409 and nothing changes.
func TestReplaceResumeEndToEnd(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	resumeA := "Ann Lee, backend engineer\nSkills: Go, MySQL, Redis, Kafka.\nBuilt an order service at 3000 QPS; cut p99 latency by 40% with Redis caching.\n" +
		"Designed the consumer groups of a Kafka pipeline that moves 2 billion events a day; led the MySQL sharding migration.\n"
	resumeB := "Ann Lee, frontend engineer\nSkills: React, TypeScript, Webpack, CSS.\nShipped a React design system used by 12 teams; cut bundle size by 30% with Webpack code splitting.\n" +
		"Rebuilt the checkout page in TypeScript; moved 40 pages to server rendering and cut time to interactive by half.\n"
	questions := func() string {
		r := c.do("GET", "/sessions/"+sid+"/interview/questions", nil)
		wantOK(t, r)
		return string(r.Data)
	}
	restore := func() interview.Restore {
		r := c.do("GET", "/sessions/"+sid+"/restore", nil)
		wantOK(t, r)
		var out interview.Restore
		r.Decode(t, &out)
		return out
	}

	r := c.upload(sid, "a.txt", []byte(resumeA), "")
	wantOK(t, r)
	var a interview.UploadResult
	r.Decode(t, &a)
	if a.Read.Chars != utf8.RuneCountInString(resumeA) || a.Read.Source != "text" || a.Read.Pages != 0 || a.Replaced {
		t.Fatalf("upload A: read %+v replaced %v", a.Read, a.Replaced)
	}
	if !strings.Contains(r.Raw, `"read":{"chars":`) {
		t.Fatalf("upload response without read: %s", r.Raw)
	}
	questionsA := questions()
	if !strings.Contains(questionsA, "Redis") && !strings.Contains(questionsA, "Kafka") && !strings.Contains(questionsA, "MySQL") {
		t.Fatalf("questions of A do not name its skills: %s", questionsA)
	}
	filesA := resumeFiles(t, s)
	if len(filesA) != 1 {
		t.Fatalf("files after A: %v", filesA)
	}

	// A replacement that cannot be read: 422, A stays.
	r = c.upload(sid, "scan.pdf", []byte("\x89PNG\r\n\x1a\nnot a resume"), "")
	if r.Status != 422 {
		t.Fatalf("unreadable replacement: %d %s", r.Status, r.Raw)
	}
	if got := restore(); got.Status != "READY" || !got.CanReplaceResume || got.Read == nil || *got.Read != a.Read {
		t.Fatalf("restore after a failed replacement: %+v", got)
	}
	if questions() != questionsA || c.preview(sid) != resumeA {
		t.Fatal("a failed replacement changed the questions or the resume")
	}

	// B replaces A before the first answer.
	r = c.upload(sid, "b.md", []byte(resumeB), "")
	wantOK(t, r)
	var b interview.UploadResult
	r.Decode(t, &b)
	if !b.Replaced || b.Read.Chars != utf8.RuneCountInString(resumeB) {
		t.Fatalf("upload B: %s", r.Raw)
	}
	questionsB := questions()
	if questionsB == questionsA || !(strings.Contains(questionsB, "React") || strings.Contains(questionsB, "TypeScript") ||
		strings.Contains(questionsB, "Webpack")) {
		t.Fatalf("questions after the replacement:\nA: %s\nB: %s", questionsA, questionsB)
	}
	if c.preview(sid) != resumeB {
		t.Fatal("preview does not serve B")
	}
	filesB := resumeFiles(t, s)
	if len(filesB) != 1 || filesB[0] == filesA[0] {
		t.Fatalf("files after B: %v (A was %v)", filesB, filesA)
	}
	if got := restore(); got.Read == nil || *got.Read != b.Read || got.Status != "READY" {
		t.Fatalf("restore after B: %+v", got)
	}

	// Answer once; then a replacement is refused and nothing changes.
	cur := c.do("GET", "/sessions/"+sid+"/current-question", nil)
	wantOK(t, cur)
	var q interview.AnswerResp
	cur.Decode(t, &q)
	wantOK(t, c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": q.QuestionNumber,
		"answerContent": "I built a React design system with TypeScript and measured the bundle with Webpack."}))
	before := restore()
	r = c.upload(sid, "c.txt", []byte("Skills: Rust, Tokio.\nWrote a storage engine.\n"), "")
	if r.Status != 409 || r.Code != "B000414" || !strings.Contains(r.Message, "can no longer be replaced once the interview has started") {
		t.Fatalf("replacement after the first answer: %d %s", r.Status, r.Raw)
	}
	after := restore()
	if after.Status != "IN_PROGRESS" || after.CanReplaceResume || after.Current.QuestionNumber != before.Current.QuestionNumber ||
		*after.Read != *before.Read {
		t.Fatalf("after the refused replacement: %+v (before %+v)", after, before)
	}
	if questions() != questionsB || c.preview(sid) != resumeB || len(resumeFiles(t, s)) != 1 {
		t.Fatal("a refused replacement changed the questions, the resume or the files")
	}
}
