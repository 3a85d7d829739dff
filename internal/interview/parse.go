package interview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// This file parses the model's output of each stage (interview.md "Model
// output contract") leniently: code fences and text around the JSON object
// are ignored, unknown fields are ignored, keys match regardless of case and
// of "_"/"-" (missing_points is missingPoints), numbers may come as strings
// ("85", "0.8", "85%"), booleans as "true"/"false", and the object may be
// nested one level down (under "result", "data", …) when the top level has
// none of the stage's fields. What cannot be used is an *apperr.Error of
// KindUpstream that is retryable: another model call may do better. The
// parsers run inside the guarded model call, so they stay linear-time and
// never panic.

// maxObjectCandidates bounds how many "{" positions are tried as the start
// of the object, so that garbage full of braces stays cheap.
const maxObjectCandidates = 16

// unusable is the classified error of a model output that cannot be used.
func unusable(stage, format string, args ...any) *apperr.Error {
	return &apperr.Error{
		Kind:      apperr.KindUpstream,
		Code:      apperr.CodeAIUpstream,
		Message:   fmt.Sprintf("model output for %s is unusable: %s", stage, fmt.Sprintf(format, args...)),
		Retryable: true,
	}
}

// jsonObject is a decoded JSON object whose keys are folded by foldKey.
type jsonObject map[string]any

// foldKey folds a key for lenient matching: lower case without "_", "-" or
// spaces.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// wrapperKeys are the fields a model nests its answer under, tried first
// and in this order; any other object-valued field is tried after them.
var wrapperKeys = []string{"result", "data", "output", "response", "answer", "content", "json", "payload", "evaluation", "message"}

