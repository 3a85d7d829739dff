package interview

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the follow-up rules (interview.md "Follow-up"): whether
// to ask one, about what, and how a model-written question is cleaned.

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
