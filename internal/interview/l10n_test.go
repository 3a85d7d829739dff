package interview

import (
	"reflect"
	"strconv"
	"testing"
)

func TestLevelText(t *testing.T) {
	for _, c := range []struct{ level, lang, want string }{
		{LevelExcellent, LangZH, "优秀"}, {LevelQualified, LangZH, "合格"}, {LevelNeedsWork, LangZH, "需改进"},
		{LevelExcellent, LangEN, "excellent"}, {LevelNeedsWork, LangEN, "needs improvement"}, {"", LangZH, ""},
	} {
		if got := LevelText(c.level, c.lang); got != c.want {
			t.Errorf("LevelText(%q, %q) = %q, want %q", c.level, c.lang, got, c.want)
		}
	}
}

func TestBuildReviewFeedbackChinese(t *testing.T) {
	radar := ComputeRadar(intPtr(80), intPtr(70), intPtr(90))
	turns := []TurnSummary{
		{QuestionNumber: "1", Question: "MVCC 是什么？", Feedback: "对 MVCC 的解释很清楚。", Score: 90},
		{QuestionNumber: "2", Question: "间隙锁？", Feedback: "没有提到间隙锁。", Score: 50},
		{QuestionNumber: "4", Question: "Kafka 如何保证顺序？", Feedback: "", Score: 65},
	}
	got := BuildReviewFeedbackIn(LangZH, radar, turns, []string{"量化项目成果"})
	want := ReviewFeedback{
		OverallComment:  "表现扎实（潜力指数 77）。最强项：仪态（90）；最弱项：面试表现（70）。",
		Highlights:      []string{"第 1 题：对 MVCC 的解释很清楚。"},
		ImprovementTips: []string{"第 2 题：没有提到间隙锁。", "第 4 题：重新复习这道题：“Kafka 如何保证顺序？”"},
		NextActions:     []string{"量化项目成果", "把第 2 题再大声练一遍，讲全反馈里指出的要点。", "把第 4 题再大声练一遍，讲全反馈里指出的要点。"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildReviewFeedbackIn(zh) =\n%#v\nwant\n%#v", got, want)
	}
	for p, grade := range map[int]string{90: "表现出色", 75: "表现扎实", 60: "达到要求", 10: "低于预期"} {
		if got := BuildReviewFeedbackIn(LangZH, Radar{PotentialIndex: intPtr(p)}, nil, nil).OverallComment; got != grade+"（潜力指数 "+strconv.Itoa(p)+"）。" {
			t.Errorf("potential %d: OverallComment = %q", p, got)
		}
	}
	if got := BuildReviewFeedbackIn(LangZH, Radar{}, nil, nil).OverallComment; got != "本场面试评估的内容不足，暂无法给出总体评价。" {
		t.Errorf("empty radar: %q", got)
	}
}

func TestGuardFeedbackChinese(t *testing.T) {
	ev := Evaluation{Dimensions: []DimensionJudgment{{ID: "correctness", Status: StatusMet, Evidence: "说明了 B+ 树的查找过程"}},
		MissingPoints: []string{"写入代价", "存储代价"}}
	got := GuardFeedbackIn(LangZH, "无", ev, QuestionSpec{})
	if want := "正确性：说明了 B+ 树的查找过程。还可以补充：写入代价；存储代价。"; got != want {
		t.Errorf("GuardFeedbackIn(zh) = %q, want %q", got, want)
	}
	if got := GuardFeedbackIn(LangZH, "n/a", Evaluation{}, QuestionSpec{}); got != "这道题的回答已评估，但暂无详细反馈。" {
		t.Errorf("GuardFeedbackIn(zh) with nothing = %q", got)
	}
	if got := GuardFeedback("n/a", ev, QuestionSpec{}); got != "Correctness: 说明了 B+ 树的查找过程. Consider also: 写入代价; 存储代价." {
		t.Errorf("GuardFeedback (en) = %q", got)
	}
}

func TestRadarLabelsChinese(t *testing.T) {
	r := ComputeRadar(intPtr(80), intPtr(70), nil)
	var labels []string
	for _, d := range r.DimensionsIn(LangZH) {
		labels = append(labels, d.Label)
	}
	if want := []string{"简历", "面试表现", "仪态", "专业技能", "潜力"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("zh labels = %v, want %v", labels, want)
	}
	if r.Dimensions()[1].Label != "Interview" || r.Dimensions()[1].Key != r.DimensionsIn(LangZH)[1].Key {
		t.Errorf("English labels or keys changed: %+v", r.Dimensions())
	}
}
