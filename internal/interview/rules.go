package interview

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the interview's deterministic rules (interview.md
// "Answer", "Second review", "Feedback guard", "Follow-up", "Demeanor",
// "Radar and report"): the model extracts evidence, these pure functions
// decide scores and flow, so the same evidence always gives the same result.
// Nothing here does I/O.

// Status factors of the rule score, in halves so that the arithmetic stays
// exact: met 1.0, partial 0.5, missing and contradicted 0.
var statusHalves = map[string]int{StatusMet: 2, StatusPartial: 1, StatusMissing: 0, StatusContradicted: 0}

// Score thresholds and limits of the rules.
const (
	// ContradictedCap is the highest score of an answer whose correctness
	// is contradicted.
	ContradictedCap = 40
	// ExcellentScore and QualifiedScore are the lower bounds of the levels.
	ExcellentScore = 85
	QualifiedScore = 60
	// MinConfidence is the lowest dimension confidence that needs no review.
	MinConfidence = 0.7
	// DefaultMaxFollowUp is the follow-ups per main question when none is configured.
	DefaultMaxFollowUp = 1
	// MaxFollowUpRunes is the longest follow-up question, in characters.
	MaxFollowUpRunes = 100
	// DefaultTarget is the target role when nothing better is known.
	DefaultTarget = "generic software engineer"
	// LegacyAnchor is the name of the single anchor of a degraded spec.
	LegacyAnchor = "legacy"
)

// boundaryScores are the rule scores that sit on a level or cap boundary,
// where one status more or less changes the verdict: they get a second look.
var boundaryScores = []int{ContradictedCap, QualifiedScore, ExcellentScore}

// JudgmentError says why dimension judgments cannot be scored by rule.
// Reason is a stable code such as "missing-dimensions:depth" or
// "invalid-status:logic=great".
type JudgmentError struct {
	Reason string
}

// Error implements error.
func (e *JudgmentError) Error() string { return "unusable dimension judgments: " + e.Reason }

