package interview

import (
	"fmt"
	"math"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm/jsonx"
)

// This file parses the model's output of each stage (interview.md "Model
// output contract") with the lenient reader jsonx (fences and prose around
// the object, folded keys, numbers as strings, one level of nesting), and
// maps it onto the stage's types. What cannot be used is an *apperr.Error of
// KindUpstream that is retryable: another model call may do better. The
// parsers run inside the guarded model call, so they stay linear-time and
// never panic.

// unusable is the classified error of a model output that cannot be used.
func unusable(stage, format string, args ...any) *apperr.Error {
	return &apperr.Error{
		Kind:      apperr.KindUpstream,
		Code:      apperr.CodeAIUpstream,
		Message:   fmt.Sprintf("model output for %s is unusable: %s", stage, fmt.Sprintf(format, args...)),
		Retryable: true,
	}
}

// decodeStage finds the stage's object in content (jsonx.Find); what
// cannot be used is unusable.
func decodeStage(stage, content string, expected ...string) (jsonx.Object, error) {
	o, err := jsonx.Find(content, expected...)
	if err != nil {
		return nil, unusable(stage, "%s", err.Error())
	}
	return o, nil
}

// ParseProfile parses the resume-profile-extraction output. Role hypothesis
// confidences are read as 0..1 (see confidence), the resume score is
// clamped to 0..100. An object with none of the profile's fields is
// unusable.
func ParseProfile(content string) (Profile, error) {
	o, err := decodeStage(StageProfile, content,
		"skills", "skillEvidence", "roleHypotheses", "resumeScore", "resumeSuggestions", "projectQuestionHints", "resumeType")
	if err != nil {
		return Profile{}, err
	}
	p := Profile{
		Skills:               o.Strings("skills"),
		ResumeSuggestions:    o.Strings("resumesuggestions", "suggestions"),
		ProjectQuestionHints: o.Strings("projectquestionhints", "questionhints"),
		ResumeType:           o.Str("resumetype"),
	}
	p.ResumeScore, _ = o.Int(0, 100, "resumescore", "score")
	for _, e := range o.Objects(jsonx.ListShape{Name: "skill", Value: "evidence", Item: "skill"}, "skillevidence") {
		if se := (SkillEvidence{Skill: e.Str("skill", "name"), Evidence: e.Str("evidence")}); se.Skill != "" {
			p.SkillEvidence = append(p.SkillEvidence, se)
		}
	}
	for _, h := range o.Objects(jsonx.ListShape{Name: "target", Value: "evidence", Item: "target"}, "rolehypotheses") {
		rh := RoleHypothesis{Target: h.Str("target", "role", "name"), Evidence: h.Str("evidence"), Confidence: h.Fraction("confidence")}
		if rh.Target != "" {
			p.RoleHypotheses = append(p.RoleHypotheses, rh)
		}
	}
	return p, nil
}

// ParseQuestions parses the interview-extraction output. Every question
// goes through ValidateSpec (an invalid rubric degrades, it does not fail);
// a question given as a plain string is a question without rubric; a
// question without content is dropped. No question left is unusable.
func ParseQuestions(content string) (Questions, error) {
	o, err := decodeStage(StageExtraction, content, "questions")
	if err != nil {
		return Questions{}, err
	}
	q := Questions{
		Suggestions:   o.Strings("suggestions", "resumesuggestions"),
		InterviewType: o.Str("interviewtype"),
	}
	q.ResumeScore, _ = o.Int(0, 100, "resumescore")
	for _, item := range o.Objects(jsonx.ListShape{Item: "content"}, "questions") {
		spec := QuestionSpec{
			Content:          item.Str("content", "question", "text"),
			CommonMistakes:   item.Strings("commonmistakes", "mistakes"),
			FollowUpStrategy: item.Str("followupstrategy", "followup"),
		}
		spec.RubricVersion, _ = item.Int(0, math.MaxInt32, "rubricversion")
		for _, a := range item.Objects(jsonx.ListShape{Name: "name", Item: "name"}, "anchors", "rubric") {
			anchor := Anchor{Name: a.Str("name", "anchor", "point"), AcceptableStatements: a.Strings("acceptablestatements", "statements")}
			anchor.Weight, _ = a.Int(math.MinInt32, math.MaxInt32, "weight")
			anchor.Core, _ = a.Bool("core", "iscore")
			spec.Anchors = append(spec.Anchors, anchor)
		}
		if spec = ValidateSpec(spec); spec.Content != "" {
			q.Questions = append(q.Questions, spec)
		}
	}
	if len(q.Questions) == 0 {
		return Questions{}, unusable(StageExtraction, "no question with content")
	}
	return q, nil
}

// statusSynonyms maps wordings models use for a status to the status.
var statusSynonyms = map[string]string{
	"partially met": StatusPartial, "partially_met": StatusPartial, "partially": StatusPartial, "partly": StatusPartial,
	"部分": StatusPartial, "部分满足": StatusPartial,
	"not met": StatusMissing, "not_met": StatusMissing, "absent": StatusMissing, "缺失": StatusMissing, "未提及": StatusMissing,
	"incorrect": StatusContradicted, "wrong": StatusContradicted, "contradiction": StatusContradicted, "错误": StatusContradicted, "矛盾": StatusContradicted,
	"fully met": StatusMet, "满足": StatusMet, "达到": StatusMet,
}

