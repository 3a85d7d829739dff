package interview_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

const resumeZH = "张伟，后端工程师\nSkills: Golang, MySQL, Redis.\n在支付团队负责账务系统，峰值每秒五千笔交易，" +
	"主导了数据库分库分表和缓存一致性的改造。\n"

func TestDetectLanguage(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{resumeZH, interview.LangZH},
		{"熟悉 Java、Spring Boot、MySQL、Redis，负责订单系统的设计与开发，参与高并发场景的性能优化。", interview.LangZH},
		{resumeA, interview.LangEN},
		{"Zhang Wei (张伟), backend engineer. Built payment services in Go on MySQL and Redis.", interview.LangEN},
		{"", interview.LangEN},
		{"12345 !!!", interview.LangEN},
	} {
		if got := interview.DetectLanguage(c.text); got != c.want {
			t.Errorf("DetectLanguage(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]string{"": "", " zh-CN ": interview.LangZH, "zh-cn": interview.LangZH, "EN": interview.LangEN} {
		got, err := interview.ParseLanguage(in)
		if err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"fr", "zh", "zh-TW", "english"} {
		_, err := interview.ParseLanguage(in)
		e := wantKind(t, err, apperr.KindInvalid, "")
		if !strings.Contains(e.Error(), "language") {
			t.Errorf("ParseLanguage(%q) error %q does not name the language field", in, e.Error())
		}
	}
}

// The session's language comes from the upload's field, else from the
// resume; it is stored, and returned by the upload, the session and restore.
func TestSessionLanguage(t *testing.T) {
	run := func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := MustUploadEnv(t, gdb)
		const user = "u-lang"
		for _, c := range []struct {
			name, resume, field, want string
		}{
			{"detected Chinese", resumeZH, "", interview.LangZH},
			{"detected English", resumeA, "", interview.LangEN},
			{"field overrides an English resume", resumeA, "zh-CN", interview.LangZH},
			{"field overrides a Chinese resume", resumeZH, "en", interview.LangEN},
		} {
			sess, err := e.svc.Create(ctx, user)
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.svc.UploadIn(ctx, user, sess.ID, "cv.txt", []byte(c.resume), "", c.field)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if res.Language != c.want {
				t.Errorf("%s: upload language = %q, want %q", c.name, res.Language, c.want)
			}
			got, err := e.svc.Session(ctx, user, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Language != c.want || interview.ViewOf(got).Language != c.want {
				t.Errorf("%s: stored language = %q, want %q", c.name, got.Language, c.want)
			}
			r, err := e.svc.Restore(ctx, user, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Language != c.want {
				t.Errorf("%s: restore language = %q, want %q", c.name, r.Language, c.want)
			}
		}

		// A bad field is refused before anything is read or stored.
		sess, err := e.svc.Create(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.UploadIn(ctx, user, sess.ID, "cv.txt", []byte(resumeA), "", "fr")
		if !strings.Contains(wantKind(t, err, apperr.KindInvalid, "").Error(), "language") {
			t.Errorf("error %v does not name the language field", err)
		}
		got, err := e.svc.Session(ctx, user, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != interview.SessionDraft || got.Language != "" {
			t.Errorf("refused upload left status %q language %q", got.Status, got.Language)
		}
	}
	each(t, run)
}

// Every stage that writes for the candidate asks the model for the
// session's language.
func TestPromptsAskForSessionLanguage(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		for _, c := range []struct{ field, want, not string }{
			{"zh-CN", "Write all text for the candidate in Simplified Chinese", "candidate in English"},
			{"en", "Write all text for the candidate in English", "Chinese"},
		} {
			e := newEnv(t, gdb)
			const user = "u-prompt-lang"
			s := e.session(user)
			if _, err := e.svc.UploadIn(ctx, user, s.ID, "resume.txt", []byte(resumeText), "", c.field); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.CurrentQuestion(ctx, user, s.ID); err != nil {
				t.Fatal(err)
			}
			// WEAK asks for a follow-up, UNSURE for a review.
			if _, err := e.svc.Answer(ctx, user, s.ID, answer("1", "WEAK UNSURE: I would add an index.", "r-lang-"+c.field)); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, r := range e.srv.Requests() {
				seen[r.Stage()] = true
				sys := r.SystemPrompt()
				if !strings.Contains(sys, c.want) || strings.Contains(sys, c.not) || strings.Contains(sys, "{{language}}") {
					t.Errorf("%s session, stage %s: system prompt does not ask for %q only:\n%s", c.field, r.Stage(), c.want, sys)
				}
			}
			for _, stage := range []string{interview.StageProfile, interview.StageExtraction, interview.StageEvaluation,
				interview.StageReview, interview.StageFollowUp} {
				if !seen[stage] {
					t.Errorf("%s session: stage %s was not called (seen %v)", c.field, stage, seen)
				}
			}
		}
	})
}

// A zh-CN session shows level names, radar labels and the report's own
// prose in Chinese; the level codes and radar keys stay as they are.
func TestChineseSessionReport(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		const user = "u-zh-report"
		s := e.session(user)
		if _, err := e.svc.UploadIn(ctx, user, s.ID, "resume.txt", []byte(resumeText), "", "zh-CN"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.CurrentQuestion(ctx, user, s.ID); err != nil {
			t.Fatal(err)
		}
		resp, err := e.svc.Answer(ctx, user, s.ID, answer("1", "B+ 树的查找从根节点开始逐层比较。", "r-zh-1"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Level != interview.LevelExcellent || resp.LevelText != "优秀" {
			t.Errorf("answer level = %q, levelText = %q; want %q, 优秀", resp.Level, resp.LevelText, interview.LevelExcellent)
		}
		rep, err := e.svc.Finish(ctx, user, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.ReviewFeedback.OverallComment; !strings.Contains(c, "潜力指数") || strings.ContainsAny(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("overall comment is not Chinese: %q", c)
		}
		for _, h := range rep.ReviewFeedback.Highlights {
			if !strings.HasPrefix(h, "第 1 题：") {
				t.Errorf("highlight label is not Chinese: %q", h)
			}
		}
		if len(rep.PlaybackItems) != 1 || rep.PlaybackItems[0].Level != interview.LevelExcellent || rep.PlaybackItems[0].LevelText != "优秀" {
			t.Errorf("playback = %+v", rep.PlaybackItems)
		}
		if d := rep.RadarDimensions[1]; d.Key != "interviewPerformance" || d.Label != "面试表现" {
			t.Errorf("radar dimension = %+v", d)
		}
		svg := string(interview.RadarSVGIn(rep.RadarChart, interview.LangZH))
		if !strings.Contains(svg, ">面试表现<") || !strings.Contains(svg, `aria-label="面试雷达图"`) {
			t.Errorf("SVG labels are not Chinese: %s", svg)
		}
		if rep.RadarChart.DemeanorEvaluation == nil && (!strings.Contains(svg, ">未评估<") || strings.Contains(svg, "n/a")) {
			t.Errorf("an absent score in a Chinese SVG is not 未评估: %s", svg)
		}
	})
}

// Over HTTP: the multipart language field sets the session's language, a
// bad one is a 400 naming the field, and restore returns it.
func TestUploadLanguageOverHTTP(t *testing.T) {
	s := servertest.Start(t, "")
	c := MustClient(t, s.URL, "lang-http")
	post := func(sid, language string) servertest.Response {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		fw, _ := w.CreateFormFile("resumePdf", "resume.txt")
		fw.Write([]byte(resumeText + strings.Repeat("Five years in a product team, owning features from design to release.\n", 3)))
		w.WriteField("language", language)
		w.Close()
		req, _ := http.NewRequest("POST", c.base+api+"/interview/sessions/"+sid+"/interview-questions", &buf)
		req.Header.Set("Content-Type", w.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+c.token)
		return servertest.Send(t, req)
	}
	sid := c.newSession()
	if r := post(sid, "klingon"); r.Status != 400 || !strings.Contains(string(r.Raw), "language must be") {
		t.Errorf("bad language: status %d %s; want 400 naming the language field", r.Status, r.Raw)
	}
	r := post(sid, "zh-CN")
	wantOK(t, r)
	var up interview.UploadResult
	r.Decode(t, &up)
	if up.Language != interview.LangZH {
		t.Errorf("upload language = %q, want zh-CN", up.Language)
	}
	r = c.do("GET", "/sessions/"+sid+"/restore", nil)
	wantOK(t, r)
	var rs interview.Restore
	r.Decode(t, &rs)
	if rs.Language != interview.LangZH {
		t.Errorf("restore language = %q, want zh-CN", rs.Language)
	}
}
