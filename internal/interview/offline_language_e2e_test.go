package interview_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// uploadWithLanguage uploads a resume with the multipart language field.
func (c *client) uploadWithLanguage(sid, filename string, data []byte, language string) servertest.Response {
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

func containsHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// proseWord is an English word in lower case: technical terms in Chinese
// text are names (Redis, MySQL, B+), prose words are not.
var proseWord = regexp.MustCompile(`\b[a-z]{3,}\b`)

// quotedResumeName is a name quoted from the resume (「…」 or “…”).
var quotedResumeName = regexp.MustCompile(`「[^」]*」|“[^”]*”`)

// With the offline model, the session's language decides every text the
// candidate reads, whatever the language of the resume and the answers:
// questions, feedback, levels and the report.
func TestOfflineInterviewInSessionLanguage(t *testing.T) {
	en, err := os.ReadFile("offline/testdata/backend_resume.txt")
	if err != nil {
		t.Fatal(err)
	}
	zh, err := os.ReadFile("offline/testdata/frontend_resume_zh.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := servertest.Start(t, "")
	tests := []struct {
		name, user, language string
		resume               []byte
		answer               string
		chinese              bool
	}{
		{"English resume, zh-CN session", "cross-zh", interview.LangZH, en,
			"I would add an index on the filtered columns because it avoids full scans, then measure with EXPLAIN.", true},
		{"Chinese resume, en session", "cross-en", interview.LangEN, zh,
			"我会先把页面拆成组件，再用虚拟列表优化长列表的渲染性能，因为这样可以减少重绘。", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustClient(t, s.URL, tt.user)
			sid := c.newSession()
			r := c.uploadWithLanguage(sid, "resume.txt", tt.resume, tt.language)
			wantOK(t, r)
			var texts []string
			answers := c.runInterview(sid, func(string) string { return tt.answer })
			for _, a := range answers {
				texts = append(texts, a.QuestionContent, a.Feedback, a.LevelText, a.NextQuestion)
				texts = append(texts, a.Strengths...)
				texts = append(texts, a.Improvements...)
			}
			if n := pointCount(answers); n == 0 {
				t.Error("no answer listed a strength or an improvement")
			}
			r = c.do("PUT", "/sessions/"+sid+"/finish", nil)
			wantOK(t, r)
			var rep interview.Report
			r.Decode(t, &rep)
			texts = append(texts, rep.ReviewFeedback.OverallComment)
			texts = append(texts, rep.ReviewFeedback.ImprovementTips...)
			texts = append(texts, rep.ReviewFeedback.NextActions...)
			for _, it := range rep.PlaybackItems {
				texts = append(texts, it.Strengths...)
				texts = append(texts, it.Improvements...)
			}
			for _, s := range texts {
				if s == "" {
					continue
				}
				// A project's name quoted from the resume stays as the
				// candidate wrote it (the offline project deep-dive).
				s = quotedResumeName.ReplaceAllString(s, "")
				switch {
				case tt.chinese && !containsHan(s):
					t.Errorf("not Chinese in a zh-CN session: %q", s)
				case tt.chinese:
					for _, w := range proseWord.FindAllString(s, -1) {
						if w != "goroutine" && w != "channel" {
							t.Errorf("English word %q in %q", w, s)
						}
					}
				case containsHan(s):
					t.Errorf("Chinese in an en session: %q", s)
				}
			}
		})
	}
}
