package interview

import "fmt"

// This file holds the rules that list what was good in an answer and what
// to improve (issue 19's feedback card), from the judgments that decided
// its score: the same evaluation always gives the same lists.

// MaxAnswerPoints is the longest list of strengths or improvements.
const MaxAnswerPoints = 5

// AnswerPointsIn returns what was good in an answer (strengths) and what
// to improve (improvements), in lang, from the evaluation whose statuses
// decided scored (the review's when the verdict came from it, see
// decisiveEvaluation):
//   - each rubric key point of spec (in spec order; none of a degraded
//     spec) judged met is a strength; partial, missing or contradicted an
//     improvement;
//   - each point the evaluator found missing and the rubric does not
//     already name is an improvement;
//   - each dimension (in weight order) judged met is a strength; partial,
//     missing or contradicted an improvement;
//   - a "needs improvement" score that nothing above explains gets one
//     general improvement, so a low score never comes with an empty list;
//   - at the top level (excellent) nothing needs fixing: an optional key
//     point judged partial or missing, and a point the evaluator found
//     missing, are worded as ways to go further, not as faults (the web
//     titles the list "To go further" at that level).
//
// Both lists are empty (never nil) when the score is hidden: judgments the
// evidence cannot support are not shown either. Each list holds at most
// MaxAnswerPoints items; names that leak protocol words are left out.
func AnswerPointsIn(lang string, spec QuestionSpec, first Evaluation, review *Evaluation, scored Scored) (strengths, improvements []string) {
	strengths, improvements = []string{}, []string{}
	if scored.Hidden != "" {
		return strengths, improvements
	}
	tx := pointTextIn(lang)
	top := scored.Level == LevelExcellent
	ev := decisiveEvaluation(first, review, scored)
	named := map[string]bool{} // key points already listed, by normName
	for _, a := range spec.Anchors {
		name := sentenceBody(a.Name)
		if name == "" || (spec.Degraded != "" && a.Name == LegacyAnchor) || leaksProtocol(name) || named[normName(name)] {
			continue
		}
		var format string
		switch st := anchorStatus(ev, a.Name); st {
		case StatusMet:
			strengths = append(strengths, fmt.Sprintf(tx.covered, name))
		case StatusPartial, StatusMissing:
			switch {
			case top && !a.Core:
				format = tx.further
			case st == StatusPartial:
				format = tx.partial
			default:
				format = tx.missing
			}
		case StatusContradicted:
			format = tx.wrong
		default: // not judged: nothing to say
			continue
		}
		named[normName(name)] = true
		if format != "" {
			improvements = append(improvements, fmt.Sprintf(format, name))
		}
	}
	alsoCover := tx.alsoCover
	if top {
		alsoCover = tx.further
	}
	for _, p := range cleanList(ev.MissingPoints) {
		if !named[normName(p)] {
			named[normName(p)] = true
			improvements = append(improvements, fmt.Sprintf(alsoCover, p))
		}
	}
	for _, id := range Dimensions {
		switch st := dimensionStatus(ev, id); st {
		case StatusMet:
			strengths = append(strengths, tx.dimGood[id])
		case StatusPartial, StatusMissing, StatusContradicted:
			if id == DimCorrectness && st == StatusContradicted {
				improvements = append(improvements, tx.wrongFacts)
			} else {
				improvements = append(improvements, tx.dimWeak[id])
			}
		}
	}
	if len(improvements) == 0 && scored.Level == LevelNeedsWork {
		improvements = append(improvements, tx.generic)
	}
	return capList(strengths), capList(improvements)
}

// decisiveEvaluation is the evaluation whose statuses gave scored: the
// review's when the merged verdict was taken from it (MergeReview's
// "second-run", or the lower score of a correctness dispute), else the
// first.
func decisiveEvaluation(first Evaluation, review *Evaluation, scored Scored) Evaluation {
	if review == nil {
		return first
	}
	switch scored.Reason {
	case "review:second-run":
		return *review
	case "review:correctness-disputed":
		if Score(*review).Score < Score(first).Score {
			return *review
		}
	}
	return first
}

// anchorStatus is the first status ev gives the anchor name (compared as
// normName), normalised; "" when ev does not judge it or the status is
// unknown.
func anchorStatus(ev Evaluation, name string) string {
	key := normName(name)
	for _, j := range ev.Anchors {
		if normName(j.Name) == key {
			return knownStatus(j.Status)
		}
	}
	return ""
}

// dimensionStatus is the first status ev gives dimension id, normalised;
// "" when ev does not judge it or the status is unknown.
func dimensionStatus(ev Evaluation, id string) string {
	for _, d := range ev.Dimensions {
		if normToken(d.ID) == id {
			return knownStatus(d.Status)
		}
	}
	return ""
}

// knownStatus is status normalised, or "" when it is not one of the four.
func knownStatus(status string) string {
	s := normToken(status)
	if _, ok := statusHalves[s]; ok {
		return s
	}
	return ""
}

// capList keeps the first MaxAnswerPoints items.
func capList(items []string) []string {
	if len(items) > MaxAnswerPoints {
		return items[:MaxAnswerPoints:MaxAnswerPoints]
	}
	return items
}

// answerPoints is AnswerPointsIn for turn t (the answer to q): the lists
// the report shows for it; both empty for a turn not yet scored.
func answerPoints(lang string, q Question, t Turn) (strengths, improvements []string) {
	if t.Scored == nil || t.Evaluation == nil {
		return []string{}, []string{}
	}
	return AnswerPointsIn(lang, q.Spec, *t.Evaluation, t.Review, *t.Scored)
}
