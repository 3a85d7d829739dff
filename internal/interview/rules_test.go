package interview

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// ruleDims builds the five dimension judgments from statuses in weight
// order (correctness, completeness, logic, depth, clarity), each with
// confidence 0.9.
func ruleDims(statuses ...string) []DimensionJudgment {
	dims := make([]DimensionJudgment, len(statuses))
	for i, s := range statuses {
		dims[i] = DimensionJudgment{ID: Dimensions[i], Status: s, Evidence: Dimensions[i] + " evidence", Confidence: 0.9}
	}
	return dims
}

// ruleEval is an evaluation with the given statuses and model score.
func ruleEval(modelScore int, statuses ...string) Evaluation {
	return Evaluation{Dimensions: ruleDims(statuses...), Score: modelScore}
}

// withConfidence returns ev with dimension i's confidence set to c.
func withConfidence(ev Evaluation, i int, c float64) Evaluation {
	ev.Dimensions = append([]DimensionJudgment(nil), ev.Dimensions...)
	ev.Dimensions[i].Confidence = c
	return ev
}

func intPtr(n int) *int { return &n }

const (
	dMet   = StatusMet
	dPart  = StatusPartial
	dMiss  = StatusMissing
	dContr = StatusContradicted
)

func TestRuleScore(t *testing.T) {
	tests := []struct {
		name       string
		dims       []DimensionJudgment
		want       int
		wantCapped bool
	}{
		{"all met", ruleDims(dMet, dMet, dMet, dMet, dMet), 100, false},
		{"all missing", ruleDims(dMiss, dMiss, dMiss, dMiss, dMiss), 0, false},
		{"all partial", ruleDims(dPart, dPart, dPart, dPart, dPart), 50, false},
		{"completeness partial rounds 87.5 up", ruleDims(dMet, dPart, dMet, dMet, dMet), 88, false},
		{"depth partial rounds 92.5 up", ruleDims(dMet, dMet, dMet, dPart, dMet), 93, false},
		{"correctness partial is 85", ruleDims(dPart, dMet, dMet, dMet, dMet), 85, false},
		{"mixed partials and missing is 60", ruleDims(dMet, dPart, dMiss, dPart, dMet), 60, false},
		{"contradicted counts as 0 outside correctness", ruleDims(dMet, dContr, dMet, dMet, dMet), 75, false},
		{"correctness contradicted caps at 40", ruleDims(dContr, dMet, dMet, dMet, dMet), 40, true},
		{"correctness contradicted with weak others stays below 40", ruleDims(dContr, dPart, dPart, dMiss, dMet), 33, false},
		{"all contradicted", ruleDims(dContr, dContr, dContr, dContr, dContr), 0, false},
		{"case and space insensitive", []DimensionJudgment{
			{ID: " Correctness", Status: "MET"}, {ID: "COMPLETENESS", Status: " met "}, {ID: "logic", Status: "Met"},
			{ID: "depth", Status: "met"}, {ID: "clarity", Status: "met"},
		}, 100, false},
		{"duplicate with the same status is accepted", append(ruleDims(dMet, dMet, dMet, dMet, dMet), DimensionJudgment{ID: "logic", Status: "met"}), 100, false},
		{"order does not matter", []DimensionJudgment{
			{ID: "clarity", Status: "met"}, {ID: "depth", Status: "met"}, {ID: "logic", Status: "met"},
			{ID: "completeness", Status: "met"}, {ID: "correctness", Status: "partial"},
		}, 85, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, capped, err := RuleScore(tt.dims)
			if err != nil {
				t.Fatalf("RuleScore: %v", err)
			}
			if got != tt.want || capped != tt.wantCapped {
				t.Errorf("RuleScore = %d, capped %v; want %d, capped %v", got, capped, tt.want, tt.wantCapped)
			}
		})
	}
}

