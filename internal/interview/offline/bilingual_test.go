package offline

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// pair is one measured question: a good and a poor answer to a bank
// question (named by its English content).
type pair struct {
	Question string `json:"question"`
	Good     string `json:"good"`
	Poor     string `json:"poor"`
}

func loadPairs(t *testing.T, name string) []pair {
	t.Helper()
	var ps []pair
	if err := json.Unmarshal([]byte(readTestdata(t, "testdata/"+name)), &ps); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ps
}

func bankSpec(t *testing.T, content string, zh bool) interview.QuestionSpec {
	t.Helper()
	for _, e := range bank {
		if e.content == content {
			return e.spec(zh)
		}
	}
	t.Fatalf("not a bank question: %q", content)
	return interview.QuestionSpec{}
}

// TestGoodBeatsPoor measures the evaluator on the committed answer pairs:
// in at least 90% of pairs the good answer scores higher than the poor one,
// for Chinese answers to the Chinese rubric, Chinese answers to the English
// rubric (the same question asked in English) and English answers.
func TestGoodBeatsPoor(t *testing.T) {
	for _, c := range []struct {
		name, file string
		zhSpec     bool
	}{
		{"zh answers, zh rubric", "pairs_zh.json", true},
		{"zh answers, en rubric", "pairs_zh.json", false},
		{"en answers, en rubric", "pairs_en.json", false},
		{"en answers, zh rubric", "pairs_en.json", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := loadPairs(t, c.file)
			if len(ps) < 20 {
				t.Fatalf("%d pairs, want at least 20", len(ps))
			}
			wins := 0
			for _, p := range ps {
				q := bankSpec(t, p.Question, c.zhSpec)
				good := evaluate(interview.EvaluationInput{Question: q, Answer: p.Good})
				poor := evaluate(interview.EvaluationInput{Question: q, Answer: p.Poor})
				if good.Score > poor.Score {
					wins++
				} else {
					t.Logf("not separated (good %d, poor %d): %s", good.Score, poor.Score, clip(p.Question, 60))
				}
			}
			rate := float64(wins) / float64(len(ps))
			fmt.Printf("offline evaluator, %s: good > poor in %d/%d pairs (%.0f%%)\n", c.name, wins, len(ps), 100*rate)
			if rate < 0.9 {
				t.Errorf("good > poor in %.0f%% of pairs, want ≥ 90%%", 100*rate)
			}
		})
	}
}

// TestChineseCredit: the example; a Chinese answer covers the
// "write and storage cost" point in both rubric languages.
func TestChineseCredit(t *testing.T) {
	content := "How does a database index speed up queries, and when can an index hurt?"
	answer := "索引用 B+ 树，查询时避免全表扫描。缺点是会降低写入速度并占用存储空间。"
	scores := map[bool]int{}
	for _, zh := range []bool{false, true} {
		q := bankSpec(t, content, zh)
		ev := evaluate(interview.EvaluationInput{Question: q, Answer: answer})
		scores[zh] = ev.Score
		if got := ev.Anchors[1].Status; got != interview.StatusMet {
			t.Errorf("zh rubric %v: anchor %q is %s, want met (%s)", zh, ev.Anchors[1].Name, got, ev.Anchors[1].Evidence)
		}
		if got := ev.Anchors[0].Status; got != interview.StatusMet {
			t.Errorf("zh rubric %v: anchor %q is %s, want met", zh, ev.Anchors[0].Name, got)
		}
		if strings.Contains(ev.Feedback, "Write and storage") || !strings.Contains(ev.Feedback, "写入与存储开销") {
			t.Errorf("zh rubric %v: feedback not in Chinese: %s", zh, ev.Feedback)
		}
	}
	if scores[false] != scores[true] {
		t.Errorf("score %d with the English rubric, %d with the Chinese one", scores[false], scores[true])
	}
	// The same answer as a candidate phrased it (QA walk): "拖慢写入",
	// "占用空间" are the write and storage cost too.
	ev := evaluate(interview.EvaluationInput{Question: bankSpec(t, content, true),
		Answer: "索引用 B+ 树组织，查找是对数复杂度；但每个索引都会拖慢写入并占用空间，所以我只给 WHERE 和 JOIN 用到的列建索引，并用 EXPLAIN 检查。"})
	if got := ev.Anchors[1].Status; got != interview.StatusMet {
		t.Errorf("拖慢写入并占用空间: anchor %q is %s, want met (%s)", ev.Anchors[1].Name, got, ev.Anchors[1].Evidence)
	}
	// An English answer to the Chinese rubric gets English feedback.
	ev = evaluate(interview.EvaluationInput{Question: bankSpec(t, content, true),
		Answer: "A B+ tree keeps keys sorted so lookups avoid a full table scan, but indexes slow down inserts and take disk space."})
	if ev.Anchors[1].Status != interview.StatusMet || isChinese(ev.Feedback) || strings.ContainsFunc(ev.Feedback, isHan) {
		t.Errorf("English answer to the Chinese rubric: %s / %s", ev.Anchors[1].Status, ev.Feedback)
	}
}