// normToken lower-cases and trims an id or status.
func normToken(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// normName folds an anchor name for matching: lower case, no white space.
func normName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// dimensionStatuses validates dims and returns the status of each of the
// five dimensions. A dimension given twice with the same status is accepted;
// with different statuses it is a conflict.
func dimensionStatuses(dims []DimensionJudgment) (map[string]string, error) {
	if len(dims) == 0 {
		return nil, &JudgmentError{Reason: "no-dimensions"}
	}
	got := make(map[string]string, len(Dimensions))
	for _, d := range dims {
		id, status := normToken(d.ID), normToken(d.Status)
		if _, ok := DimensionWeights[id]; !ok {
			return nil, &JudgmentError{Reason: "unknown-dimension:" + id}
		}
		if _, ok := statusHalves[status]; !ok {
			return nil, &JudgmentError{Reason: "invalid-status:" + id + "=" + status}
		}
		if prev, ok := got[id]; ok && prev != status {
			return nil, &JudgmentError{Reason: "conflicting-dimension:" + id + "=" + prev + "/" + status}
		}
		got[id] = status
	}
	var missing []string
	for _, id := range Dimensions {
		if _, ok := got[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, &JudgmentError{Reason: "missing-dimensions:" + strings.Join(missing, ",")}
	}
	return got, nil
}

// RuleScore aggregates the five dimension statuses into a score 0..100:
// round(Σ weight × factor / Σ weight × 100) with the weights of
// DimensionWeights and factors met 1.0, partial 0.5, missing and
// contradicted 0 (halves round up). A contradicted correctness caps the
// score at 40; capped reports whether the cap actually lowered the score.
// Ids and statuses are compared case-insensitively. The error is a
// *JudgmentError when a dimension is missing, unknown, has an unknown status
// or is given twice with different statuses.
func RuleScore(dims []DimensionJudgment) (score int, capped bool, err error) {
	statuses, err := dimensionStatuses(dims)
	if err != nil {
		return 0, false, err
	}
	var halves, total int
	for _, id := range Dimensions {
		w := DimensionWeights[id]
		halves += w * statusHalves[statuses[id]]
		total += w
	}
	score = roundDiv(halves*100, 2*total)
	if statuses[DimCorrectness] == StatusContradicted && score > ContradictedCap {
		return ContradictedCap, true, nil
	}
	return score, false, nil
}

// roundDiv is a/b rounded half up, for a >= 0 and b > 0.
func roundDiv(a, b int) int { return (2*a + b) / (2 * b) }

// clampPercent limits a score to 0..100.
func clampPercent(n int) int { return min(max(n, 0), 100) }

// Level names the band of score: excellent from 85, qualified from 60,
// needs improvement below.
func Level(score int) string {
	switch {
	case score >= ExcellentScore:
		return LevelExcellent
	case score >= QualifiedScore:
		return LevelQualified
	default:
		return LevelNeedsWork
	}
}

// correctnessContradicted reports whether any correctness judgment of ev is
// contradicted.
func correctnessContradicted(ev Evaluation) bool {
	for _, d := range ev.Dimensions {
		if normToken(d.ID) == DimCorrectness && normToken(d.Status) == StatusContradicted {
			return true
		}
	}
	return false
}

// Score turns an evaluation into the turn's verdict. With valid judgments
// the rule score decides (Reason "rule"). Otherwise the model's own score,
// clamped to 0..100, is used, RuleScore is -1 and Reason is
// "model-score:<why>"; the correctness cap still applies to it when a
// correctness judgment says contradicted, because a model score must not
// rescue an answer the rules would cap.
func Score(ev Evaluation) Scored {
	rule, capped, err := RuleScore(ev.Dimensions)
	if err == nil {
		return Scored{Score: rule, Level: Level(rule), RuleScore: rule, Capped: capped, Reason: "rule"}
	}
	score := clampPercent(ev.Score)
	capped = false
	if correctnessContradicted(ev) && score > ContradictedCap {
		score, capped = ContradictedCap, true
	}
	return Scored{Score: score, Level: Level(score), RuleScore: -1, Capped: capped, Reason: "model-score:" + judgmentReason(err)}
}

// judgmentReason is the reason code of a RuleScore error.
func judgmentReason(err error) string {
	if je, ok := errors.AsType[*JudgmentError](err); ok {
		return je.Reason
	}
	return err.Error()
}

// ReviewNeeded decides whether the evaluation gets a second run, by these
// rules in order:
//  1. correctness contradicted → no review, "contradicted-correctness": the
//     capped result is already the conservative one (the original reviewed
//     these because it checked the boundary rule first);
//  2. the score came from the model because the judgments were unusable →
//     review, "invalid-judgments": a model impression is the least
//     trustworthy score, and a second run with valid judgments replaces it
//     by a rule score (see MergeReview);
//  3. rule score exactly 40, 60 or 85 → review, "boundary-score:N";
//  4. minimum dimension confidence below 0.7 → review, "low-confidence:0.xx"
//     (floored to two decimals, so 0.699 reads 0.69, never 0.70);
//  5. otherwise no review, "".
func ReviewNeeded(ev Evaluation, s Scored) ReviewDecision {
	if correctnessContradicted(ev) {
		return ReviewDecision{Reason: "contradicted-correctness"}
	}
	if s.RuleScore < 0 {
		return ReviewDecision{Review: true, Reason: "invalid-judgments"}
	}
	if slices.Contains(boundaryScores, s.RuleScore) {
		return ReviewDecision{Review: true, Reason: fmt.Sprintf("boundary-score:%d", s.RuleScore)}
	}
	if len(ev.Dimensions) > 0 {
		lowest := ev.Dimensions[0].Confidence
		for _, d := range ev.Dimensions[1:] {
			lowest = min(lowest, d.Confidence)
		}
		if lowest < MinConfidence {
			floored := math.Floor(lowest*100+1e-9) / 100
			return ReviewDecision{Review: true, Reason: fmt.Sprintf("low-confidence:%.2f", max(floored, 0))}
		}
	}
	return ReviewDecision{}
}

// MergeReview combines the first evaluation (and its verdict) with the
// second run's, by these rules in order:
//  1. the second run's judgments are unusable → the first verdict,
//     "review:invalid-second";
//  2. the first verdict came from the model's score (unusable judgments) →
//     the second run's rule score, "review:second-run";
//  3. both runs give every dimension the same status (evidence wording is
//     not compared) → the first verdict, "review:agree";
//  4. correctness differs and one run says contradicted → the lower of the
//     two scores, NeedsReview set, "review:correctness-disputed";
//  5. otherwise → the second run's statuses aggregated by RuleScore,
//     "review:second-run".
//
// Two model scores are never averaged. A review call that failed keeps the
// first verdict: see ReviewFailed.
func MergeReview(first Evaluation, firstScored Scored, second Evaluation) Scored {
	secondStatuses, err := dimensionStatuses(second.Dimensions)
	if err != nil {
		return withReason(firstScored, "review:invalid-second")
	}
	secondScored := Score(second)
	firstStatuses, err := dimensionStatuses(first.Dimensions)
	if err != nil || firstScored.RuleScore < 0 {
		return withReason(secondScored, "review:second-run")
	}
	agree := true
	for _, id := range Dimensions {
		if firstStatuses[id] != secondStatuses[id] {
			agree = false
			break
		}
	}
	if agree {
		return withReason(firstScored, "review:agree")
	}
	fc, sc := firstStatuses[DimCorrectness], secondStatuses[DimCorrectness]
	if fc != sc && (fc == StatusContradicted || sc == StatusContradicted) {
		lower := firstScored
		if secondScored.Score < firstScored.Score {
			lower = secondScored
		}
		lower = withReason(lower, "review:correctness-disputed")
		lower.NeedsReview = true
		return lower
	}
	return withReason(secondScored, "review:second-run")
}

// ReviewFailed is the verdict when the review call itself failed: the first
// verdict, with Reason "review:failed".
func ReviewFailed(firstScored Scored) Scored { return withReason(firstScored, "review:failed") }

// withReason returns s with another reason.
func withReason(s Scored, reason string) Scored {
	s.Reason = reason
	return s
}

// feedbackLeaks are protocol words and JSON syntax that must not reach the
// candidate; matched case-insensitively as substrings.
var feedbackLeaks = []string{
	"missing_points", "missingpoints", "missing points:",
	"targetanchorids", "target_anchor_ids", "anchorids", "anchor_ids",
	"acceptablestatements", "acceptable_statements",
	"commonmistakes", "common_mistakes",
	"followupstrategy", "follow_up_strategy", "rubricversion", "rubric_version",
	"anchors", "dimensions", "endinterview",
	`"id"`, `"status"`, `"evidence"`, `"confidence"`, `"score"`, `"feedback"`,
	"{", "}", "```",
}

// emptyFeedback are answers that say nothing, compared after trimming white
// space and punctuation and lower-casing.
var emptyFeedback = []string{
	"", "无", "没有", "暂无", "无反馈", "略", "n/a", "na", "none", "null", "nil", "no feedback", "nothing", "tbd", "todo",
}

// minFeedbackRunes is the shortest feedback that can say something.
const minFeedbackRunes = 4

// leaksProtocol reports whether s contains a protocol word or JSON syntax.
func leaksProtocol(s string) bool {
	lower := strings.ToLower(s)
	for _, w := range feedbackLeaks {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// saysNothing reports whether feedback is empty, a placeholder or too short.
func saysNothing(s string) bool {
	core := strings.ToLower(strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) }))
	return slices.Contains(emptyFeedback, core) || utf8.RuneCountInString(core) < minFeedbackRunes
}

// GuardFeedback returns feedback trimmed when it is usable. Feedback that
// leaks protocol words or JSON syntax (feedbackLeaks), or says nothing
// ("无", "n/a", "-", fewer than four characters), is rebuilt
// deterministically from the evaluation: one "<Dimension>: <evidence>."
// sentence per dimension with evidence (in weight order), then "Consider
// also: <missing points>." (or the anchors judged not met when there are no
// missing points). Evidence that itself leaks is left out.
func GuardFeedback(feedback string, ev Evaluation, spec QuestionSpec) string {
	feedback = strings.TrimSpace(feedback)
	if !leaksProtocol(feedback) && !saysNothing(feedback) {
		return feedback
	}
	var parts []string
	for _, id := range Dimensions {
		for _, d := range ev.Dimensions {
			if normToken(d.ID) != id {
				continue
			}
			if e := sentenceBody(d.Evidence); e != "" && !leaksProtocol(e) {
				parts = append(parts, dimensionLabel(id)+": "+e+".")
			}
			break
		}
	}
	consider := cleanList(ev.MissingPoints)
	if len(consider) == 0 {
		consider = weakAnchorNames(spec, ev, StatusPartial, StatusMissing, StatusContradicted)
	}
	if len(consider) > 0 {
		parts = append(parts, "Consider also: "+strings.Join(consider, "; ")+".")
	}
	if len(parts) == 0 {
		return "The answer was evaluated, but no detailed feedback is available for this question."
	}
	return strings.Join(parts, " ")
}

// dimensionLabel is the display name of a dimension id.
func dimensionLabel(id string) string {
	if id == "" {
		return id
	}
	return strings.ToUpper(id[:1]) + id[1:]
}

// sentenceBody trims s and its final punctuation, folding inner white space.
func sentenceBody(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// cleanList trims the items, drops empty or leaking ones and duplicates.
func cleanList(items []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = sentenceBody(it)
		k := normName(it)
		if it == "" || seen[k] || leaksProtocol(it) {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	return out
}

// weakAnchorNames returns, in spec order, the names of the spec's anchors
// that ev judges with one of statuses (names matched case- and
// space-insensitively). The legacy anchor of a degraded spec is not named.
func weakAnchorNames(spec QuestionSpec, ev Evaluation, statuses ...string) []string {
	var out []string
	for _, a := range spec.Anchors {
		name := strings.TrimSpace(a.Name)
		if name == "" || (spec.Degraded != "" && name == LegacyAnchor) {
			continue
		}
		if anchorJudgedOneOf(ev, name, statuses) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// anchorJudgedOneOf reports whether any judgment of anchor name in ev has
// one of statuses.
func anchorJudgedOneOf(ev Evaluation, name string, statuses []string) bool {
	key := normName(name)
	for _, j := range ev.Anchors {
		if normName(j.Name) == key && slices.Contains(statuses, normToken(j.Status)) {
			return true
		}
	}
	return false
}

// FollowUpState is what the follow-up decision looks at.
type FollowUpState struct {
	// Completed is true when the interview has no further question.
	Completed bool
	// FollowUpsAsked counts the follow-ups already asked for this main question.
	FollowUpsAsked int
	// MaxFollowUp is the follow-ups allowed per main question; 0 means
	// DefaultMaxFollowUp, a negative value means none.
	MaxFollowUp int
	// IsFollowUp is true when the answered question is itself a follow-up.
	IsFollowUp bool
	Spec       QuestionSpec
	Eval       Evaluation
	// Score is the turn's final score.
	Score int
}

// DecideFollowUp decides whether to ask a follow-up, by these rules in order:
//  1. interview completed → no, "completed";
//  2. follow-ups for this question ≥ max → no, "max-reached";
//  3. the question is itself a follow-up → no, "is-follow-up";
//  4. targets = the spec's core anchors that the evaluation's anchor
//     judgments (matched by anchor name, case- and space-insensitively)
//     mark partial or contradicted; with no targets and a score ≥ 85 → no,
//     "strong-answer";
//  5. targets → yes, "weak-core-anchors";
//  6. otherwise → no, "no-weak-core-anchor".
//
// Core anchors judged missing are not targets, as interview.md says: a
// follow-up gives the candidate a chance to fix or deepen what they began,
// while absent points are reported in the feedback's missing points. The
// original matched anchor names against the five dimension ids, so
// follow-ups almost never fired; dimension ids play no part here.
func DecideFollowUp(in FollowUpState) FollowUpDecision {
	limit := in.MaxFollowUp
	if limit == 0 {
		limit = DefaultMaxFollowUp
	}
	switch {
	case in.Completed:
		return FollowUpDecision{Reason: "completed"}
	case in.FollowUpsAsked >= limit:
		return FollowUpDecision{Reason: "max-reached"}
	case in.IsFollowUp:
		return FollowUpDecision{Reason: "is-follow-up"}
	}
	var targets []string
	for _, a := range in.Spec.Anchors {
		name := strings.TrimSpace(a.Name)
		if !a.Core || name == "" || slices.Contains(targets, name) {
			continue
		}
		if anchorJudgedOneOf(in.Eval, name, []string{StatusPartial, StatusContradicted}) {
			targets = append(targets, name)
		}
	}
	switch {
	case len(targets) == 0 && in.Score >= ExcellentScore:
		return FollowUpDecision{Reason: "strong-answer"}
	case len(targets) > 0:
		return FollowUpDecision{Ask: true, Reason: "weak-core-anchors", Targets: targets}
	default:
		return FollowUpDecision{Reason: "no-weak-core-anchor"}
	}
}

// ValidateSpec trims a question spec and checks its rubric: content
// present; anchors present with non-empty names unique case- and
// space-insensitively; weights positive and summing to 100; at least one
// core anchor. An invalid spec is degraded to a single core anchor "legacy"
// of weight 100 whose acceptable statements are the old anchors' statements,
// and Degraded records the first problem (e.g. "weight-sum:90"). It never
// fails. RubricVersion defaults to 1. ValidateSpec is idempotent: a valid
// spec keeps an earlier Degraded reason.
func ValidateSpec(spec QuestionSpec) QuestionSpec {
	out := QuestionSpec{
		Content:          strings.TrimSpace(spec.Content),
		CommonMistakes:   trimList(spec.CommonMistakes),
		FollowUpStrategy: strings.TrimSpace(spec.FollowUpStrategy),
		RubricVersion:    spec.RubricVersion,
		Degraded:         strings.TrimSpace(spec.Degraded),
	}
	if out.RubricVersion <= 0 {
		out.RubricVersion = 1
	}
	for _, a := range spec.Anchors {
		out.Anchors = append(out.Anchors, Anchor{
			Name:                 strings.TrimSpace(a.Name),
			Weight:               a.Weight,
			Core:                 a.Core,
			AcceptableStatements: trimList(a.AcceptableStatements),
		})
	}
	if why := rubricProblem(out); why != "" {
		var statements []string
		for _, a := range out.Anchors {
			for _, s := range a.AcceptableStatements {
				if !slices.Contains(statements, s) {
					statements = append(statements, s)
				}
			}
		}
		out.Anchors = []Anchor{{Name: LegacyAnchor, Weight: 100, Core: true, AcceptableStatements: statements}}
		out.Degraded = why
	}
	return out
}

// rubricProblem returns the first problem of a trimmed spec, or "".
func rubricProblem(spec QuestionSpec) string {
	if spec.Content == "" {
		return "missing-content"
	}
	if len(spec.Anchors) == 0 {
		return "no-anchors"
	}
	seen := map[string]bool{}
	sum, core := 0, false
	for i, a := range spec.Anchors {
		if a.Name == "" {
			return fmt.Sprintf("empty-anchor-name:%d", i)
		}
		k := normName(a.Name)
		if seen[k] {
			return "duplicate-anchor-name:" + a.Name
		}
		seen[k] = true
		if a.Weight <= 0 {
			return fmt.Sprintf("non-positive-weight:%s=%d", a.Name, a.Weight)
		}
		sum += a.Weight
		core = core || a.Core
	}
	if sum != 100 {
		return fmt.Sprintf("weight-sum:%d", sum)
	}
	if !core {
		return "no-core-anchor"
	}
	return ""
}

// trimList trims the items and drops the empty ones; nil stays nil.
func trimList(items []string) []string {
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// followUpPrefixes are labels a model puts before the question, compared
// case-insensitively.
var followUpPrefixes = []string{
	"follow-up question:", "follow up question:", "followup question:",
	"follow-up:", "follow up:", "followup:", "question:", "q:",
	"追问问题：", "追问问题:", "追问：", "追问:", "问题：", "问题:",
}

// followUpQuotes are pairs of quotes a model wraps the question in.
var followUpQuotes = [][2]string{{`"`, `"`}, {"'", "'"}, {"`", "`"}, {"“", "”"}, {"‘", "’"}, {"「", "」"}, {"『", "』"}}

// CleanFollowUp normalises a model-written follow-up question: white space
// folded, surrounding quotes and "Follow-up:"/"追问：" style labels removed.
// A question that ends without any punctuation gets "?" ("？" when it
// contains Han characters); one that ends with other punctuation ("." or
// "。") is rejected, as is an empty one or one longer than 100 characters
// after cleaning. ok is false when the text is unusable.
func CleanFollowUp(text string) (string, bool) {
	s := strings.Join(strings.Fields(text), " ")
	for range 4 { // labels and quotes may nest: "Follow-up: \"…\""
		before := s
		for _, q := range followUpQuotes {
			if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
				s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
			}
		}
		for _, p := range followUpPrefixes {
			if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
				s = strings.TrimSpace(s[len(p):])
			}
		}
		if s == before {
			break
		}
	}
	if s == "" {
		return "", false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	switch {
	case last == '?' || last == '？':
	case unicode.IsLetter(last) || unicode.IsDigit(last):
		if strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
			s += "？"
		} else {
			s += "?"
		}
	default:
		return "", false
	}
	if utf8.RuneCountInString(s) > MaxFollowUpRunes {
		return "", false
	}
	return s, true
}

// ResolveTarget picks the interview's target role: confirmed when not
// blank, else the most confident role hypothesis with a target (ties: the
// first), else the resume type, else DefaultTarget.
func ResolveTarget(confirmed string, p Profile) string {
	if t := strings.TrimSpace(confirmed); t != "" {
		return t
	}
	best, bestConf := "", math.Inf(-1)
	for _, h := range p.RoleHypotheses {
		if t := strings.TrimSpace(h.Target); t != "" && h.Confidence > bestConf {
			best, bestConf = t, h.Confidence
		}
	}
	if best != "" {
		return best
	}
	if t := strings.TrimSpace(p.ResumeType); t != "" {
		return t
	}
	return DefaultTarget
}

// NormalizeDemeanor brings a demeanor assessment to the 0..100 scale: when
// all four values are ≤ 10 the model used a 0-10 scale and each is
// multiplied by 10; then each is clamped to 0..100.
func NormalizeDemeanor(d Demeanor) Demeanor {
	vals := []*int{&d.PanicLevel, &d.SeriousnessLevel, &d.EmoticonHandling, &d.CompositeScore}
	tenScale := true
	for _, v := range vals {
		tenScale = tenScale && *v <= 10
	}
	for _, v := range vals {
		if tenScale {
			*v *= 10
		}
		*v = clampPercent(*v)
	}
	return d
}

// SessionScore is the rounded (half up) mean of the main questions' final
// scores, or nil when no main question was scored. Follow-ups are not
// passed in: they are shown but not averaged.
func SessionScore(mainScores []int) *int {
	if len(mainScores) == 0 {
		return nil
	}
	sum := 0
	for _, s := range mainScores {
		sum += s
	}
	mean := int(math.Round(float64(sum) / float64(len(mainScores))))
	return &mean
}

// Radar is the report's five scores; a nil score was not assessed.
type Radar struct {
	ResumeScore          *int `json:"resumeScore"`
	InterviewPerformance *int `json:"interviewPerformance"`
	DemeanorEvaluation   *int `json:"demeanorEvaluation"`
	ProfessionalSkills   *int `json:"professionalSkills"`
	PotentialIndex       *int `json:"potentialIndex"`
}

// ComputeRadar builds the radar from the resume score, the session score
// and the demeanor composite (each nil when absent): professionalSkills =
// resume 0.30 + interview 0.70; potentialIndex = resume 0.25 + interview
// 0.55 + demeanor 0.20. The weights are renormalised over the inputs that
// exist, so a missing input is absent rather than 0; with no input the
// derived score is nil. Derived scores are rounded half up.
func ComputeRadar(resume, interview, demeanor *int) Radar {
	return Radar{
		ResumeScore:          copyInt(resume),
		InterviewPerformance: copyInt(interview),
		DemeanorEvaluation:   copyInt(demeanor),
		ProfessionalSkills:   weightedMean([]*int{resume, interview}, []int{30, 70}),
		PotentialIndex:       weightedMean([]*int{resume, interview, demeanor}, []int{25, 55, 20}),
	}
}

// copyInt returns a pointer to a copy of *p, or nil.
func copyInt(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// weightedMean is the rounded mean of the non-nil values with their
// weights, or nil when every value is nil.
func weightedMean(values []*int, weights []int) *int {
	sum, total := 0, 0
	for i, v := range values {
		if v != nil {
			sum += *v * weights[i]
			total += weights[i]
		}
	}
	if total == 0 {
		return nil
	}
	// The exact quotient of two integers is rounded correctly by float
	// division, so halves are exact here.
	mean := int(math.Round(float64(sum) / float64(total)))
	return &mean
}

// TurnSummary is one answered question as the report sees it.
type TurnSummary struct {
	QuestionNumber string
	Question       string
	Feedback       string
	Score          int
	IsFollowUp     bool
}

// ReviewFeedback is the report's written review.
type ReviewFeedback struct {
	OverallComment  string   `json:"overallComment"`
	Highlights      []string `json:"highlights"`
	ImprovementTips []string `json:"improvementTips"`
	NextActions     []string `json:"nextActions"`
}

// Review feedback limits and thresholds.
const (
	maxReviewItems  = 3
	highlightScore  = 80
	improveBelow    = 70
	strongPotential = 85
	solidPotential  = 70
)

// BuildReviewFeedback writes the report's review deterministically:
//   - the overall comment grades the potential index (≥85 strong, ≥70
//     solid, ≥60 meets the bar, else below expectations) and names the
//     strongest and weakest radar dimension present (ties: radar order);
//   - highlights are the feedback of turns scored ≥ 80, best first (ties:
//     turn order), at most 3;
//   - improvement tips are the feedback of turns scored < 70, weakest first,
//     at most 3 (a turn without feedback suggests revisiting its question);
//   - next actions are the resume suggestions, then the improvement tips,
//     without duplicates, at most 3.
//
// Each highlight and tip is prefixed with its question number ("Q3: …").
// The lists are never nil.
func BuildReviewFeedback(r Radar, turns []TurnSummary, resumeSuggestions []string) ReviewFeedback {
	out := ReviewFeedback{
		OverallComment:  overallComment(r),
		Highlights:      []string{},
		ImprovementTips: []string{},
		NextActions:     []string{},
	}
	best := slices.Clone(turns)
	slices.SortStableFunc(best, func(a, b TurnSummary) int { return cmp.Compare(b.Score, a.Score) })
	for _, t := range best {
		if t.Score < highlightScore || len(out.Highlights) == maxReviewItems {
			break
		}
		if fb := strings.TrimSpace(t.Feedback); fb != "" {
			out.Highlights = appendUnique(out.Highlights, turnLabel(t)+fb)
		}
	}
	weakest := slices.Clone(turns)
	slices.SortStableFunc(weakest, func(a, b TurnSummary) int { return cmp.Compare(a.Score, b.Score) })
	for _, t := range weakest {
		if t.Score >= improveBelow || len(out.ImprovementTips) == maxReviewItems {
			break
		}
		tip := strings.TrimSpace(t.Feedback)
		if tip == "" {
			tip = "revisit the question \"" + strings.TrimSpace(t.Question) + "\""
		}
		out.ImprovementTips = appendUnique(out.ImprovementTips, turnLabel(t)+tip)
	}
	for _, s := range append(trimList(resumeSuggestions), out.ImprovementTips...) {
		if len(out.NextActions) == maxReviewItems {
			break
		}
		out.NextActions = appendUnique(out.NextActions, s)
	}
	return out
}

// turnLabel is the "Q3: " prefix of a turn's item.
func turnLabel(t TurnSummary) string {
	if t.QuestionNumber == "" {
		return ""
	}
	return "Q" + t.QuestionNumber + ": "
}

// appendUnique appends s unless an item equal up to case and white space is
// already there.
func appendUnique(items []string, s string) []string {
	for _, it := range items {
		if normName(it) == normName(s) {
			return items
		}
	}
	return append(items, s)
}

// radarDimension is one present radar score with its display name.
type radarDimension struct {
	name  string
	score int
}

// overallComment grades the potential index and names the strongest and
// weakest radar dimension.
func overallComment(r Radar) string {
	var dims []radarDimension
	for _, d := range []struct {
		name string
		v    *int
	}{
		{"resume", r.ResumeScore},
		{"interview performance", r.InterviewPerformance},
		{"demeanor", r.DemeanorEvaluation},
		{"professional skills", r.ProfessionalSkills},
		{"potential", r.PotentialIndex},
	} {
		if d.v != nil {
			dims = append(dims, radarDimension{d.name, *d.v})
		}
	}
	if r.PotentialIndex == nil || len(dims) == 0 {
		return "Not enough was assessed in this interview to give an overall comment."
	}
	p := *r.PotentialIndex
	var grade string
	switch {
	case p >= strongPotential:
		grade = "Strong performance"
	case p >= solidPotential:
		grade = "Solid performance"
	case p >= QualifiedScore:
		grade = "Meets the bar"
	default:
		grade = "Below expectations"
	}
	strongest, weakest := dims[0], dims[0]
	for _, d := range dims[1:] {
		if d.score > strongest.score {
			strongest = d
		}
		if d.score < weakest.score {
			weakest = d
		}
	}
	comment := fmt.Sprintf("%s (potential index %d).", grade, p)
	if strongest == weakest {
		return comment
	}
	return comment + fmt.Sprintf(" Strongest: %s (%d); weakest: %s (%d).", strongest.name, strongest.score, weakest.name, weakest.score)
}
