package interview_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// answerAs answers question no of session sid with text.
func (c *client) answerAs(sid, no, text string) servertest.Response {
	c.t.Helper()
	return c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": no, "answerContent": text})
}

// mustAnswer answers no and decodes the 200 response.
func (c *client) mustAnswer(sid, no, text string) interview.AnswerResp {
	c.t.Helper()
	r := c.answerAs(sid, no, text)
	wantOK(c.t, r)
	var a interview.AnswerResp
	r.Decode(c.t, &a)
	return a
}

func (c *client) record(sid string) interview.Report {
	c.t.Helper()
	var rep interview.Report
	c.get("/interview/record/"+sid, &rep)
	return rep
}

// TestLiveReportReviewFeedbackTraceAndCounters runs one interview on
// MariaDB with the fake model and checks, along the way: the live report
// (issue 20 item 1), the review feedback rules (2), the resume profile in
// evaluation prompts (3), the AI trace (7) and the answer counters (8).
func TestLiveReportReviewFeedbackTraceAndCounters(t *testing.T) {
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test",
		"DATABASE_DRIVER=mysql", "DATABASE_DSN="+testenv.MySQL(t))
	admin := MustClient(t, s.URL, "root20") // the first user is the admin
	c := MustClient(t, s.URL, "alice")
	other := MustClient(t, s.URL, "mallory")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	c.get("/sessions/"+sid+"/current-question", nil)

	metric := func(name string) float64 {
		t.Helper()
		v, ok := servertest.Metric(t, s.URL, name)
		if !ok {
			t.Fatalf("metric %s not exported", name)
		}
		return v
	}
	replays0, stale0 := metric("aimeeting_interview_answer_replays_total"), metric("aimeeting_interview_stale_answers_total")

	t.Run("live report before any answer", func(t *testing.T) {
		rep := c.record(sid)
		if rep.Final || rep.ID != sid || rep.SessionID != sid || rep.UserID == "" || rep.InterviewStatus != interview.SessionInProgress ||
			len(rep.PlaybackItems) != 0 || rep.RadarChart.InterviewPerformance != nil || rep.RadarChart.DemeanorEvaluation != nil ||
			rep.ResumeScore == nil || rep.CreateTime == "" || rep.UpdateTime == "" || rep.EndTime != "" {
			t.Fatalf("live report = %+v", rep)
		}
		if len(rep.InterviewSuggestions) == 0 || rep.Suggestions["1"] != rep.InterviewSuggestions[0] || len(rep.Suggestions) != len(rep.InterviewSuggestions) {
			t.Fatalf("suggestions %q as map %v", rep.InterviewSuggestions, rep.Suggestions)
		}
		if r := other.do("GET", "/interview/record/"+sid, nil); r.Status != 404 {
			t.Fatalf("another user's live report: %d", r.Status)
		}
	})

	// Q1 is reviewed (low confidence) and its feedback echoes a credential.
	a1 := c.mustAnswer(sid, "1", "UNSURE LEAK: a complete answer for question 1")
	if a1.Score == nil || a1.ScoreHidden != "" || !strings.HasSuffix(a1.Feedback,
		"\nNote: this answer went to a second review, which confirmed the first evaluation.") {
		t.Fatalf("reviewed answer: %+v", a1)
	}
	t.Run("idempotent replay and stale answer are counted", func(t *testing.T) {
		r := c.answerAs(sid, "1", "UNSURE LEAK: a complete answer for question 1")
		wantOK(t, r)
		if r := c.answerAs(sid, "1", "a different answer to question 1"); r.Status != 409 {
			t.Fatalf("stale answer: %d %s", r.Status, r.Raw)
		}
		if got := metric("aimeeting_interview_answer_replays_total") - replays0; got != 1 {
			t.Errorf("replays counted %v, want 1", got)
		}
		if got := metric("aimeeting_interview_stale_answers_total") - stale0; got != 1 {
			t.Errorf("stale answers counted %v, want 1", got)
		}
	})

	// Q2 gives no evidence: evaluated, but its score is hidden.
	a2 := c.mustAnswer(sid, "2", "VAGUE: something about question 2")
	if a2.Score != nil || a2.ScoreHidden == "" || a2.Level != "" || a2.TotalScore == nil || *a2.TotalScore != *a1.Score {
		t.Fatalf("answer without evidence: %+v (Q1 scored %d)", a2, *a1.Score)
	}

	t.Run("live report during the interview", func(t *testing.T) {
		rep := c.record(sid)
		if rep.Final || len(rep.PlaybackItems) != 2 || rep.AnsweredCount != 2 || rep.InterviewScore == nil || *rep.InterviewScore != *a1.Score ||
			rep.RadarChart.DemeanorEvaluation != nil || rep.RadarChart.PotentialIndex == nil || rep.StartTime == "" {
			t.Fatalf("live report = %+v", rep)
		}
		p1, p2 := rep.PlaybackItems[0], rep.PlaybackItems[1]
		if p1.RequestID != a1.RequestID || p1.Timestamp == 0 || p1.TotalScore == nil || *p1.TotalScore != *a1.Score ||
			p1.NextQuestionNumber != "2" || p1.NextQuestion == "" || p1.FollowUpNeeded || p1.Finished || p1.Feedback != a1.Feedback {
			t.Fatalf("playback 1 = %+v, answered %+v", p1, a1)
		}
		if p2.Score != nil || p2.ScoreHidden == "" || p2.NextQuestionNumber != "3" || !strings.HasPrefix(p2.ScoreReason, "rule") {
			t.Fatalf("playback 2 = %+v", p2)
		}
	})

	// Q3 is weak on its core anchor: a follow-up.
	if a3 := c.mustAnswer(sid, "3", "WEAK: part of an answer to question 3"); !a3.IsFollowUp || a3.NextQuestionNumber != "3-F1" {
		t.Fatalf("weak answer: %+v", a3)
	}
	c.mustAnswer(sid, "3-F1", "the rest of the answer to question 3")
	c.mustAnswer(sid, "4", "A complete answer for question 4")
	if a5 := c.mustAnswer(sid, "5", "A complete answer for question 5"); !a5.Finished {
		t.Fatalf("last answer: %+v", a5)
	}

	wantOK(t, c.do("PUT", "/sessions/"+sid+"/finish", nil))
	t.Run("final report", func(t *testing.T) {
		rep := c.record(sid)
		if !rep.Final || rep.ID != sid || rep.InterviewStatus != interview.SessionFinished || rep.EndTime == "" || len(rep.PlaybackItems) != 6 {
			t.Fatalf("final report = %+v", rep)
		}
		if p := rep.PlaybackItems[2]; !p.FollowUpNeeded || p.FollowUpCount != 1 || p.NextQuestionNumber != "3-F1" {
			t.Fatalf("playback of the weak answer = %+v", p)
		}
		if p := rep.PlaybackItems[5]; !p.Finished || p.NextQuestionNumber != "" {
			t.Fatalf("last playback = %+v", p)
		}
		// Highlights are the turns' sentences (the second-review notice and
		// the hidden-score turn are not among them).
		fb := rep.ReviewFeedback
		if len(fb.Highlights) == 0 || len(fb.Highlights) > 3 {
			t.Fatalf("highlights %q", fb.Highlights)
		}
		for _, h := range fb.Highlights {
			if !strings.HasSuffix(h, ".") || strings.Contains(h, "second review") || strings.HasPrefix(h, "Q2:") {
				t.Errorf("highlight %q", h)
			}
		}
		var list struct {
			Total   int
			Records []interview.Report
		}
		c.get("/interview/records?sessionId="+sid, &list)
		if list.Total != 1 || list.Records[0].ID != sid || !list.Records[0].Final || list.Records[0].UserID != rep.UserID {
			t.Fatalf("records by sessionId = %+v", list)
		}
		c.get("/interview/records?sessionId=no-such-session", &list)
		if list.Total != 0 {
			t.Fatalf("records of an unknown session: %+v", list)
		}
	})

	t.Run("evaluation prompts carry the resume profile", func(t *testing.T) {
		n := 0
		for _, req := range model.Requests() {
			if st := req.Stage(); st != interview.StageEvaluation && st != interview.StageReview {
				continue
			}
			var in interview.EvaluationInput
			if err := json.Unmarshal([]byte(req.LastUserMessage()), &in); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(in.ResumeProfile, "Skills: Go; MySQL; Redis") || !strings.Contains(in.ResumeProfile, "Target role: backend engineer") ||
				len([]rune(in.ResumeProfile)) > interview.MaxResumeProfileChars {
				t.Fatalf("%s prompt profile = %q", req.Stage(), in.ResumeProfile)
			}
			n++
		}
		if n < 7 { // six answers and one review
			t.Fatalf("%d evaluation prompts seen", n)
		}
	})

	// The trace download is JSON Lines, not an envelope (errors are).
	trace := func(t *testing.T, cl *client, sid string) servertest.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+api+"/interview/sessions/"+sid+"/trace", nil)
		req.Header.Set("Authorization", "Bearer "+cl.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return servertest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(body)}
	}
	t.Run("AI trace", func(t *testing.T) {
		get := func(cl *client) servertest.Response { return trace(t, cl, sid) }
		if r := get(other); r.Status != 404 {
			t.Fatalf("another user's trace: %d %s", r.Status, r.Raw)
		}
		r := get(c)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-ndjson") ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("trace: %d %v", r.Status, r.Header)
		}
		if ra := get(admin); ra.Status != 200 || ra.Raw != r.Raw {
			t.Fatalf("admin's trace: %d, same body %v", ra.Status, ra.Raw == r.Raw)
		}
		if strings.Contains(r.Raw, interviewtest.LeakedKey) {
			t.Fatal("the trace holds the credential the model echoed")
		}
		stages := map[string]int{}
		sc := bufio.NewScanner(strings.NewReader(r.Raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e interview.TraceEntry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			stages[e.Stage]++
			if e.SessionID != sid || e.PromptVersion == "" || e.Outcome == "" || e.LatencyMs < 0 || e.Provider != "openai" ||
				len(e.Parsed) == 0 || string(e.Parsed) == "null" || e.At.IsZero() {
				t.Errorf("entry %s", sc.Text())
			}
			if e.Outcome == "owner_new" || e.Outcome == "local_fallback" || e.Raw != "" {
				if e.Raw == "" || e.Model == "" {
					t.Errorf("entry of a model call without raw text or model: %s", sc.Text())
				}
			}
			if e.Stage == interview.StageEvaluation && e.QuestionNumber == "1" && !strings.Contains(e.Raw, "api_key=******") {
				t.Errorf("the echoed credential is not masked in %q", e.Raw)
			}
		}
		want := map[string]int{interview.StageProfile: 1, interview.StageExtraction: 1, interview.StageEvaluation: 6,
			interview.StageReview: 1, interview.StageFollowUp: 1}
		for st, n := range want {
			if stages[st] != n {
				t.Errorf("trace has %d %s entries, want %d (all: %v)", stages[st], st, n, stages)
			}
		}
	})
	t.Run("a failed stage is traced with its error", func(t *testing.T) {
		fake.Fail(interview.StageProfile, true)
		defer fake.Fail(interview.StageProfile, false)
		osid := other.newSession()
		if r := other.upload(osid, "resume.pdf", resumePDF(t), ""); r.Status < 500 {
			t.Fatalf("upload with a failing model: %d %s", r.Status, r.Raw)
		}
		r := trace(t, other, osid)
		var e interview.TraceEntry
		if r.Status != 200 || strings.Count(r.Raw, "\n") != 1 {
			t.Fatalf("trace of the failed upload: %d %q", r.Status, r.Raw)
		}
		if err := json.Unmarshal([]byte(r.Raw), &e); err != nil {
			t.Fatal(err)
		}
		if e.Stage != interview.StageProfile || e.Error == "" || string(e.Parsed) != "null" || e.Outcome == "" {
			t.Fatalf("failed call entry = %s", r.Raw)
		}
		if r := trace(t, c, osid); r.Status != 404 {
			t.Fatalf("alice reading mallory's trace: %d", r.Status)
		}
	})
}
