package interview

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the scoring rules (interview.md "Answer", "Second
// review", "Feedback guard"): the model extracts evidence, these pure
// functions decide the score, the review and the feedback shown, so the same
// evidence always gives the same result. Nothing in the rules_*.go files
// does I/O.

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
	return GuardFeedbackIn(LangEN, feedback, ev, spec)
}

// GuardFeedbackIn is GuardFeedback with the rebuilt feedback's own words
// (dimension names, "Consider also") in lang.
func GuardFeedbackIn(lang, feedback string, ev Evaluation, spec QuestionSpec) string {
	tx := textsIn(lang)
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
				parts = append(parts, dimensionSentence(tx, id, e))
			}
			break
		}
	}
	consider := cleanList(ev.MissingPoints)
	if len(consider) == 0 {
		consider = weakAnchorNames(spec, ev, StatusPartial, StatusMissing, StatusContradicted)
	}
	if len(consider) > 0 {
		parts = append(parts, fmt.Sprintf(tx.feedbackConsider, strings.Join(consider, listSep(tx))))
	}
	if len(parts) == 0 {
		return tx.feedbackEmpty
	}
	return strings.Join(parts, tx.sep)
}

// dimensionSentence is one "<Dimension>: <evidence>." sentence.
func dimensionSentence(tx reportText, id, evidence string) string {
	if name, ok := tx.dimension[id]; ok {
		return name + "：" + evidence + "。"
	}
	return dimensionLabel(id) + ": " + evidence + "."
}

// listSep separates the items of a list in tx's language.
func listSep(tx reportText) string {
	if tx.dimension != nil { // Chinese
		return "；"
	}
	return "; "
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

// MinEvidenced is the fewest of the five dimensions that must quote usable
// evidence for an answer's score to be shown.
const MinEvidenced = 3

// EvidenceInsufficient returns why a score cannot be shown, or "" when it
// can: the score is hidden ("insufficient-evidence:<n>/5") when fewer than
// MinEvidenced of the five dimensions carry usable evidence (not empty, not
// a placeholder such as "n/a", no protocol words) in the evaluation or in
// its review (nil when none ran). A number the evaluator cannot back with
// what the answer said is not shown to the candidate, as in the original.
func EvidenceInsufficient(first Evaluation, review *Evaluation) string {
	evidenced := map[string]bool{}
	for _, ev := range []*Evaluation{&first, review} {
		if ev == nil {
			continue
		}
		for _, d := range ev.Dimensions {
			id := normToken(d.ID)
			if _, known := DimensionWeights[id]; !known {
				continue
			}
			if e := sentenceBody(d.Evidence); !saysNothing(e) && !leaksProtocol(e) {
				evidenced[id] = true
			}
		}
	}
	if len(evidenced) >= MinEvidenced {
		return ""
	}
	return fmt.Sprintf("insufficient-evidence:%d/%d", len(evidenced), len(Dimensions))
}