// normStatus lower-cases a status and maps known synonyms; an unknown
// status is kept (lower-cased) so that the rules can report it.
func normStatus(s string) string {
	s = normToken(s)
	if m, ok := statusSynonyms[s]; ok {
		return m
	}
	return s
}

// dimensionSynonyms maps wordings models use for a dimension id to the id.
var dimensionSynonyms = map[string]string{
	"accuracy": DimCorrectness, "正确性": DimCorrectness, "准确性": DimCorrectness,
	"完整性": DimCompleteness, "逻辑": DimLogic, "逻辑性": DimLogic,
	"深度": DimDepth, "清晰度": DimClarity, "表达": DimClarity,
}

// normDimension lower-cases a dimension id and maps known synonyms.
func normDimension(s string) string {
	s = normToken(s)
	if m, ok := dimensionSynonyms[s]; ok {
		return m
	}
	return s
}

// ParseEvaluation parses the interview-evaluation (and interview-review)
// output. Ids and statuses are lower-cased (a few status synonyms are
// mapped), confidences are read as 0..1 (see confidence) and the score is
// clamped to 0..100. Whether the judgments are complete is for the rules
// to decide (Score); only an output with neither dimensions nor a score is
// unusable.
func ParseEvaluation(content string) (Evaluation, error) {
	o, err := decodeStage(StageEvaluation, content, "dimensions", "anchors", "score", "feedback", "missingPoints")
	if err != nil {
		return Evaluation{}, err
	}
	ev := Evaluation{
		Feedback:      o.Str("feedback"),
		MissingPoints: o.Strings("missingpoints"),
	}
	score, hasScore := o.Int(0, 100, "score")
	ev.Score = score
	for _, d := range o.Objects(jsonx.ListShape{Name: "id", Value: "status"}, "dimensions") {
		ev.Dimensions = append(ev.Dimensions, DimensionJudgment{
			ID:         normDimension(d.Str("id", "dimension", "name")),
			Status:     normStatus(d.Str("status", "judgment")),
			Evidence:   d.Str("evidence"),
			Confidence: d.Fraction("confidence"),
		})
	}
	for _, a := range o.Objects(jsonx.ListShape{Name: "name", Value: "status"}, "anchors") {
		ev.Anchors = append(ev.Anchors, AnchorJudgment{
			Name:     a.Str("name", "anchor", "id"),
			Status:   normStatus(a.Str("status", "judgment")),
			Evidence: a.Str("evidence"),
		})
	}
	if len(ev.Dimensions) == 0 && !hasScore {
		return Evaluation{}, unusable(StageEvaluation, "neither dimensions nor a score")
	}
	return ev, nil
}

// ParseFollowUp parses the interview-followup output. The question goes
// through CleanFollowUp; one that is not usable becomes "" (the caller then
// falls back to the spec's followUpStrategy) rather than an error. Output
// without JSON that is itself a question ending in "?" is accepted.
// An object with neither field is unusable.
func ParseFollowUp(content string) (FollowUpOutput, error) {
	o, err := decodeStage(StageFollowUp, content, "followUp", "followUpQuestion", "question", "endInterview")
	if err != nil {
		if q, ok := plainQuestion(content); ok {
			return FollowUpOutput{FollowUp: q}, nil
		}
		return FollowUpOutput{}, err
	}
	var out FollowUpOutput
	out.FollowUp, _ = CleanFollowUp(o.Str("followup", "followupquestion", "question"))
	out.EndInterview, _ = o.Bool("endinterview")
	return out, nil
}

// plainQuestion accepts a model output that is only the question itself:
// no JSON syntax at all, and a question mark at the end already (so that
// truncated or chatty text is not mistaken for a question).
func plainQuestion(content string) (string, bool) {
	text := jsonx.StripFences(content)
	if strings.ContainsAny(text, "{}[]") {
		return "", false
	}
	bare := strings.TrimRight(text, "\"'`”’」』 \t\r\n")
	if !strings.HasSuffix(bare, "?") && !strings.HasSuffix(bare, "？") {
		return "", false
	}
	return CleanFollowUp(text)
}

// ParseDemeanor parses the interview-demeanor output and normalises it
// with NormalizeDemeanor (0-10 scale detection, clamping). A missing
// compositeScore is the rounded mean of the levels given; an output with
// none of the four values is unusable.
func ParseDemeanor(content string) (Demeanor, error) {
	keys := []string{"paniclevel", "seriousnesslevel", "emoticonhandling", "compositescore"}
	o, err := decodeStage(StageDemeanor, content, "panicLevel", "seriousnessLevel", "emoticonHandling", "compositeScore")
	if err != nil {
		return Demeanor{}, err
	}
	const lo, hi = -1000, 1000 // clamped again by NormalizeDemeanor
	var d Demeanor
	vals := []*int{&d.PanicLevel, &d.SeriousnessLevel, &d.EmoticonHandling}
	sum, n := 0, 0
	for i, v := range vals {
		var ok bool
		if *v, ok = o.Int(lo, hi, keys[i]); ok {
			sum += *v
			n++
		}
	}
	composite, ok := o.Int(lo, hi, "compositescore", "composite", "score")
	switch {
	case ok:
		d.CompositeScore = composite
	case n > 0:
		d.CompositeScore = int(math.Round(float64(sum) / float64(n)))
	default:
		return Demeanor{}, unusable(StageDemeanor, "no demeanor values")
	}
	return NormalizeDemeanor(d), nil
}
