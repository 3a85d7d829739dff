package interview_test

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// photo makes a small PNG; shade varies the bytes.
func photo(t *testing.T, shade uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = shade
	}
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (c *client) demeanor(sid string, data []byte) servertest.Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("userPhoto", "me.png")
	fw.Write(data)
	w.Close()
	req, _ := http.NewRequest("POST", c.base+api+"/interview/sessions/"+sid+"/demeanor-evaluation", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	return servertest.Send(c.t, req)
}

func (c *client) get(path string, v any) {
	c.t.Helper()
	r := c.do("GET", path, nil)
	wantOK(c.t, r)
	if v != nil {
		r.Decode(c.t, v)
	}
}

func TestReportWithVisionModel(t *testing.T) {
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test", "AI_OPENAI_VISION=true")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	c.get("/sessions/"+sid+"/current-question", nil)

	// Two photos; the first sent twice (same bytes: one model call, counted once).
	for _, p := range [][]byte{photo(t, 10), photo(t, 10), photo(t, 200)} {
		r := c.demeanor(sid, p)
		wantOK(t, r)
		var d interview.DemeanorResult
		r.Decode(t, &d)
		if !d.Assessed || d.CompositeScore == nil || *d.CompositeScore != 80 || *d.PanicLevel != 80 {
			t.Fatalf("demeanor = %s (0-10 scale must become 0-100)", r.Raw)
		}
	}
	if fake.Calls(interview.StageDemeanor) != 2 {
		t.Fatalf("demeanor model calls = %d, want 2 (same photo deduplicated)", fake.Calls(interview.StageDemeanor))
	}
	if r := c.demeanor(sid, []byte("GIF89a not allowed")); r.Status != 422 {
		t.Fatalf("GIF photo: %d %s", r.Status, r.Raw)
	}

	answers := c.runInterview(sid, func(no string) string { return "A complete answer for question " + no })
	r := c.do("PUT", "/sessions/"+sid+"/finish", nil)
	wantOK(t, r)
	var rep interview.Report
	r.Decode(t, &rep)
	if rep.InterviewStatus != "FINISHED" || rep.DemeanorScore == nil || *rep.DemeanorScore != 80 || rep.RadarChart.PotentialIndex == nil {
		t.Fatalf("report = %s", r.Raw)
	}
	if len(rep.PlaybackItems) != len(answers) || len(rep.RadarDimensions) != 5 {
		t.Fatalf("playback %d items for %d answers; %d radar dimensions", len(rep.PlaybackItems), len(answers), len(rep.RadarDimensions))
	}
	for i, it := range rep.PlaybackItems {
		if it.QuestionNumber != answers[i].QuestionNumber || *it.Score != *answers[i].Score || it.AnswerContent == "" {
			t.Fatalf("playback %d = %+v, answered %+v", i, it, answers[i])
		}
	}
	if rep.ReviewFeedback.OverallComment == "" {
		t.Fatal("no overall comment")
	}
	// A second finish returns the same report.
	r2 := c.do("PUT", "/sessions/"+sid+"/finish", nil)
	wantOK(t, r2)
	if string(r2.Data) != string(r.Data) {
		t.Fatalf("second finish differs:\n%s\n%s", r2.Data, r.Data)
	}
	var rec interview.Report
	c.get("/interview/record/"+sid, &rec)
	if rec.SessionID != sid || len(rec.PlaybackItems) != len(answers) {
		t.Fatalf("record = %+v", rec)
	}
	var list struct {
		Total   int
		Records []interview.Report
	}
	c.get("/interview/records?minScore=1&interviewDirection=backend", &list)
	if list.Total != 1 || list.Records[0].SessionID != sid {
		t.Fatalf("records = %+v", list)
	}
	c.get("/interview/records?maxScore=50", &list)
	if list.Total != 0 {
		t.Fatalf("records with maxScore=50 = %+v", list)
	}
	// The radar as a picture.
	resp := getRaw(t, c, "/sessions/"+sid+"/radar-chart.svg")
	if resp.ct != "image/svg+xml" || xml.Unmarshal(resp.body, new(struct{})) != nil || !bytes.Contains(resp.body, []byte("Potential")) {
		t.Fatalf("radar svg: %s %.200s", resp.ct, resp.body)
	}
	// Answers after finishing are refused.
	if r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "late"}); r.Status != 409 {
		t.Fatalf("answer after finish: %d", r.Status)
	}
}

