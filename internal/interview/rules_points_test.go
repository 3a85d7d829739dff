package interview

import (
	"reflect"
	"strings"
	"testing"
)

// judged is an evaluation with the dimension statuses given in weight
// order (correctness, completeness, logic, depth, clarity) and the anchor
// statuses by name.
func judged(dims [5]string, anchors map[string]string, missing ...string) Evaluation {
	ev := Evaluation{MissingPoints: missing}
	for i, id := range Dimensions {
		ev.Dimensions = append(ev.Dimensions, DimensionJudgment{ID: id, Status: dims[i], Evidence: "said so", Confidence: 0.9})
	}
	for _, name := range []string{"MVCC 快照", "间隙锁", "core idea", "trade-offs"} {
		if st, ok := anchors[name]; ok {
			ev.Anchors = append(ev.Anchors, AnchorJudgment{Name: name, Status: st, Evidence: "e"})
		}
	}
	return ev
}

func TestAnswerPoints(t *testing.T) {
	enSpec := QuestionSpec{Content: "How does topic 1 work?", Anchors: []Anchor{
		{Name: "core idea", Weight: 60, Core: true}, {Name: "trade-offs", Weight: 40}}}
	zhSpec := QuestionSpec{Content: "InnoDB 如何实现可重复读？", Anchors: []Anchor{
		{Name: "MVCC 快照", Weight: 60, Core: true}, {Name: "间隙锁", Weight: 40}}}
	allMet := [5]string{StatusMet, StatusMet, StatusMet, StatusMet, StatusMet}
	weak := [5]string{StatusMet, StatusPartial, StatusMet, StatusMissing, StatusMet}
	tests := []struct {
		name                    string
		lang                    string
		spec                    QuestionSpec
		first                   Evaluation
		review                  *Evaluation
		hidden                  string
		strengths, improvements []string
	}{
		{
			name: "english, weak core point", lang: LangEN, spec: enSpec,
			first: judged(weak, map[string]string{"core idea": StatusPartial, "trade-offs": StatusMet}, "an example", "Trade-offs"),
			strengths: []string{"Covered the key point: trade-offs.", "The answer is technically correct.",
				"The reasoning is well structured.", "The answer is clearly expressed."},
			// "Trade-offs" is a key point already listed: not repeated.
			improvements: []string{"Develop the key point further: core idea.", "Also cover: an example.",
				"Cover every part of the question.", "Go deeper: explain why it works and the trade-offs."},
		},
		{
			name: "chinese, weak core point", lang: LangZH, spec: zhSpec,
			first:     judged(weak, map[string]string{"MVCC 快照": StatusMet, "间隙锁": StatusMissing}, "举一个线上例子。"),
			strengths: []string{"讲到了要点：MVCC 快照。", "回答内容正确。", "思路清晰，有条理。", "表达清楚。"},
			improvements: []string{"遗漏了要点：间隙锁。", "还可以补充：举一个线上例子。",
				"回答要覆盖问题的各个方面。", "再深入一些：讲清原理和取舍。"},
		},
		{
			name: "chinese, correctness contradicted", lang: LangZH, spec: zhSpec,
			first: judged([5]string{StatusContradicted, StatusMet, StatusMet, StatusMet, StatusMet},
				map[string]string{"MVCC 快照": StatusContradicted}),
			// Capped at 40, and the lists say why.
			strengths:    []string{"回答覆盖了问题的各个方面。", "思路清晰，有条理。", "回答有深度。", "表达清楚。"},
			improvements: []string{"要点有误：MVCC 快照。", "部分说法有误，请核实相关事实。"},
		},
		{
			name: "english, everything met: at most five strengths, nothing to improve", lang: LangEN, spec: enSpec,
			first: judged(allMet, map[string]string{"core idea": StatusMet, "trade-offs": StatusMet}),
			strengths: []string{"Covered the key point: core idea.", "Covered the key point: trade-offs.",
				"The answer is technically correct.", "The answer covers the whole question.", "The reasoning is well structured."},
			improvements: []string{},
		},
		{
			name: "english, top level: an optional point not covered is a way to go further", lang: LangEN, spec: enSpec,
			first:        judged(allMet, map[string]string{"core idea": StatusMet, "trade-offs": StatusMissing}, "an example"),
			strengths:    []string{"Covered the key point: core idea.", "The answer is technically correct.", "The answer covers the whole question.", "The reasoning is well structured.", "The answer goes into depth."},
			improvements: []string{"To go further, also discuss: trade-offs.", "To go further, also discuss: an example."},
		},
		{
			name: "chinese, top level: an optional point partly covered is a way to go further", lang: LangZH, spec: zhSpec,
			first:        judged(allMet, map[string]string{"MVCC 快照": StatusMet, "间隙锁": StatusPartial}),
			strengths:    []string{"讲到了要点：MVCC 快照。", "回答内容正确。", "回答覆盖了问题的各个方面。", "思路清晰，有条理。", "回答有深度。"},
			improvements: []string{"想更进一步，还可以谈谈：间隙锁。"},
		},
		{
			name: "hidden score: nothing is said", lang: LangZH, spec: zhSpec, hidden: "insufficient-evidence:0/5",
			first:     judged(allMet, map[string]string{"MVCC 快照": StatusMet}, "举例"),
			strengths: []string{}, improvements: []string{},
		},
		{
			name: "unusable judgments and a low model score: one general improvement", lang: LangEN, spec: enSpec,
			first:     Evaluation{Score: 30, Dimensions: []DimensionJudgment{{ID: "correctness", Status: "great"}}},
			strengths: []string{}, improvements: []string{"Cover the key points of the question more fully."},
		},
		{
			name: "chinese, unusable judgments and a low model score", lang: LangZH, spec: zhSpec,
			first:     Evaluation{Score: 30},
			strengths: []string{}, improvements: []string{"把题目的要点讲得更全面。"},
		},
		{
			name: "degraded spec: no legacy key point; leaking names left out", lang: LangEN,
			spec:  ValidateSpec(QuestionSpec{Content: "Q?", Anchors: []Anchor{{Name: "a", Weight: 10, Core: true}}}),
			first: judged(allMet, nil, `{"anchors": 1}`),
			strengths: []string{"The answer is technically correct.", "The answer covers the whole question.",
				"The reasoning is well structured.", "The answer goes into depth.", "The answer is clearly expressed."},
			improvements: []string{},
		},
		{
			name: "review decided: its statuses are listed", lang: LangEN, spec: enSpec,
			first:     judged(allMet, map[string]string{"core idea": StatusMet}),
			review:    ptrEval(judged(weak, map[string]string{"core idea": StatusMissing})),
			strengths: []string{"The answer is technically correct.", "The reasoning is well structured.", "The answer is clearly expressed."},
			improvements: []string{"Missing key point: core idea.", "Cover every part of the question.",
				"Go deeper: explain why it works and the trade-offs."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scored := Score(tt.first)
			if tt.review != nil {
				scored = MergeReview(tt.first, scored, *tt.review)
			}
			scored.Hidden = tt.hidden
			if strings.Contains(tt.name, "top level") && scored.Level != LevelExcellent {
				t.Fatalf("level %q, want %q (score %d)", scored.Level, LevelExcellent, scored.Score)
			}
			strengths, improvements := AnswerPointsIn(tt.lang, tt.spec, tt.first, tt.review, scored)
			if !reflect.DeepEqual(strengths, tt.strengths) {
				t.Errorf("strengths =\n%q\nwant\n%q", strengths, tt.strengths)
			}
			if !reflect.DeepEqual(improvements, tt.improvements) {
				t.Errorf("improvements =\n%q\nwant\n%q", improvements, tt.improvements)
			}
		})
	}
}