func TestRuleScoreInvalid(t *testing.T) {
	tests := []struct {
		name string
		dims []DimensionJudgment
		want string
	}{
		{"none", nil, "no-dimensions"},
		{"missing depth", ruleDims(dMet, dMet, dMet)[:3:3], "missing-dimensions:depth,clarity"},
		{"missing one", append(ruleDims(dMet, dMet, dMet), DimensionJudgment{ID: "clarity", Status: "met"}), "missing-dimensions:depth"},
		{"unknown id", append(ruleDims(dMet, dMet, dMet, dMet, dMet), DimensionJudgment{ID: "style", Status: "met"}), "unknown-dimension:style"},
		{"unknown status", ruleDims(dMet, dMet, "great", dMet, dMet), "invalid-status:logic=great"},
		{"empty status", ruleDims(dMet, dMet, dMet, "", dMet), "invalid-status:depth="},
		{"conflicting duplicate", append(ruleDims(dMet, dMet, dMet, dMet, dMet), DimensionJudgment{ID: "logic", Status: "partial"}), "conflicting-dimension:logic=met/partial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := RuleScore(tt.dims)
			je, ok := err.(*JudgmentError)
			if !ok {
				t.Fatalf("err = %v, want *JudgmentError", err)
			}
			if got := je.Reason; got != tt.want {
				t.Errorf("reason = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLevel(t *testing.T) {
	tests := []struct {
		score int
		want  string
	}{
		{0, LevelNeedsWork}, {59, LevelNeedsWork}, {60, LevelQualified}, {84, LevelQualified}, {85, LevelExcellent}, {100, LevelExcellent},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d", tt.want, tt.score), func(t *testing.T) {
			if got := Level(tt.score); got != tt.want {
				t.Errorf("Level(%d) = %q, want %q", tt.score, got, tt.want)
			}
		})
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		ev   Evaluation
		want Scored
	}{
		{"valid judgments use the rule", ruleEval(20, dMet, dPart, dMet, dMet, dMet),
			Scored{Score: 88, Level: LevelExcellent, RuleScore: 88, Reason: "rule"}},
		{"cap is recorded", ruleEval(90, dContr, dMet, dMet, dMet, dMet),
			Scored{Score: 40, Level: LevelNeedsWork, RuleScore: 40, Capped: true, Reason: "rule"}},
		{"missing dimension falls back to the model score", Evaluation{Dimensions: ruleDims(dMet, dMet, dMet), Score: 72},
			Scored{Score: 72, Level: LevelQualified, RuleScore: -1, Reason: "model-score:missing-dimensions:depth,clarity"}},
		{"model score clamped high", Evaluation{Score: 150},
			Scored{Score: 100, Level: LevelExcellent, RuleScore: -1, Reason: "model-score:no-dimensions"}},
		{"model score clamped low", Evaluation{Score: -5},
			Scored{Score: 0, Level: LevelNeedsWork, RuleScore: -1, Reason: "model-score:no-dimensions"}},
		{"invalid status", ruleEval(61, dMet, dMet, "great", dMet, dMet),
			Scored{Score: 61, Level: LevelQualified, RuleScore: -1, Reason: "model-score:invalid-status:logic=great"}},
		{"model score capped by contradicted correctness", Evaluation{Dimensions: ruleDims(dContr, dMet), Score: 75},
			Scored{Score: 40, Level: LevelNeedsWork, RuleScore: -1, Capped: true, Reason: "model-score:missing-dimensions:logic,depth,clarity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Score(tt.ev); got != tt.want {
				t.Errorf("Score = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReviewNeeded(t *testing.T) {
	tests := []struct {
		name string
		ev   Evaluation
		want ReviewDecision
	}{
		{"contradicted correctness first, even at the 40 boundary with low confidence",
			withConfidence(ruleEval(0, dContr, dMet, dMet, dMet, dMet), 2, 0.3), ReviewDecision{Reason: "contradicted-correctness"}},
		{"contradicted correctness with invalid judgments", Evaluation{Dimensions: ruleDims(dContr), Score: 80},
			ReviewDecision{Reason: "contradicted-correctness"}},
		{"invalid judgments", Evaluation{Dimensions: ruleDims(dMet, dMet), Score: 80}, ReviewDecision{Review: true, Reason: "invalid-judgments"}},
		{"boundary 40", ruleEval(0, dMet, dMiss, dMiss, dMiss, dMet), ReviewDecision{Review: true, Reason: "boundary-score:40"}},
		{"boundary 60", ruleEval(0, dMet, dPart, dMiss, dPart, dMet), ReviewDecision{Review: true, Reason: "boundary-score:60"}},
		{"boundary 85", ruleEval(0, dPart, dMet, dMet, dMet, dMet), ReviewDecision{Review: true, Reason: "boundary-score:85"}},
		{"boundary before confidence", withConfidence(ruleEval(0, dMet, dPart, dMiss, dPart, dMet), 0, 0.2), ReviewDecision{Review: true, Reason: "boundary-score:60"}},
		{"not a boundary: 88", ruleEval(0, dMet, dPart, dMet, dMet, dMet), ReviewDecision{}},
		{"confidence 0.69", withConfidence(ruleEval(0, dMet, dMet, dMet, dMet, dMet), 3, 0.69), ReviewDecision{Review: true, Reason: "low-confidence:0.69"}},
		{"confidence 0.699 floors to 0.69", withConfidence(ruleEval(0, dMet, dMet, dMet, dMet, dMet), 3, 0.699), ReviewDecision{Review: true, Reason: "low-confidence:0.69"}},
		{"confidence 0.7 is enough", withConfidence(ruleEval(0, dMet, dMet, dMet, dMet, dMet), 3, 0.7), ReviewDecision{}},
		{"confidence 0", withConfidence(ruleEval(0, dMet, dMet, dMet, dMet, dMet), 4, 0), ReviewDecision{Review: true, Reason: "low-confidence:0.00"}},
		{"nothing to review", ruleEval(0, dMet, dMet, dMet, dMet, dMet), ReviewDecision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReviewNeeded(tt.ev, Score(tt.ev)); got != tt.want {
				t.Errorf("ReviewNeeded = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMergeReview(t *testing.T) {
	reworded := func(ev Evaluation) Evaluation {
		for i := range ev.Dimensions {
			ev.Dimensions[i].Evidence = "different wording " + ev.Dimensions[i].ID
		}
		return ev
	}
	tests := []struct {
		name          string
		first, second Evaluation
		want          Scored
	}{
		{"same statuses, other wording: keep the first",
			ruleEval(60, dMet, dPart, dMiss, dPart, dMet), reworded(ruleEval(90, dMet, dPart, dMiss, dPart, dMet)),
			Scored{Score: 60, Level: LevelQualified, RuleScore: 60, Reason: "review:agree"}},
		{"second says correctness contradicted: minimum and needs review",
			ruleEval(0, dMet, dPart, dMet, dMet, dMet), ruleEval(0, dContr, dPart, dMet, dMet, dMet),
			Scored{Score: 40, Level: LevelNeedsWork, RuleScore: 40, Capped: true, Reason: "review:correctness-disputed", NeedsReview: true}},
		{"first says correctness contradicted: minimum is the first",
			ruleEval(0, dContr, dMet, dMet, dMet, dMet), ruleEval(0, dMet, dMet, dMet, dMet, dMet),
			Scored{Score: 40, Level: LevelNeedsWork, RuleScore: 40, Capped: true, Reason: "review:correctness-disputed", NeedsReview: true}},
		{"other disagreement: the second run's statuses, not an average",
			ruleEval(0, dMet, dPart, dMiss, dPart, dMet), ruleEval(0, dMet, dMet, dMet, dMet, dMet),
			Scored{Score: 100, Level: LevelExcellent, RuleScore: 100, Reason: "review:second-run"}},
		{"correctness met vs partial is not a dispute",
			ruleEval(0, dMet, dMet, dMet, dMet, dMet), ruleEval(0, dPart, dMet, dMet, dMet, dMet),
			Scored{Score: 85, Level: LevelExcellent, RuleScore: 85, Reason: "review:second-run"}},
		{"invalid second keeps the first",
			ruleEval(0, dPart, dMet, dMet, dMet, dMet), Evaluation{Dimensions: ruleDims(dMet, dMet), Score: 10},
			Scored{Score: 85, Level: LevelExcellent, RuleScore: 85, Reason: "review:invalid-second"}},
		{"invalid first is replaced by a valid second",
			Evaluation{Dimensions: ruleDims(dMet), Score: 95}, ruleEval(10, dMet, dPart, dMet, dMet, dMet),
			Scored{Score: 88, Level: LevelExcellent, RuleScore: 88, Reason: "review:second-run"}},
		{"both invalid keep the first model score",
			Evaluation{Score: 70}, Evaluation{Score: 30},
			Scored{Score: 70, Level: LevelQualified, RuleScore: -1, Reason: "review:invalid-second"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MergeReview(tt.first, Score(tt.first), tt.second); got != tt.want {
				t.Errorf("MergeReview = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("a failed review keeps the first", func(t *testing.T) {
		first := Score(ruleEval(0, dPart, dMet, dMet, dMet, dMet))
		got, want := ReviewFailed(first), first
		want.Reason = "review:failed"
		if got != want {
			t.Errorf("ReviewFailed = %+v, want %+v", got, want)
		}
	})
}

func TestGuardFeedback(t *testing.T) {
	ev := Evaluation{
		Dimensions: []DimensionJudgment{
			{ID: "completeness", Status: "partial", Evidence: " Skips gap locks "},
			{ID: "correctness", Status: "met", Evidence: "Explains MVCC snapshots."},
			{ID: "logic", Status: "met", Evidence: ""},
			{ID: "depth", Status: "partial", Evidence: `{"leak": true}`},
		},
		Anchors:       []AnchorJudgment{{Name: "gap locks", Status: "missing"}},
		MissingPoints: []string{"gap locks", " Gap Locks ", "next-key locks;"},
	}
	spec := QuestionSpec{Content: "How does InnoDB prevent phantoms?", Anchors: []Anchor{
		{Name: "MVCC", Weight: 50, Core: true}, {Name: "Gap locks", Weight: 50, Core: true},
	}}
	rebuilt := "Correctness: Explains MVCC snapshots. Completeness: Skips gap locks. Consider also: gap locks; next-key locks."
	tests := []struct {
		name     string
		feedback string
		ev       Evaluation
		want     string
	}{
		{"usable feedback is kept, trimmed", "  Good grasp of MVCC; add gap locks.  ", ev, "Good grasp of MVCC; add gap locks."},
		{"usable Chinese feedback is kept", "回答正确，但缺少细节", ev, "回答正确，但缺少细节"},
		{"leaks missing_points", "See missing_points for details.", ev, rebuilt},
		{"leaks missingPoints", "Check missingPoints.", ev, rebuilt},
		{"leaks targetAnchorIds", "targetAnchorIds: [1,2]", ev, rebuilt},
		{"leaks anchors", "Your answer missed two anchors.", ev, rebuilt},
		{"leaks dimensions", "Weak on several dimensions overall.", ev, rebuilt},
		{"leaks acceptableStatements", "Compare with the acceptableStatements.", ev, rebuilt},
		{"leaks JSON", `{"feedback": "good"}`, ev, rebuilt},
		{"says nothing: 无", "无", ev, rebuilt},
		{"says nothing: n/a", "n/a", ev, rebuilt},
		{"says nothing: N/A", "N/A", ev, rebuilt},
		{"says nothing: none", "None.", ev, rebuilt},
		{"says nothing: dash", "-", ev, rebuilt},
		{"says nothing: empty", "", ev, rebuilt},
		{"says nothing: white space", " \n\t ", ev, rebuilt},
		{"says nothing: too short", "ok", ev, rebuilt},
		{"no missing points: anchors judged not met", "无", Evaluation{Anchors: []AnchorJudgment{{Name: "gap LOCKS", Status: "partial"}, {Name: "MVCC", Status: "met"}}},
			"Consider also: Gap locks."},
		{"nothing to rebuild from", "无", Evaluation{}, "The answer was evaluated, but no detailed feedback is available for this question."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GuardFeedback(tt.feedback, tt.ev, spec); got != tt.want {
				t.Errorf("GuardFeedback = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecideFollowUp(t *testing.T) {
	spec := QuestionSpec{Content: "Explain InnoDB isolation.", Anchors: []Anchor{
		{Name: "MVCC", Weight: 40, Core: true},
		{Name: "Gap Locks", Weight: 40, Core: true},
		{Name: "History", Weight: 20, Core: false},
	}}
	weak := Evaluation{
		Dimensions: ruleDims(dPart, dPart, dMet, dPart, dMet),
		Anchors:    []AnchorJudgment{{Name: "mvcc", Status: "met"}, {Name: " gap  locks ", Status: "partial"}},
	}
	tests := []struct {
		name string
		in   FollowUpState
		want FollowUpDecision
	}{
		{"completed wins over everything", FollowUpState{Completed: true, Spec: spec, Eval: weak, Score: 50},
			FollowUpDecision{Reason: "completed"}},
		{"max reached with the default of 1", FollowUpState{FollowUpsAsked: 1, Spec: spec, Eval: weak, Score: 50},
			FollowUpDecision{Reason: "max-reached"}},
		{"negative max means none", FollowUpState{MaxFollowUp: -1, Spec: spec, Eval: weak, Score: 50},
			FollowUpDecision{Reason: "max-reached"}},
		{"is itself a follow-up", FollowUpState{MaxFollowUp: 2, FollowUpsAsked: 1, IsFollowUp: true, Spec: spec, Eval: weak, Score: 50},
			FollowUpDecision{Reason: "is-follow-up"}},
		{"strong answer without targets", FollowUpState{Spec: spec, Eval: Evaluation{Anchors: []AnchorJudgment{{Name: "MVCC", Status: "met"}}}, Score: 85},
			FollowUpDecision{Reason: "strong-answer"}},
		{"weak core anchor (regression: matched by anchor name, not dimension id)", FollowUpState{Spec: spec, Eval: weak, Score: 70},
			FollowUpDecision{Ask: true, Reason: "weak-core-anchors", Targets: []string{"Gap Locks"}}},
		{"targets win over a strong score", FollowUpState{MaxFollowUp: 2, FollowUpsAsked: 1, Spec: spec, Eval: weak, Score: 95},
			FollowUpDecision{Ask: true, Reason: "weak-core-anchors", Targets: []string{"Gap Locks"}}},
		{"contradicted core anchors in spec order", FollowUpState{Spec: spec, Score: 30, Eval: Evaluation{Anchors: []AnchorJudgment{
			{Name: "Gap Locks", Status: "Contradicted"}, {Name: "MVCC", Status: "partial"}}}},
			FollowUpDecision{Ask: true, Reason: "weak-core-anchors", Targets: []string{"MVCC", "Gap Locks"}}},
		{"weak dimensions alone are no target", FollowUpState{Spec: spec, Score: 60, Eval: Evaluation{
			Dimensions: ruleDims(dPart, dContr, dPart, dPart, dPart),
			Anchors:    []AnchorJudgment{{Name: "correctness", Status: "partial"}, {Name: "completeness", Status: "contradicted"}}}},
			FollowUpDecision{Reason: "no-weak-core-anchor"}},
		{"non-core partial and core missing are no target", FollowUpState{Spec: spec, Score: 60, Eval: Evaluation{Anchors: []AnchorJudgment{
			{Name: "History", Status: "partial"}, {Name: "MVCC", Status: "missing"}}}},
			FollowUpDecision{Reason: "no-weak-core-anchor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecideFollowUp(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecideFollowUp = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestValidateSpec(t *testing.T) {
	valid := QuestionSpec{
		Content: "  Explain MVCC.  ",
		Anchors: []Anchor{
			{Name: " Snapshots ", Weight: 60, Core: true, AcceptableStatements: []string{" reads see a snapshot ", " "}},
			{Name: "Undo log", Weight: 40, AcceptableStatements: []string{"old versions live in the undo log"}},
		},
		CommonMistakes:   []string{" locks every read ", ""},
		FollowUpStrategy: " ask about purge ",
	}
	wantValid := QuestionSpec{
		Content: "Explain MVCC.",
		Anchors: []Anchor{
			{Name: "Snapshots", Weight: 60, Core: true, AcceptableStatements: []string{"reads see a snapshot"}},
			{Name: "Undo log", Weight: 40, AcceptableStatements: []string{"old versions live in the undo log"}},
		},
		CommonMistakes:   []string{"locks every read"},
		FollowUpStrategy: "ask about purge",
		RubricVersion:    1,
	}
	legacy := func(content, why string, statements ...string) QuestionSpec {
		return QuestionSpec{Content: content, Anchors: []Anchor{{Name: "legacy", Weight: 100, Core: true, AcceptableStatements: statements}},
			RubricVersion: 1, Degraded: why}
	}
	mutate := func(f func(*QuestionSpec)) QuestionSpec {
		s := valid
		s.Anchors = append([]Anchor(nil), valid.Anchors...)
		f(&s)
		return s
	}
	degraded := func(why string) QuestionSpec {
		s := legacy("Explain MVCC.", why, "reads see a snapshot", "old versions live in the undo log")
		s.CommonMistakes, s.FollowUpStrategy = wantValid.CommonMistakes, wantValid.FollowUpStrategy
		return s
	}
	tests := []struct {
		name string
		in   QuestionSpec
		want QuestionSpec
	}{
		{"valid is trimmed", valid, wantValid},
		{"rubric version kept", mutate(func(s *QuestionSpec) { s.RubricVersion = 3 }), func() QuestionSpec { w := wantValid; w.RubricVersion = 3; return w }()},
		{"missing content", mutate(func(s *QuestionSpec) { s.Content = "  " }), func() QuestionSpec { w := degraded("missing-content"); w.Content = ""; return w }()},
		{"no anchors", QuestionSpec{Content: "Q?"}, legacy("Q?", "no-anchors")},
		{"empty anchor name", mutate(func(s *QuestionSpec) { s.Anchors[1].Name = " " }), degraded("empty-anchor-name:1")},
		{"duplicate names differ only in case and space", mutate(func(s *QuestionSpec) { s.Anchors[1].Name = "snap shots" }), degraded("duplicate-anchor-name:snap shots")},
		{"zero weight", mutate(func(s *QuestionSpec) { s.Anchors[1].Weight = 0; s.Anchors[0].Weight = 100 }), degraded("non-positive-weight:Undo log=0")},
		{"negative weight", mutate(func(s *QuestionSpec) { s.Anchors[1].Weight = -10; s.Anchors[0].Weight = 110 }), degraded("non-positive-weight:Undo log=-10")},
		{"weights sum to 90", mutate(func(s *QuestionSpec) { s.Anchors[1].Weight = 30 }), degraded("weight-sum:90")},
		{"no core anchor", mutate(func(s *QuestionSpec) { s.Anchors[0].Core = false }), degraded("no-core-anchor")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateSpec(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateSpec =\n%+v\nwant\n%+v", got, tt.want)
			}
			if again := ValidateSpec(got); !reflect.DeepEqual(again, got) {
				t.Errorf("not idempotent: %+v", again)
			}
		})
	}
}

func TestCleanFollowUp(t *testing.T) {
	long := strings.Repeat("a", 99)
	tests := []struct {
		name   string
		in     string
		want   string
		wantOK bool
	}{
		{"plain question", "How does purge reclaim undo?", "How does purge reclaim undo?", true},
		{"trimmed and folded", "  How does purge\n reclaim   undo?  ", "How does purge reclaim undo?", true},
		{"quotes", `"How does purge work?"`, "How does purge work?", true},
		{"curly quotes", "“How does purge work?”", "How does purge work?", true},
		{"label then quotes", `Follow-up: "How does purge work?"`, "How does purge work?", true},
		{"label case-insensitive", "FOLLOW UP QUESTION: Why?", "Why?", true},
		{"Chinese label", "追问：为什么要用 Redis？", "为什么要用 Redis？", true},
		{"no punctuation gets ?", "How does purge work", "How does purge work?", true},
		{"Chinese without punctuation gets ？", "为什么要用 Redis", "为什么要用 Redis？", true},
		{"statement ending with a period", "Explain purge.", "", false},
		{"empty", "", "", false},
		{"only white space", " \n ", "", false},
		{"only quotes", `""`, "", false},
		{"only a label", "Follow-up:", "", false},
		{"exactly 100 characters", long + "?", long + "?", true},
		{"exactly 100 Chinese characters", strings.Repeat("为", 99) + "？", strings.Repeat("为", 99) + "？", true},
		{"101 characters", long + "a?", "", false},
		{"100 characters without punctuation would become 101", long + "a", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CleanFollowUp(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("CleanFollowUp(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestResolveTarget(t *testing.T) {
	hyps := []RoleHypothesis{{Target: "backend engineer", Confidence: 0.6}, {Target: "SRE", Confidence: 0.8}, {Target: "DBA", Confidence: 0.8}}
	tests := []struct {
		name      string
		confirmed string
		p         Profile
		want      string
	}{
		{"confirmed wins", "  data engineer ", Profile{RoleHypotheses: hyps, ResumeType: "backend"}, "data engineer"},
		{"most confident hypothesis, first on ties", " ", Profile{RoleHypotheses: hyps, ResumeType: "backend"}, "SRE"},
		{"blank hypotheses skipped", "", Profile{RoleHypotheses: []RoleHypothesis{{Target: " ", Confidence: 1}, {Target: "QA", Confidence: 0}}}, "QA"},
		{"resume type", "", Profile{RoleHypotheses: []RoleHypothesis{{Target: ""}}, ResumeType: " frontend "}, "frontend"},
		{"default", "", Profile{}, "generic software engineer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolveTarget(tt.confirmed, tt.p); got != tt.want {
				t.Errorf("ResolveTarget = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNormalizeDemeanor(t *testing.T) {
	tests := []struct {
		name string
		in   Demeanor
		want Demeanor
	}{
		{"0-10 scale", Demeanor{8, 7, 9, 8}, Demeanor{80, 70, 90, 80}},
		{"all 10", Demeanor{10, 10, 10, 10}, Demeanor{100, 100, 100, 100}},
		{"mixed stays", Demeanor{8, 70, 9, 60}, Demeanor{8, 70, 9, 60}},
		{"0-100 scale stays", Demeanor{80, 70, 90, 82}, Demeanor{80, 70, 90, 82}},
		{"clamped", Demeanor{120, -5, 50, 101}, Demeanor{100, 0, 50, 100}},
		{"negative on the small scale", Demeanor{-1, 5, 5, 5}, Demeanor{0, 50, 50, 50}},
		{"zeros", Demeanor{}, Demeanor{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeDemeanor(tt.in); got != tt.want {
				t.Errorf("NormalizeDemeanor(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSessionScore(t *testing.T) {
	tests := []struct {
		name   string
		scores []int
		want   *int
	}{
		{"none", nil, nil},
		{"one", []int{70}, intPtr(70)},
		{"half rounds up", []int{80, 85}, intPtr(83)},
		{"thirds", []int{60, 61, 61}, intPtr(61)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SessionScore(tt.scores); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SessionScore(%v) = %v, want %v", tt.scores, optInt(got), optInt(tt.want))
			}
		})
	}
}

// optInt renders an optional score for messages.
func optInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestComputeRadar(t *testing.T) {
	tests := []struct {
		name                            string
		resume, interview, demeanor     *int
		wantProfessional, wantPotential *int
	}{
		{"all present", intPtr(80), intPtr(70), intPtr(90), intPtr(73), intPtr(77)},
		{"professional rounds 78.5 up", intPtr(75), intPtr(80), nil, intPtr(79), intPtr(78)},
		{"potential rounds 79.5 up", intPtr(70), intPtr(80), intPtr(90), intPtr(77), intPtr(80)},
		{"resume missing: professional is the interview", nil, intPtr(70), intPtr(90), intPtr(70), intPtr(75)},
		{"only demeanor: no interview, no derived score", nil, nil, intPtr(90), nil, nil},
		{"only resume: no interview, no derived score (issue 19)", intPtr(64), nil, nil, nil, nil},
		{"none", nil, nil, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeRadar(tt.resume, tt.interview, tt.demeanor)
			want := Radar{ResumeScore: tt.resume, InterviewPerformance: tt.interview, DemeanorEvaluation: tt.demeanor,
				ProfessionalSkills: tt.wantProfessional, PotentialIndex: tt.wantPotential}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ComputeRadar = %v, want %v", radarString(got), radarString(want))
			}
			if tt.resume != nil && got.ResumeScore == tt.resume {
				t.Error("ResumeScore aliases the input")
			}
		})
	}
}

// radarString renders a radar for messages.
func radarString(r Radar) string {
	return fmt.Sprintf("{resume=%v interview=%v demeanor=%v professional=%v potential=%v}",
		optInt(r.ResumeScore), optInt(r.InterviewPerformance), optInt(r.DemeanorEvaluation), optInt(r.ProfessionalSkills), optInt(r.PotentialIndex))
}

func TestBuildReviewFeedback(t *testing.T) {
	radar := ComputeRadar(intPtr(80), intPtr(70), intPtr(90))
	turns := []TurnSummary{
		{QuestionNumber: "1", Question: "MVCC?", Feedback: "Clear MVCC explanation.", Score: 90},
		{QuestionNumber: "2", Question: "Gap locks?", Feedback: "Missed gap locks.", Score: 50},
		{QuestionNumber: "2-F1", Question: "Phantoms?", Feedback: "Good recovery.", Score: 80, IsFollowUp: true},
		{QuestionNumber: "3", Question: "Design a cache.", Feedback: "Solid design.", Score: 85},
		{QuestionNumber: "4", Question: "Kafka ordering?", Feedback: " ", Score: 65},
		{QuestionNumber: "5", Question: "Raft?", Feedback: "Excellent.", Score: 95},
		{QuestionNumber: "6", Question: "GC?", Feedback: "Fine.", Score: 75},
	}
	got := BuildReviewFeedback(radar, turns, []string{" Quantify impact ", "quantify  impact", ""})
	want := ReviewFeedback{
		OverallComment:  "Solid performance (potential index 77). Strongest: demeanor (90); weakest: interview performance (70).",
		Highlights:      []string{"Q5: Excellent.", "Q1: Clear MVCC explanation.", "Q3: Solid design."},
		ImprovementTips: []string{"Q2: Missed gap locks.", `Q4: revisit the question "Kafka ordering?"`},
		// Next steps do not repeat the tips (issue 19).
		NextActions: []string{"Quantify impact", "Practise Q2 again out loud, covering the points its feedback names.",
			"Practise Q4 again out loud, covering the points its feedback names."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildReviewFeedback =\n%#v\nwant\n%#v", got, want)
	}

	t.Run("empty lists are not nil", func(t *testing.T) {
		got := BuildReviewFeedback(Radar{}, nil, nil)
		want := ReviewFeedback{
			OverallComment: "Not enough was assessed in this interview to give an overall comment.",
			Highlights:     []string{}, ImprovementTips: []string{}, NextActions: []string{},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %#v, want %#v", got, want)
		}
	})

	bands := []struct {
		potential int
		want      string
	}{
		{100, "Strong performance"}, {85, "Strong performance"}, {84, "Solid performance"}, {70, "Solid performance"},
		{69, "Meets the bar"}, {60, "Meets the bar"}, {59, "Below expectations"}, {0, "Below expectations"},
	}
	for _, b := range bands {
		t.Run("band "+strconv.Itoa(b.potential), func(t *testing.T) {
			got := BuildReviewFeedback(Radar{PotentialIndex: intPtr(b.potential)}, nil, nil).OverallComment
			if want := b.want + " (potential index " + strconv.Itoa(b.potential) + ")."; got != want {
				t.Errorf("OverallComment = %q, want %q", got, want)
			}
		})
	}
}