type rawResp struct {
	status int
	ct     string
	body   []byte
}

func getRaw(t *testing.T, c *client, path string) rawResp {
	t.Helper()
	return getRawIn(t, c, path, "")
}

// getRawIn is getRaw with an Accept-Language header (none when lang is "").
func getRawIn(t *testing.T, c *client, path, lang string) rawResp {
	t.Helper()
	req, _ := http.NewRequest("GET", c.base+api+"/interview"+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return rawResp{resp.StatusCode, resp.Header.Get("Content-Type"), buf.Bytes()}
}

func TestReportOfflineDemeanorNotAssessed(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.md", []byte("# Jane\nFrontend engineer: React, TypeScript, CSS.\n"+resumeFiller), ""))
	c.get("/sessions/"+sid+"/current-question", nil)
	r := c.demeanor(sid, photo(t, 50))
	wantOK(t, r)
	var d interview.DemeanorResult
	r.Decode(t, &d)
	if d.Assessed || d.CompositeScore != nil || d.Message == "" {
		t.Fatalf("offline demeanor = %s; want not assessed, no invented scores", r.Raw)
	}
	c.runInterview(sid, func(string) string { return "I would measure first, then fix the slowest part." })
	var rep interview.Report
	r = c.do("PUT", "/sessions/"+sid+"/finish", nil)
	wantOK(t, r)
	r.Decode(t, &rep)
	if rep.DemeanorScore != nil || rep.RadarChart.DemeanorEvaluation != nil || rep.RadarChart.PotentialIndex == nil || !rep.Offline {
		t.Fatalf("offline report radar = %+v", rep.RadarChart)
	}
	svg := getRaw(t, c, "/sessions/"+sid+"/radar-chart.svg")
	if !strings.Contains(string(svg.body), "n/a") {
		t.Fatal("absent demeanor not shown as n/a in the SVG")
	}
	// The web page in Chinese shows this English interview's radar with
	// Chinese labels, as it lists the dimensions.
	svg = getRawIn(t, c, "/sessions/"+sid+"/radar-chart.svg", "zh-CN,zh;q=0.9")
	if body := string(svg.body); !strings.Contains(body, ">未评估<") || !strings.Contains(body, ">面试表现<") || strings.Contains(body, "n/a") {
		t.Fatalf("radar for a Chinese page: %.300s", body)
	}
}

// A session survives a crash: kill -9 mid-interview, restart on the same
// data, continue from the current question; no turn is lost or repeated.
func TestSessionSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	s := servertest.Start(t, dir)
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.txt", []byte("Backend engineer. Go, PostgreSQL, Redis, Docker.\n"+resumeFiller), ""))
	var cur interview.AnswerResp
	c.get("/sessions/"+sid+"/current-question", &cur)
	answered := map[string]string{}
	for range 2 {
		text := "Answer to " + cur.QuestionNumber + ": use an index because scans are slow."
		r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": cur.QuestionNumber, "answerContent": text})
		wantOK(t, r)
		answered[cur.QuestionNumber] = text
		c.get("/sessions/"+sid+"/current-question", &cur)
	}
	s.Kill()

	s = servertest.Start(t, dir)
	c.base = s.URL
	var restore interview.Restore
	c.get("/sessions/"+sid+"/restore", &restore)
	if !restore.CanResume || restore.Current.QuestionNumber != cur.QuestionNumber {
		t.Fatalf("after kill: restore = %+v, want to resume at %s", restore, cur.QuestionNumber)
	}
	rest := c.runInterview(sid, func(no string) string {
		answered[no] = "Answer to " + no + ": measure, then optimise."
		return answered[no]
	})
	if len(rest) == 0 {
		t.Fatal("nothing left to answer after restart")
	}
	var rep interview.Report
	r := c.do("PUT", "/sessions/"+sid+"/finish", nil)
	wantOK(t, r)
	r.Decode(t, &rep)
	seen := map[string]bool{}
	for _, it := range rep.PlaybackItems {
		if seen[it.QuestionNumber] {
			t.Fatalf("question %s played back twice", it.QuestionNumber)
		}
		seen[it.QuestionNumber] = true
		if answered[it.QuestionNumber] != it.AnswerContent {
			t.Fatalf("playback of %s = %q, answered %q", it.QuestionNumber, it.AnswerContent, answered[it.QuestionNumber])
		}
	}
	if len(seen) != len(answered) {
		t.Fatalf("playback has %d turns, %d were answered", len(seen), len(answered))
	}
}