// decodeStage finds the stage's object in content: the first complete JSON
// object, or an object nested one level down (under a wrapper field, or
// serialised into a string field) that has more of the expected (folded)
// keys than the top level; ties go to the top level, then to wrapperKeys
// order, then to key order.
func decodeStage(stage, content string, expected ...string) (jsonObject, error) {
	top, err := firstObject(content)
	if err != nil {
		return nil, unusable(stage, "%s", err.Error())
	}
	names := expected
	expected = make([]string, len(names))
	for i, n := range names {
		expected[i] = foldKey(n)
	}
	best, bestCount := top, top.countKeys(expected)
	if bestCount == len(expected) {
		return top, nil
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		if !slices.Contains(wrapperKeys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range append(slices.Clone(wrapperKeys), keys...) {
		var inner jsonObject
		switch v := top[k].(type) {
		case map[string]any:
			inner = foldObject(v)
		case string: // the object serialised into a string field
			inner, _ = firstObject(v)
		}
		if n := inner.countKeys(expected); n > bestCount {
			best, bestCount = inner, n
		}
	}
	if bestCount == 0 {
		return nil, unusable(stage, "none of the fields %s", strings.Join(names, ", "))
	}
	return best, nil
}

// firstObject decodes the first balanced {...} of s that is valid JSON.
func firstObject(s string) (jsonObject, error) {
	b := []byte(s)
	start, tried, truncated := 0, 0, false
	for tried < maxObjectCandidates {
		i := bytes.IndexByte(b[start:], '{')
		if i < 0 {
			break
		}
		i += start
		tried++
		// A "{" that never closes may still contain a later object that
		// does (a stray quote in prose shifts the string state), so go on.
		if end := balancedEnd(b, i); end < 0 {
			truncated = true
		} else if obj, ok := decodeObject(b[i:end]); ok {
			return obj, nil
		}
		start = i + 1
	}
	switch {
	case tried == 0:
		return nil, fmt.Errorf("no JSON object")
	case truncated:
		return nil, fmt.Errorf("truncated JSON object")
	default:
		return nil, fmt.Errorf("no valid JSON object")
	}
}

// balancedEnd returns the index after the "}" that closes the "{" at
// b[start], skipping braces inside strings, or -1 when it is never closed.
func balancedEnd(b []byte, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// decodeObject decodes raw as a JSON object with numbers kept as json.Number.
func decodeObject(raw []byte) (jsonObject, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return foldObject(m), true
}

// foldObject re-keys m by foldKey; the first of two keys folding alike wins
// in sorted key order, so the result is deterministic.
func foldObject(m map[string]any) jsonObject {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(jsonObject, len(m))
	for _, k := range keys {
		if fk := foldKey(k); fk != "" {
			if _, dup := out[fk]; !dup {
				out[fk] = m[k]
			}
		}
	}
	return out
}

// countKeys counts the keys under which o has a non-null value.
func (o jsonObject) countKeys(keys []string) int {
	n := 0
	for _, k := range keys {
		if v, ok := o[k]; ok && v != nil {
			n++
		}
	}
	return n
}

// lookup returns the first non-null value under one of the (folded) keys.
func (o jsonObject) lookup(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := o[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// str returns the value under keys as a trimmed string; numbers and
// booleans are written out, anything else is "".
func (o jsonObject) str(keys ...string) string {
	v, _ := o.lookup(keys...)
	return toString(v)
}

// toString writes a scalar as a trimmed string.
func toString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	default:
		return ""
	}
}

// num returns the value under keys as a number, accepting numeric strings
// such as " 85 ", "0.8" or "85%" (a percent sign divides by 100 when
// percent is set). ok is false when absent or not a number.
func (o jsonObject) num(percent bool, keys ...string) (float64, bool) {
	v, found := o.lookup(keys...)
	if !found {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default: // booleans, lists and objects are not numbers
		return 0, false
	}
	divide := false
	if p, ok := strings.CutSuffix(s, "%"); ok {
		s, divide = strings.TrimSpace(p), percent
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if divide {
		f /= 100
	}
	return f, true
}

// integer returns the value under keys rounded to an int within lo..hi.
func (o jsonObject) integer(lo, hi int, keys ...string) (int, bool) {
	f, ok := o.num(false, keys...)
	if !ok {
		return 0, false
	}
	f = math.Round(min(max(f, float64(lo)), float64(hi)))
	return int(f), true
}

// boolean returns the value under keys as a bool: JSON booleans, the
// strings "true"/"false"/"yes"/"no"/"1"/"0" and numbers (non-zero is true).
func (o jsonObject) boolean(keys ...string) (bool, bool) {
	v, found := o.lookup(keys...)
	if !found {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0, err == nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "1", "是":
			return true, true
		case "false", "no", "n", "0", "否", "":
			return false, true
		}
	}
	return false, false
}

// strList returns the value under keys as trimmed, non-empty strings. A
// single string is a one-item list; scalar items are written out; object
// items contribute their first text-like field.
func (o jsonObject) strList(keys ...string) []string {
	v, _ := o.lookup(keys...)
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case string:
		add(strings.TrimSpace(x))
	case []any:
		for _, it := range x {
			if m, ok := it.(map[string]any); ok {
				add(foldObject(m).str("text", "point", "content", "name", "value", "statement", "suggestion"))
				continue
			}
			add(toString(it))
		}
	}
	return out
}

// listShape says how objList turns the other shapes models use into
// objects: a map {"<name>": {...}} or {"<name>": "<value>"} gives one object
// per entry with the key under name (and a string value under value), and
// a plain string item becomes an object with the string under item. An
// empty field disables that shape.
type listShape struct {
	name, value, item string
}

// objList returns the value under keys as a list of objects, accepting
// the shapes of shape besides a list of objects. Map entries come in key
// order.
func (o jsonObject) objList(shape listShape, keys ...string) []jsonObject {
	v, _ := o.lookup(keys...)
	var out []jsonObject
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			switch y := it.(type) {
			case map[string]any:
				out = append(out, foldObject(y))
			case string:
				if shape.item != "" && strings.TrimSpace(y) != "" {
					out = append(out, jsonObject{shape.item: y})
				}
			}
		}
	case map[string]any:
		if shape.name == "" {
			break
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			switch y := x[k].(type) {
			case map[string]any:
				obj := foldObject(y)
				if _, ok := obj[shape.name]; !ok {
					obj[shape.name] = k
				}
				out = append(out, obj)
			case string:
				if shape.value != "" {
					out = append(out, jsonObject{shape.name: k, shape.value: y})
				}
			}
		}
	}
	return out
}

