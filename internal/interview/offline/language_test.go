package offline_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// lowerWord finds English words written in lower case: technical terms in
// Chinese text are names (Redis, MySQL, TTL, B+), prose words are not.
// Go's own lower-case terms are the exception.
var lowerWord = regexp.MustCompile(`\b[a-z]{3,}\b`)

var lowerTerms = map[string]bool{"goroutine": true, "channel": true}

// quotedName is a name quoted from the resume (a project's name in a
// project deep-dive): it stays as the candidate wrote it, in any language.
var quotedName = regexp.MustCompile(`「[^」]*」|“[^”]*”`)

// crossing runs every text stage for resume and answer in lang, and
// returns the candidate-facing texts: questions, follow-up strategies,
// suggestions, evaluation feedback and evidence, missing points, the
// follow-up question.
func crossing(t *testing.T, lang, resume, target, answer string) []string {
	t.Helper()
	o := newModel()
	p := mustDecode[interview.Profile](t, mustGenerateIn(t, o, interview.StageProfile, lang, interview.ProfileInput{ResumeText: resume}))
	qs := mustDecode[interview.Questions](t, mustGenerateIn(t, o, interview.StageExtraction, lang,
		interview.ExtractionInput{ResumeText: resume, Target: target, Profile: p, QuestionCount: 6}))
	texts := append([]string{qs.InterviewType}, qs.Suggestions...)
	texts = append(texts, p.ResumeSuggestions...)
	for _, q := range qs.Questions {
		texts = append(texts, q.Content, q.FollowUpStrategy)
	}
	q := qs.Questions[0]
	ev := mustDecode[interview.Evaluation](t, mustGenerateIn(t, o, interview.StageEvaluation, lang,
		interview.EvaluationInput{QuestionNumber: "1", Question: q, Answer: answer}))
	texts = append(texts, ev.Feedback)
	texts = append(texts, ev.MissingPoints...)
	for _, d := range ev.Dimensions {
		if !strings.HasPrefix(d.Evidence, "“") && !strings.HasPrefix(d.Evidence, "\"") { // a quote of the answer is the candidate's own
			texts = append(texts, d.Evidence)
		}
	}
	fu := mustDecode[interview.FollowUpOutput](t, mustGenerateIn(t, o, interview.StageFollowUp, lang,
		interview.FollowUpInput{QuestionNumber: "1", Question: q, Answer: answer, Targets: []string{q.Anchors[len(q.Anchors)-1].Name}}))
	texts = append(texts, fu.FollowUp)
	return texts
}

// The offline model writes in the session's language that the prompt
// states, not in the script of the resume or the answer.
func TestOfflineFollowsSessionLanguage(t *testing.T) {
	enResume := mustReadFile(t, "testdata/backend_resume.txt")
	zhResume := mustReadFile(t, "testdata/frontend_resume_zh.txt")

	t.Run("English resume and answer, zh-CN session", func(t *testing.T) {
		texts := crossing(t, interview.LangZH, enResume, "backend engineer",
			"I would read from the cache first and on a miss load from the database, then fill the cache with a TTL.")
		for _, s := range texts {
			if s == "" {
				continue
			}
			if !hasHan(s) {
				t.Errorf("not Chinese in a zh-CN session: %q", s)
			}
			for _, w := range lowerWord.FindAllString(quotedName.ReplaceAllString(s, ""), -1) {
				if !lowerTerms[w] {
					t.Errorf("English word %q in Chinese text %q", w, s)
				}
			}
		}
	})
	t.Run("Chinese resume and answer, en session", func(t *testing.T) {
		texts := crossing(t, interview.LangEN, zhResume, "前端开发",
			"我会先把页面拆成组件，用 React 的状态管理数据，再用虚拟列表优化长列表的渲染性能。")
		for _, s := range texts {
			if hasHan(quotedName.ReplaceAllString(s, "")) {
				t.Errorf("Chinese in an en session: %q", s)
			}
		}
	})
}
