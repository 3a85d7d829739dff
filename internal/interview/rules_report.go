package interview

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the report rules (interview.md "Demeanor", "Radar and
// report"): demeanor scaling, the radar and the written review.

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
// exist, so a missing input is absent rather than 0. Both derived scores
// need the interview score: without an answered question they are nil (a
// resume alone says nothing of a candidate's skills in the interview, issue
// 19). Derived scores are rounded half up.
func ComputeRadar(resume, interview, demeanor *int) Radar {
	r := Radar{
		ResumeScore:          copyInt(resume),
		InterviewPerformance: copyInt(interview),
		DemeanorEvaluation:   copyInt(demeanor),
	}
	if interview != nil {
		r.ProfessionalSkills = weightedMean([]*int{resume, interview}, []int{30, 70})
		r.PotentialIndex = weightedMean([]*int{resume, interview, demeanor}, []int{25, 55, 20})
	}
	return r
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
	// cannedFrom is the radar score from which a dimension earns a canned
	// highlight (below it, a canned tip).
	cannedFrom = 75
	// minSentenceRunes is the shortest sentence of feedback kept as a
	// highlight or tip.
	minSentenceRunes = 6
	// sentencesPerItem is how many sentences of a turn's feedback its
	// highlight or tip quotes.
	sentencesPerItem = 2
)

// BuildReviewFeedback writes the report's review deterministically:
//   - the overall comment grades the potential index (≥85 strong, ≥70
//     solid, ≥60 meets the bar, else below expectations) and names the
//     strongest and weakest radar dimension present (ties: radar order);
//   - highlights are the feedback of turns scored ≥ 80, one item per turn
//     (its first 2 sentences), best turn first (ties: turn order), at
//     most 3; when there are none, a canned sentence for each of resume,
//     interview, demeanor and skills scored ≥ 75 on the radar, at most 3;
//   - improvement tips are the feedback of turns scored < 70, one item
//     per turn (its first 2 sentences), weakest first, at most 3 (a turn
//     without feedback suggests revisiting its question); when there are
//     none, a canned tip for each of those dimensions scored < 75;
//   - next actions are the resume suggestions, then a practice action for
//     each improvement tip's question (never the tip again), without
//     duplicates, at most 3.
//
// Feedback is split into sentences at . ; ! ? (and their Chinese forms)
// and line breaks; sentences shorter than 6 characters are dropped. Each
// turn's item is prefixed with its question number ("Q3: …").
// The lists are never nil.
func BuildReviewFeedback(r Radar, turns []TurnSummary, resumeSuggestions []string) ReviewFeedback {
	return BuildReviewFeedbackIn(LangEN, r, turns, resumeSuggestions)
}

// BuildReviewFeedbackIn is BuildReviewFeedback with the prose it writes
// (overall comment, question labels, canned sentences, "revisit" tips) in
// lang.
func BuildReviewFeedbackIn(lang string, r Radar, turns []TurnSummary, resumeSuggestions []string) ReviewFeedback {
	tx := textsIn(lang)
	out := ReviewFeedback{
		OverallComment:  overallComment(tx, r),
		Highlights:      []string{},
		ImprovementTips: []string{},
		NextActions:     []string{},
	}
	best := slices.Clone(turns)
	slices.SortStableFunc(best, func(a, b TurnSummary) int { return cmp.Compare(b.Score, a.Score) })
	for _, t := range best {
		if t.Score < highlightScore {
			break
		}
		if sents := splitSentences(tx, t.Feedback); len(sents) > 0 {
			out.Highlights = appendItem(out.Highlights, turnItem(tx, t, sents))
		}
	}
	weakest := slices.Clone(turns)
	slices.SortStableFunc(weakest, func(a, b TurnSummary) int { return cmp.Compare(a.Score, b.Score) })
	var practise []string
	for _, t := range weakest {
		if t.Score >= improveBelow {
			break
		}
		sents := splitSentences(tx, t.Feedback)
		if len(sents) == 0 {
			sents = []string{fmt.Sprintf(tx.revisit, strings.TrimSpace(t.Question))}
		}
		out.ImprovementTips = appendItem(out.ImprovementTips, turnItem(tx, t, sents))
		practise = append(practise, fmt.Sprintf(tx.practise, t.QuestionNumber))
	}
	if len(out.Highlights) == 0 {
		out.Highlights = cannedItems(tx.cannedHighlight, r, func(score int) bool { return score >= cannedFrom })
	}
	if len(out.ImprovementTips) == 0 {
		out.ImprovementTips = cannedItems(tx.cannedTip, r, func(score int) bool { return score < cannedFrom })
	}
	for _, s := range append(trimList(resumeSuggestions), practise...) {
		out.NextActions = appendItem(out.NextActions, s)
	}
	return out
}

// appendItem appends s to a review list that is not full yet, unless it is
// already there (appendUnique).
func appendItem(items []string, s string) []string {
	if len(items) == maxReviewItems {
		return items
	}
	return appendUnique(items, s)
}

// cannedItems are the canned sentences of the radar's resume, interview,
// demeanor and skills scores (in that order) that pick selects, at most 3;
// an absent score selects nothing.
func cannedItems(canned map[string]string, r Radar, pick func(score int) bool) []string {
	out := []string{}
	for _, d := range []struct {
		key string
		v   *int
	}{{"resume", r.ResumeScore}, {"interview", r.InterviewPerformance}, {"demeanor", r.DemeanorEvaluation}, {"skills", r.ProfessionalSkills}} {
		if d.v != nil && pick(*d.v) {
			out = appendItem(out, canned[d.key])
		}
	}
	return out
}

// splitSentences splits feedback into sentences at . ; ! ? (a period only
// before white space or the end, so "Node.js" and "3.5" stay whole), their
// Chinese forms and line breaks; each ends with tx's full stop, and those
// shorter than minSentenceRunes are dropped.
func splitSentences(tx reportText, feedback string) []string {
	var out []string
	rs := []rune(feedback)
	start := 0
	flush := func(end int) {
		body := sentenceBody(string(rs[start:end]))
		start = end + 1
		if utf8.RuneCountInString(body) >= minSentenceRunes {
			out = append(out, body+tx.stop)
		}
	}
	for i, c := range rs {
		switch c {
		case ';', '!', '?', '\n', '。', '；', '！', '？':
			flush(i)
		case '.':
			if i+1 == len(rs) || unicode.IsSpace(rs[i+1]) {
				flush(i)
			}
		}
	}
	if start < len(rs) {
		flush(len(rs))
	}
	return out
}

// turnItem is a turn's item of a review list: its label and the first
// sentencesPerItem sentences of its feedback, so that each item is one
// question and the list covers several (one weak answer's sentences used
// to fill the list three times over, "第 3 题：…" thrice).
func turnItem(tx reportText, t TurnSummary, sents []string) string {
	return turnLabel(tx, t) + strings.Join(sents[:min(len(sents), sentencesPerItem)], tx.sep)
}

// turnLabel is the "Q3: " ("第 3 题：") prefix of a turn's item.
func turnLabel(tx reportText, t TurnSummary) string {
	if t.QuestionNumber == "" {
		return ""
	}
	return fmt.Sprintf(tx.turn, t.QuestionNumber)
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
func overallComment(tx reportText, r Radar) string {
	var dims []radarDimension
	for _, d := range []struct {
		name string
		v    *int
	}{
		{tx.resume, r.ResumeScore},
		{tx.interview, r.InterviewPerformance},
		{tx.demeanor, r.DemeanorEvaluation},
		{tx.skills, r.ProfessionalSkills},
		{tx.potential, r.PotentialIndex},
	} {
		if d.v != nil {
			dims = append(dims, radarDimension{d.name, *d.v})
		}
	}
	if r.PotentialIndex == nil || len(dims) == 0 {
		return tx.notEnough
	}
	p := *r.PotentialIndex
	var grade string
	switch {
	case p >= strongPotential:
		grade = tx.strong
	case p >= solidPotential:
		grade = tx.solid
	case p >= QualifiedScore:
		grade = tx.meets
	default:
		grade = tx.below
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
	comment := fmt.Sprintf(tx.comment, grade, p)
	if strongest == weakest {
		return comment
	}
	return comment + fmt.Sprintf(tx.extremes, strongest.name, strongest.score, weakest.name, weakest.score)
}