// confidence reads a confidence under keys as 0..1: "80%" is 0.8, and a
// value above 1 and up to 100 is read as a percentage (a model that used a
// 0-100 scale); the result is clamped to 0..1. Absent is 0, which the review
// rule treats as low confidence.
func (o jsonObject) confidence(keys ...string) float64 {
	f, ok := o.num(true, keys...)
	if !ok {
		return 0
	}
	if f > 1 && f <= 100 {
		f /= 100
	}
	return min(max(f, 0), 1)
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
		Skills:               o.strList("skills"),
		ResumeSuggestions:    o.strList("resumesuggestions", "suggestions"),
		ProjectQuestionHints: o.strList("projectquestionhints", "questionhints"),
		ResumeType:           o.str("resumetype"),
	}
	p.ResumeScore, _ = o.integer(0, 100, "resumescore", "score")
	for _, e := range o.objList(listShape{name: "skill", value: "evidence", item: "skill"}, "skillevidence") {
		if se := (SkillEvidence{Skill: e.str("skill", "name"), Evidence: e.str("evidence")}); se.Skill != "" {
			p.SkillEvidence = append(p.SkillEvidence, se)
		}
	}
	for _, h := range o.objList(listShape{name: "target", value: "evidence", item: "target"}, "rolehypotheses") {
		rh := RoleHypothesis{Target: h.str("target", "role", "name"), Evidence: h.str("evidence"), Confidence: h.confidence("confidence")}
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
		Suggestions:   o.strList("suggestions", "resumesuggestions"),
		InterviewType: o.str("interviewtype"),
	}
	q.ResumeScore, _ = o.integer(0, 100, "resumescore")
	for _, item := range o.objList(listShape{item: "content"}, "questions") {
		spec := QuestionSpec{
			Content:          item.str("content", "question", "text"),
			CommonMistakes:   item.strList("commonmistakes", "mistakes"),
			FollowUpStrategy: item.str("followupstrategy", "followup"),
		}
		spec.RubricVersion, _ = item.integer(0, math.MaxInt32, "rubricversion")
		for _, a := range item.objList(listShape{name: "name", item: "name"}, "anchors", "rubric") {
			anchor := Anchor{Name: a.str("name", "anchor", "point"), AcceptableStatements: a.strList("acceptablestatements", "statements")}
			anchor.Weight, _ = a.integer(math.MinInt32, math.MaxInt32, "weight")
			anchor.Core, _ = a.boolean("core", "iscore")
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
		Feedback:      o.str("feedback"),
		MissingPoints: o.strList("missingpoints"),
	}
	score, hasScore := o.integer(0, 100, "score")
	ev.Score = score
	for _, d := range o.objList(listShape{name: "id", value: "status"}, "dimensions") {
		ev.Dimensions = append(ev.Dimensions, DimensionJudgment{
			ID:         normDimension(d.str("id", "dimension", "name")),
			Status:     normStatus(d.str("status", "judgment")),
			Evidence:   d.str("evidence"),
			Confidence: d.confidence("confidence"),
		})
	}
	for _, a := range o.objList(listShape{name: "name", value: "status"}, "anchors") {
		ev.Anchors = append(ev.Anchors, AnchorJudgment{
			Name:     a.str("name", "anchor", "id"),
			Status:   normStatus(a.str("status", "judgment")),
			Evidence: a.str("evidence"),
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
	out.FollowUp, _ = CleanFollowUp(o.str("followup", "followupquestion", "question"))
	out.EndInterview, _ = o.boolean("endinterview")
	return out, nil
}

// plainQuestion accepts a model output that is only the question itself:
// no JSON syntax at all, and a question mark at the end already (so that
// truncated or chatty text is not mistaken for a question).
func plainQuestion(content string) (string, bool) {
	text := stripFences(content)
	if strings.ContainsAny(text, "{}[]") {
		return "", false
	}
	bare := strings.TrimRight(text, "\"'`”’」』 \t\r\n")
	if !strings.HasSuffix(bare, "?") && !strings.HasSuffix(bare, "？") {
		return "", false
	}
	return CleanFollowUp(text)
}

// stripFences removes a surrounding Markdown code fence.
func stripFences(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if _, body, found := strings.Cut(rest, "\n"); found {
			rest = body
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	return s
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
		if *v, ok = o.integer(lo, hi, keys[i]); ok {
			sum += *v
			n++
		}
	}
	composite, ok := o.integer(lo, hi, "compositescore", "composite", "score")
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
