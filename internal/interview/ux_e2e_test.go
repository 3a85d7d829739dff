package interview_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// uploadIn uploads the test resume with the session language.
func (c *client) uploadIn(sid, language, filename string, data []byte) servertest.Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("resumePdf", filename)
	fw.Write(data)
	w.WriteField("language", language)
	w.Close()
	req, _ := http.NewRequest("POST", c.base+api+"/interview/sessions/"+sid+"/interview-questions", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	return servertest.Send(c.t, req)
}

// Issue 19, offline, in both languages: "yes" is a too-short answer, not
// no answer; a report without answers has no potential, skills or duration
// (null, with the reason), and its next steps do not repeat the tips.
func TestOfflineSmallThings(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "smallthings")
	// The offline model asks in the resume's language: a Chinese resume for
	// the Chinese session.
	zhResume, err := os.ReadFile("offline/testdata/frontend_resume_zh.txt")
	if err != nil {
		t.Fatal(err)
	}
	resumes := map[string]func() (string, []byte){
		interview.LangEN: func() (string, []byte) { return "resume.pdf", resumePDF(t) },
		interview.LangZH: func() (string, []byte) { return "resume.txt", zhResume },
	}
	for _, tt := range []struct {
		lang, tooShort, noAnswers string
	}{
		{interview.LangEN, "is too short to judge", "No question was answered"},
		{interview.LangZH, "太短，无法判断", "没有回答任何问题"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			// "yes" to the first question.
			sid := c.newSession()
			name, data := resumes[tt.lang]()
			wantOK(t, c.uploadIn(sid, tt.lang, name, data))
			wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))
			r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "yes"})
			wantOK(t, r)
			var a interview.AnswerResp
			r.Decode(t, &a)
			if !strings.Contains(a.Feedback, tt.tooShort) || strings.Contains(a.Feedback, "No answer was given") || strings.Contains(a.Feedback, "没有作答") {
				t.Fatalf("feedback on \"yes\" to %q = %q, want it called too short", a.QuestionContent, a.Feedback)
			}

			// A report with no answer.
			sid = c.newSession()
			name, data = resumes[tt.lang]()
			wantOK(t, c.uploadIn(sid, tt.lang, name, data))
			wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))
			r = c.do("PUT", "/sessions/"+sid+"/finish", nil)
			wantOK(t, r)
			var rep interview.Report
			r.Decode(t, &rep)
			if rep.AnsweredCount != 0 || rep.InterviewScore != nil || rep.RadarChart.PotentialIndex != nil ||
				rep.RadarChart.ProfessionalSkills != nil || rep.DurationSeconds != nil || !strings.Contains(rep.NotAssessedReason, tt.noAnswers) {
				t.Fatalf("report without answers: %s", r.Data)
			}
			if !strings.Contains(string(r.Data), `"durationSeconds":null`) || !strings.Contains(string(r.Data), `"potentialIndex":null`) {
				t.Fatalf("null fields not sent as null: %s", r.Data)
			}
			r = c.do("GET", "/interview/record/"+sid, nil)
			if !strings.Contains(string(r.Data), `"durationSeconds":null`) {
				t.Fatalf("stored report: %s", r.Data)
			}
		})
	}
}

// Issue 19: whether demeanor can be assessed is known before the camera is
// offered (capabilities, restore), and a photo the model cannot see is
// answered with one clear sentence.
func TestDemeanorCapability(t *testing.T) {
	s := servertest.Start(t, "") // offline: no vision
	c := MustClient(t, s.URL, "camera")
	var caps interview.Capabilities
	r := c.do("GET", "/capabilities", nil)
	wantOK(t, r)
	r.Decode(t, &caps)
	if caps.Demeanor.Available || caps.Demeanor.ReasonCode != interview.ReasonNoVision || !caps.Offline ||
		caps.Demeanor.Reason != "Demeanor is not assessed because the AI model in use cannot see images." {
		t.Fatalf("offline capabilities = %s", r.Data)
	}
	r = c.do("GET", "/capabilities?language=zh-CN", nil)
	caps = interview.Capabilities{}
	r.Decode(t, &caps)
	if caps.Demeanor.Reason != "当前的 AI 模型无法识别图像，因此不评估仪态。" {
		t.Fatalf("Chinese capabilities = %s", r.Data)
	}
	if r := c.do("GET", "/capabilities?language=fr", nil); r.Status != 400 {
		t.Fatalf("unknown language: %d %s", r.Status, r.Raw)
	}

	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	r = c.do("GET", "/sessions/"+sid+"/restore", nil)
	var rs interview.Restore
	r.Decode(t, &rs)
	if rs.Demeanor.Available || rs.Demeanor.ReasonCode != interview.ReasonNoVision {
		t.Fatalf("restore demeanor = %s", r.Data)
	}
	c.do("GET", "/sessions/"+sid+"/current-question", nil)
	r = c.demeanor(sid, photo(t, 50))
	wantOK(t, r)
	var d interview.DemeanorResult
	r.Decode(t, &d)
	if d.Assessed || d.Message != "Demeanor is not assessed because the AI model in use cannot see images." {
		t.Fatalf("demeanor message = %q, want one sentence", d.Message)
	}

	vision := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=http://127.0.0.1:1/v1", "AI_OPENAI_API_KEY=sk-test",
		"AI_OPENAI_VISION=true")
	v := MustClient(t, vision.URL, "camera")
	caps = interview.Capabilities{}
	r = v.do("GET", "/capabilities", nil)
	r.Decode(t, &caps)
	if !caps.Demeanor.Available || caps.Demeanor.Reason != "" || caps.Offline {
		t.Fatalf("vision capabilities = %s", r.Data)
	}
}