// Another user gets 404 for every session endpoint of a session that is
// not theirs, and the owner's data is untouched.
func TestOtherUserGets404Everywhere(t *testing.T) {
	s := servertest.Start(t, "")
	owner := MustClient(t, s.URL, "alice")
	other := MustClient(t, s.URL, "mallory")
	sid := owner.newSession()
	wantOK(t, owner.upload(sid, "resume.txt", []byte("Backend engineer. Go and MySQL.\n"+resumeFiller), ""))
	owner.get("/sessions/"+sid+"/current-question", nil)
	wantOK(t, owner.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "An answer"}))

	for _, tc := range []struct{ method, path string }{
		{"GET", "/sessions/" + sid + "/current-question"}, {"GET", "/sessions/" + sid + "/next-question"},
		{"POST", "/sessions/" + sid + "/interview/answer-json"}, {"POST", "/sessions/" + sid + "/interview/answer"},
		{"GET", "/sessions/" + sid + "/restore"}, {"GET", "/sessions/" + sid + "/interview/questions"},
		{"GET", "/sessions/" + sid + "/interview/score"}, {"GET", "/sessions/" + sid + "/interview/suggestions"},
		{"GET", "/sessions/" + sid + "/resume/score"}, {"GET", "/sessions/" + sid + "/resume/preview"},
		{"GET", "/sessions/" + sid + "/radar-chart"}, {"GET", "/sessions/" + sid + "/radar-chart.svg"},
		{"PUT", "/sessions/" + sid + "/finish"}, {"GET", "/interview/record/" + sid},
	} {
		var body any
		if tc.method == "POST" && strings.HasSuffix(tc.path, "answer-json") {
			body = map[string]string{"questionNumber": "2", "answerContent": "hijack"}
		}
		if r := other.do(tc.method, tc.path, body); r.Status != 404 {
			t.Errorf("%s %s as another user = %d %s, want 404", tc.method, tc.path, r.Status, r.Raw)
		}
	}
	if r := other.upload(sid, "resume.txt", []byte("mine now"), ""); r.Status != 404 {
		t.Errorf("upload as another user = %d", r.Status)
	}
	if r := other.demeanor(sid, photo(t, 1)); r.Status != 404 {
		t.Errorf("demeanor as another user = %d", r.Status)
	}
	var restore interview.Restore
	owner.get("/sessions/"+sid+"/restore", &restore)
	if restore.Status != "IN_PROGRESS" || restore.Current.QuestionNumber == "1" {
		t.Fatalf("owner's session changed: %+v", restore)
	}
}

// SIGTERM during an evaluation: the server stops accepting, lets the
// in-flight answer finish (it gets its score), then exits; after a restart
// the turn is there.
func TestShutdownDrainsEvaluation(t *testing.T) {
	fake := &interviewtest.Model{Latency: slowEvaluation(1500 * time.Millisecond)}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	dir := t.TempDir()
	env := []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + model.URL(), "AI_OPENAI_API_KEY=sk-test"}
	s := servertest.Start(t, dir, env...)
	c := MustClient(t, s.URL, "alice")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	c.get("/sessions/"+sid+"/current-question", nil)

	done := make(chan servertest.Response, 1)
	go func() {
		done <- c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": "1", "answerContent": "Drained answer"})
	}()
	for deadline := time.Now().Add(10 * time.Second); fake.Calls(interview.StageEvaluation) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the evaluation never reached the model")
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Stop(t) // SIGTERM; returns when the process has exited
	r := <-done
	wantOK(t, r)
	if !strings.Contains(s.Logs(), "stopped") {
		t.Fatalf("no clean stop in the logs:\n%s", s.Logs())
	}
	s = servertest.Start(t, dir, env...)
	c.base = s.URL
	var rec interview.Restore
	c.get("/sessions/"+sid+"/restore", &rec)
	if rec.Current.QuestionNumber == "1" || rec.Current.TotalScore == nil {
		t.Fatalf("after the drained shutdown: %+v, want question 1 scored", rec.Current)
	}
}