// The lists are the same whichever evaluation of a correctness dispute
// gave the lower score: the one that did decides.
func TestAnswerPointsCorrectnessDispute(t *testing.T) {
	spec := QuestionSpec{Content: "Q?", Anchors: []Anchor{{Name: "core idea", Weight: 100, Core: true}}}
	good := judged([5]string{StatusMet, StatusMet, StatusMet, StatusMet, StatusMet}, map[string]string{"core idea": StatusMet})
	wrong := judged([5]string{StatusContradicted, StatusMet, StatusMet, StatusMet, StatusMet}, map[string]string{"core idea": StatusContradicted})
	for _, tt := range []struct {
		name          string
		first, second Evaluation
	}{{"review says wrong", good, wrong}, {"first says wrong", wrong, good}} {
		t.Run(tt.name, func(t *testing.T) {
			scored := MergeReview(tt.first, Score(tt.first), tt.second)
			if scored.Reason != "review:correctness-disputed" {
				t.Fatalf("reason %q", scored.Reason)
			}
			_, improvements := AnswerPointsIn(LangEN, spec, tt.first, &tt.second, scored)
			if want := []string{"Got the key point wrong: core idea.", "Some statements are wrong; check the facts."}; !reflect.DeepEqual(improvements, want) {
				t.Errorf("improvements = %q, want %q", improvements, want)
			}
		})
	}
}

func ptrEval(e Evaluation) *Evaluation { return &e }
