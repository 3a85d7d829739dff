package interview

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReviewFeedbackSentences(t *testing.T) {
	radar := ComputeRadar(intPtr(80), intPtr(70), nil)
	turns := []TurnSummary{
		{QuestionNumber: "1", Feedback: "Clear use of Node.js streams; good. You named the 3.5 release!\nAdd an example next time?", Score: 92},
		{QuestionNumber: "2", Feedback: "Missed gap locks. Ok. Explain phantoms too.", Score: 40},
	}
	got := BuildReviewFeedbackIn(LangEN, radar, turns, nil)
	want := ReviewFeedback{
		OverallComment: got.OverallComment,
		// "good" and "Ok" are shorter than 6 characters; one item per
		// question, of its first 2 sentences.
		Highlights:      []string{"Q1: Clear use of Node.js streams. You named the 3.5 release."},
		ImprovementTips: []string{"Q2: Missed gap locks. Explain phantoms too."},
		NextActions:     []string{"Practise Q2 again out loud, covering the points its feedback names."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildReviewFeedbackIn =\n%#v\nwant\n%#v", got, want)
	}

	zh := BuildReviewFeedbackIn(LangZH, radar, []TurnSummary{{QuestionNumber: "1", Feedback: "对 MVCC 的解释很清楚；举例恰当，贴合业务！好。", Score: 88}}, nil)
	if want := []string{"第 1 题：对 MVCC 的解释很清楚。举例恰当，贴合业务。"}; !reflect.DeepEqual(zh.Highlights, want) {
		t.Errorf("zh highlights = %q, want %q", zh.Highlights, want)
	}
}

func TestReviewFeedbackCanned(t *testing.T) {
	tests := []struct {
		name           string
		lang           string
		radar          Radar
		turns          []TurnSummary
		highlights     []string
		improvementTip []string
	}{
		{"strong resume, weak interview, no demeanor", LangEN, ComputeRadar(intPtr(90), intPtr(72), nil),
			[]TurnSummary{{QuestionNumber: "1", Feedback: "Fine answer overall.", Score: 72}},
			// skills = 0.3×90 + 0.7×72 = 77
			[]string{"Your resume fits the target role well.", "You showed solid professional skills for the role."},
			[]string{"Answer with the conclusion first, then the reasoning, then an example."}},
		{"all strong: tips stay empty", LangEN, ComputeRadar(intPtr(90), intPtr(88), intPtr(80)), nil,
			[]string{"Your resume fits the target role well.", "Your answers were accurate and well organised.", "You came across as calm and focused."},
			[]string{}},
		{"chinese", LangZH, ComputeRadar(intPtr(60), intPtr(80), nil), nil,
			// skills = 0.3×60 + 0.7×80 = 74
			[]string{"答题准确，条理清晰。"}, []string{"针对目标岗位完善简历，并量化项目成果。", "加深岗位核心知识，多练习讲清技术取舍。"}},
		{"nothing known", LangEN, Radar{}, nil, []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BuildReviewFeedbackIn(tt.lang, tt.radar, tt.turns, nil)
			if !reflect.DeepEqual(got.Highlights, tt.highlights) {
				t.Errorf("highlights = %q, want %q", got.Highlights, tt.highlights)
			}
			if !reflect.DeepEqual(got.ImprovementTips, tt.improvementTip) {
				t.Errorf("tips = %q, want %q", got.ImprovementTips, tt.improvementTip)
			}
		})
	}
}