// allowedEnglish are the technical terms a Chinese sentence may keep.
var allowedEnglish = setOf(strings.Fields(strings.ToLower(`
	Redis MySQL InnoDB Kafka Go goroutine goroutines channel context WaitGroup errgroup git merge rebase add
	base62 binlog redo undo log view next-key lock Lua INCR Retry-After key acks offset Promise resolve setTimeout
	requestAnimationFrame JavaScript TypeScript Lighthouse CDN WebP React memo useMemo useCallback props state diff
	flexbox grid box-sizing border-box justify-content align-items grid-template-columns Pinia Redux Vuex store
	Query SWR HttpOnly SameSite Cookie token localStorage innerHTML Access-Control-Allow-Origin
	Access-Control-Allow-Credentials Allow-Credentials OPTIONS schema strict zod noImplicitAny Thread Sanitizer race
	mock volatile panic ack Vue Webpack
	terraform plan apply namespace cgroup join shuffle Pod Deployment ReplicaSet stub Postman pytest REST Assured dtype
	category Dask Polars Prometheus Grafana Airflow top htop ss netstat free vmstat root
	pandas Service df du iostat journalctl dmesg fps dropout Firebase Crashlytics Sentry Profiler Room Core Data
	Adam Hilt Dagger mapping Xcode Instruments Leaks Task Retrofit boosting bagging softmax limit Web Dockerfile Kubernetes Terraform Spark Parquet Python Java Kotlin Swift async await
	Flutter Native Android iOS Activity ViewModel Transformer Linux CSV ETL GROUP BY Promise setTimeout(0) store
	key GB SameSite App MVC MVP MVVM React.memo read Sanitizer UI ID IP API SQL HTML CSS HTTP HTTPS DNS TCP TLS`))...)

// englishWord finds Latin words (with the characters identifiers use).
var englishWord = regexp.MustCompile(`/?[A-Za-z][A-Za-z0-9+#.\-_()/]*[A-Za-z0-9)]|/?[A-Za-z]`)

// englishIn returns the words of s that are English outside the allow-list:
// not an acronym (all capitals), not an identifier (camelCase, dotted or
// hyphenated code), not an allowed term. Quoted candidate text “…” is
// skipped: it is the candidate's own words.
func englishIn(s string) []string {
	s = regexp.MustCompile(`“[^”]*”`).ReplaceAllString(s, "")
	var bad []string
	for _, w := range englishWord.FindAllString(s, -1) {
		w = strings.TrimRight(w, ".")
		if allowedEnglish[strings.ToLower(w)] || isAcronym(w) || isIdentifier(w) {
			continue
		}
		bad = append(bad, w)
	}
	return bad
}

func isAcronym(w string) bool {
	return strings.IndexFunc(w, unicode.IsLower) < 0
}

