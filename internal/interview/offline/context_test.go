package offline

import (
	"regexp"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

var latinWord = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+#.-]*`)

func keywordsOf(q interview.QuestionSpec, zh bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range q.Anchors {
		for _, s := range a.AcceptableStatements {
			if zh {
				s = strings.Map(func(r rune) rune {
					if strings.ContainsRune(funcChars+"，。、；：,.;:（）()", r) {
						return -1
					}
					return r
				}, s)
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
				continue
			}
			for _, w := range latinWord.FindAllString(s, -1) {
				l := strings.ToLower(w)
				if stopWords[l] || seen[l] || len(l) < 3 {
					continue
				}
				seen[l] = true
				out = append(out, w)
			}
		}
	}
	return out
}

func stuffed(q interview.QuestionSpec, zh bool) (soup, offTopic string) {
	kw := keywordsOf(q, zh)
	if zh {
		soup = strings.Join(kw, "、") + "。"
		offTopic = "上周末我和家人去爬山，在湖边野餐，天气很好。路上我们随便聊到了" + strings.Join(kw, "、") + "。然后我们一起做了晚饭，看了一部电影，很早就睡了。"
		return
	}
	soup = strings.Join(kw, ", ") + "."
	offTopic = "Last weekend I went hiking with my family and we had a picnic by the lake. On the way we chatted about " +
		strings.Join(kw, ", ") + ". Then we cooked dinner together and watched a film before going to bed early."
	return
}

// TestStuffedAnswers (issue 19): an answer that lists the rubric's
// keywords, or drops them into a story about something else, does not reach
// the qualified level, in either language; the committed good answers are
// not affected (their scores are the same as without the check).
func TestStuffedAnswers(t *testing.T) {
	for _, c := range []struct {
		file string
		zh   bool
	}{{"pairs_en.json", false}, {"pairs_zh.json", true}} {
		t.Run(c.file, func(t *testing.T) {
			for _, p := range loadPairs(t, c.file) {
				q := bankSpec(t, p.Question, c.zh)
				soup, off := stuffed(q, c.zh)
				for _, tt := range []struct{ name, answer, why string }{{"keyword list", soup, keywordList}, {"off topic", off, offTopic}} {
					ev := evaluate(interview.EvaluationInput{Question: q, Answer: tt.answer})
					if sc := interview.Score(ev); sc.Score >= interview.QualifiedScore || sc.Level == interview.LevelQualified {
						t.Errorf("%s scored %d (%s): %s", tt.name, sc.Score, sc.Level, clip(tt.answer, 80))
					}
					if note := contextNote(tt.why, c.zh); !strings.HasPrefix(ev.Feedback, note) {
						t.Errorf("%s feedback %q, want it to start with %q", tt.name, ev.Feedback, note)
					}
				}
				if why := outOfContext(q, viewOf(q, q.Anchors), sentences(p.Good)); why != outOfContextNone {
					t.Errorf("good answer judged %s: %s", why, clip(p.Good, 80))
				}
			}
		})
	}
}

// TestTooShortIsNotNoAnswer (issue 19): "yes" is a too-short answer, not
// no answer.
func TestTooShortIsNotNoAnswer(t *testing.T) {
	for _, c := range []struct {
		zh        bool
		answer    string
		want, not string
	}{
		{false, "yes", "Your answer (“yes”) is too short to judge.", "No answer was given"},
		{true, "是的", "回答（“是的”）太短，无法判断。", "没有作答"},
		{false, "", "No answer was given.", "too short"},
	} {
		q := bankSpec(t, "What is a race condition and how do you prevent one?", c.zh)
		ev := evaluate(interview.EvaluationInput{Question: q, Answer: c.answer})
		if !strings.HasPrefix(ev.Feedback, c.want) || strings.Contains(ev.Feedback, c.not) {
			t.Errorf("answer %q: feedback %q, want it to start with %q", c.answer, ev.Feedback, c.want)
		}
	}
}