func TestEvidenceInsufficient(t *testing.T) {
	eval := func(evidence ...string) Evaluation {
		var ev Evaluation
		for i, id := range Dimensions {
			e := ""
			if i < len(evidence) {
				e = evidence[i]
			}
			ev.Dimensions = append(ev.Dimensions, DimensionJudgment{ID: id, Status: StatusMet, Evidence: e, Confidence: 0.9})
		}
		return ev
	}
	review := eval("", "", "", "names the trade-off", "clear steps")
	tests := []struct {
		name   string
		first  Evaluation
		review *Evaluation
		want   string
	}{
		{"every dimension quoted", eval("a", "says B-tree", "first X then Y", "mentions cost", "short sentences"), nil, ""},
		{"three quoted is enough", eval("says B-tree", "covers writes", "step by step"), nil, ""},
		{"placeholders are not evidence", eval("n/a", "none", "无", "{\"id\":1}", "says B-tree"), nil, "insufficient-evidence:1/5"},
		{"nothing quoted", eval(), nil, "insufficient-evidence:0/5"},
		{"the review completes it", eval("says B-tree"), &review, ""},
		{"unknown ids do not count", Evaluation{Dimensions: []DimensionJudgment{{ID: "charm", Evidence: "very charming"}}}, nil, "insufficient-evidence:0/5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EvidenceInsufficient(tt.first, tt.review); got != tt.want {
				t.Errorf("EvidenceInsufficient = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReviewNoticeRoundTrip(t *testing.T) {
	for _, lang := range []string{LangEN, LangZH} {
		for _, reason := range []string{"review:agree", "review:second-run", "review:correctness-disputed", "review:failed", "review:invalid-second"} {
			fb := withReviewNotice(lang, "Good answer.", reason)
			notice := ReviewNotice(lang, reason)
			if notice == "" || strings.Count(fb, "\n") != 1 || !strings.HasSuffix(fb, "\n"+notice) {
				t.Errorf("%s %s: feedback %q", lang, reason, fb)
			}
			turn := Turn{Feedback: fb, Scored: &Scored{Reason: reason}}
			if got := withoutReviewNotice(lang, turn); got != "Good answer." {
				t.Errorf("%s %s: without notice %q", lang, reason, got)
			}
		}
	}
	if got := withReviewNotice(LangEN, "Good answer.", "rule"); got != "Good answer." {
		t.Errorf("no review: %q", got)
	}
}

func TestResumeProfileText(t *testing.T) {
	p := &Profile{Skills: []string{"Go", " ", "Redis"}, SkillEvidence: []SkillEvidence{{Skill: "Go", Evidence: "Go services"}},
		RoleHypotheses: []RoleHypothesis{{Target: "backend engineer", Evidence: "APIs", Confidence: 0.8}}, ResumeType: "backend"}
	want := "Target role: payments backend\nResume type: backend\nSkills: Go; Redis\nSkill evidence: Go — Go services\n" +
		"Role hypotheses: backend engineer (0.80): APIs"
	if got := ResumeProfileText(p, "payments backend"); got != want {
		t.Errorf("ResumeProfileText =\n%s\nwant\n%s", got, want)
	}
	if got := ResumeProfileText(nil, "x"); got != "" {
		t.Errorf("no profile: %q", got)
	}
	big := &Profile{Skills: []string{strings.Repeat("分布式系统", 1000)}}
	got := ResumeProfileText(big, "")
	if n := utf8.RuneCountInString(got); n != MaxResumeProfileChars || !strings.HasSuffix(got, "…") {
		t.Errorf("long profile: %d characters, want %d ending in …", n, MaxResumeProfileChars)
	}
}

// One weak answer with a long feedback does not fill the list alone: each
// item is one question (the report showed "第 3 题：…" three times and
// nothing of the other weak answers).
func TestReviewFeedbackOneItemPerQuestion(t *testing.T) {
	long := "回答的大部分内容与问题无关。请直接回答问题。回答还没有涉及题目的关键要点。"
	turns := []TurnSummary{
		{QuestionNumber: "1", Feedback: long, Score: 55},
		{QuestionNumber: "3", Feedback: long, Score: 41},
		{QuestionNumber: "5", Feedback: "没有给出量化结果。", Score: 50},
		{QuestionNumber: "6", Feedback: long, Score: 60},
	}
	got := BuildReviewFeedbackIn(LangZH, ComputeRadar(intPtr(90), intPtr(50), nil), turns, nil)
	want := []string{"第 3 题：回答的大部分内容与问题无关。请直接回答问题。", "第 5 题：没有给出量化结果。",
		"第 1 题：回答的大部分内容与问题无关。请直接回答问题。"}
	if !reflect.DeepEqual(got.ImprovementTips, want) {
		t.Errorf("tips = %q, want %q", got.ImprovementTips, want)
	}
	wantNext := []string{"把第 3 题再大声练一遍，讲全反馈里指出的要点。", "把第 5 题再大声练一遍，讲全反馈里指出的要点。",
		"把第 1 题再大声练一遍，讲全反馈里指出的要点。"}
	if !reflect.DeepEqual(got.NextActions, wantNext) {
		t.Errorf("next actions = %q, want %q", got.NextActions, wantNext)
	}
}