func isIdentifier(w string) bool {
	if len(w) == 1 || strings.ContainsAny(w, ".-_()/0123456789") {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// chineseOutputs returns every string the offline model shows in a Chinese
// interview about bank question e: the question, follow-up, rubric, and the
// evaluation (feedback, evidence, missing points) of a good, a poor and an
// empty answer.
func chineseOutputs(e entry, answers []string) []string {
	q := e.spec(true)
	out := []string{q.Content, q.FollowUpStrategy}
	out = append(out, q.CommonMistakes...)
	for _, a := range q.Anchors {
		out = append(out, a.Name)
		out = append(out, a.AcceptableStatements...)
		out = append(out, buildFollowUp(interview.FollowUpInput{Question: q, Answer: "我不太确定。", Targets: []string{a.Name}}).FollowUp)
	}
	for _, ans := range answers {
		specs := []interview.QuestionSpec{q}
		if isChinese(ans) {
			// A Chinese answer to the English wording is answered in Chinese too.
			specs = append(specs, e.spec(false))
		}
		for _, spec := range specs {
			ev := evaluate(interview.EvaluationInput{Question: spec, Answer: ans})
			out = append(out, ev.Feedback)
			out = append(out, ev.MissingPoints...)
			for _, d := range ev.Dimensions {
				out = append(out, d.Evidence)
			}
			for _, a := range ev.Anchors {
				out = append(out, a.Evidence)
			}
		}
	}
	return out
}

// TestChineseOutputIsChinese scans the Chinese output of the offline model
// for English words outside the allow-list of technical terms.
func TestChineseOutputIsChinese(t *testing.T) {
	answers := map[string][]string{}
	for _, p := range loadPairs(t, "pairs_zh.json") {
		answers[p.Question] = append(answers[p.Question], p.Good, p.Poor)
	}
	checked, untranslated := 0, 0
	for _, e := range bank {
		zq := e.spec(true)
		for _, s := range []string{zq.Content, zq.FollowUpStrategy} {
			if bad := englishIn(s); len(bad) > 0 {
				t.Errorf("%q: English %q", s, bad)
			}
		}
		if _, ok := rubricZH[e.content]; !ok {
			untranslated++
			continue
		}
		checked++
		ans := append([]string{"我觉得这个问题主要看具体情况，需要结合业务来分析。", ""}, answers[e.content]...)
		for _, s := range chineseOutputs(e, ans) {
			if bad := englishIn(s); len(bad) > 0 {
				t.Errorf("%s: %q has English %q", clip(e.content, 40), s, bad)
			}
		}
	}
	// The Chinese resume's questions and profile.
	resume := readTestdata(t, "testdata/frontend_resume_zh.txt")
	p := buildProfile(interview.ProfileInput{ResumeText: resume})
	qs := buildQuestions(interview.ExtractionInput{Profile: p, ResumeText: resume})
	outs := append(append([]string{qs.InterviewType, p.ResumeType}, qs.Suggestions...), p.ResumeSuggestions...)
	for _, h := range p.RoleHypotheses {
		outs = append(outs, h.Target, h.Evidence)
	}
	for _, s := range outs {
		if bad := englishIn(s); len(bad) > 0 {
			t.Errorf("profile/questions %q: English %q", s, bad)
		}
	}
	fmt.Printf("Chinese output scan: %d bank questions with a Chinese rubric checked, %d without one\n", checked, untranslated)
	if untranslated > 0 {
		t.Errorf("%d bank questions have no Chinese rubric", untranslated)
	}
}

func TestEnglishIn(t *testing.T) {
	if got := englishIn("回答很完整，覆盖了：B+ tree lookup、写入开销。"); len(got) != 2 {
		t.Errorf("englishIn = %q, want [tree lookup]", got)
	}
	if got := englishIn("用 Redis 缓存，返回 HTTP 429，Access-Control-Allow-Origin 与 useMemo。引用“I said hello”"); len(got) != 0 {
		t.Errorf("englishIn = %q, want none", got)
	}
}

// TestChineseRubricAligned: every Chinese rubric lines up with its English
// anchors and statements, and is Chinese.
func TestChineseRubricAligned(t *testing.T) {
	for content, r := range rubricZH {
		var e *entry
		for i := range bank {
			if bank[i].content == content {
				e = &bank[i]
			}
		}
		if e == nil {
			t.Errorf("rubricZH key is not a bank question: %q", content)
			continue
		}
		if len(r.anchors) != len(e.anchors) || len(r.mistakes) != len(e.mistakes) {
			t.Errorf("%q: %d/%d anchors, %d/%d mistakes", content, len(r.anchors), len(e.anchors), len(r.mistakes), len(e.mistakes))
			continue
		}
		for i, a := range r.anchors {
			if len(a.statements) != len(e.anchors[i].statements) {
				t.Errorf("%q anchor %q: %d statements, English has %d", content, a.name, len(a.statements), len(e.anchors[i].statements))
			}
			for _, s := range a.statements {
				if !strings.ContainsFunc(firstAlt(s), isHan) {
					t.Errorf("%q: statement %q is not Chinese", content, s)
				}
			}
		}
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestChineseRoleNamesRoundTrip: a Chinese profile names roles in Chinese,
// and the question stage reads those names back as the same roles.
func TestChineseRoleNamesRoundTrip(t *testing.T) {
	for _, r := range roles {
		if got := roleFor(roleNamesZH[r]); got != r {
			t.Errorf("roleFor(%q) = %q, want %q", roleNamesZH[r], got, r)
		}
	}
}

// TestBankAnswersZH: for every bank question asked in Chinese, an answer
// made of its Chinese statements meets every anchor, and an answer stating
// a Chinese common mistake is contradicted.
func TestBankAnswersZH(t *testing.T) {
	for i, e := range bank {
		q := e.spec(true)
		var parts []string
		for _, a := range q.Anchors {
			parts = append(parts, a.AcceptableStatements...)
		}
		strong := strings.Join(parts, "。") + "。"
		t.Run(fmt.Sprintf("%d strong", i), func(t *testing.T) {
			for _, spec := range []interview.QuestionSpec{q, e.spec(false)} {
				ev := evaluate(interview.EvaluationInput{Question: spec, Answer: strong})
				for _, a := range ev.Anchors {
					if a.Status != interview.StatusMet {
						t.Errorf("anchor %q: %s (%s)", a.Name, a.Status, a.Evidence)
					}
				}
				if ev.Score < 85 {
					t.Errorf("score %d, want ≥ 85", ev.Score)
				}
			}
		})
		for j, m := range q.CommonMistakes {
			t.Run(fmt.Sprintf("%d mistake %d", i, j), func(t *testing.T) {
				answer := q.Anchors[0].AcceptableStatements[0] + "。另外，" + m + "。"
				ev := evaluate(interview.EvaluationInput{Question: q, Answer: answer})
				if got := ev.Dimensions[0].Status; got != interview.StatusContradicted {
					t.Errorf("correctness %s for %q", got, answer)
				}
			})
		}
	}
}

// TestFollowUpNamesAnchorInAnswerLanguage: asking to expand on an anchor
// names it in the answer's language, whatever the rubric's language.
func TestFollowUpNamesAnchorInAnswerLanguage(t *testing.T) {
	content := "How does a database index speed up queries, and when can an index hurt?"
	zq, eq := bankSpec(t, content, true), bankSpec(t, content, false)
	zq.FollowUpStrategy, eq.FollowUpStrategy = "", ""
	got := buildFollowUp(interview.FollowUpInput{Question: eq, Answer: "索引用 B+ 树。", Targets: []string{"Write and storage cost"}}).FollowUp
	if got != "能再具体讲讲写入与存储开销吗？" {
		t.Errorf("Chinese answer, English rubric: %q", got)
	}
	got = buildFollowUp(interview.FollowUpInput{Question: zq, Answer: "An index is a B+ tree.", Targets: []string{"写入与存储开销"}}).FollowUp
	if got != "Could you expand on write and storage cost?" {
		t.Errorf("English answer, Chinese rubric: %q", got)
	}
}
