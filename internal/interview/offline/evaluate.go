package offline

import (
	"fmt"
	"math"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// Thresholds of the offline evaluator. A statement's share is the part of
// its significant tokens (see tokens) that the answer contains.
const (
	matchShare   = 0.5 // a statement is matched
	strongShare  = 0.6 // a statement is matched strongly: the anchor is met
	overlapShare = 0.3 // some overlap: the anchor is partial
	mistakeShare = 0.7 // one answer sentence asserts a common mistake

	// nearEmptyWords: answers shorter than this are judged "missing" on
	// everything, with full confidence.
	nearEmptyWords = 3

	// The offline model reports 0.9 for judgments it computed from the
	// text, and 1.0 where the signal is trivial (an empty answer). Both are
	// above the 0.7 that would trigger a second review.
	judgedConfidence  = 0.9
	trivialConfidence = 1.0

	// contradictionCap caps the model's own score when the answer asserts a
	// common mistake, like the rule engine does for a contradicted correctness.
	contradictionCap = 40
)

// judged is the evaluator's verdict on one anchor.
type judged struct {
	status   string
	evidence string
	weight   float64 // normalised: the weights of all anchors sum to 1
}

// factor is what a status contributes to coverage.
func factor(status string) float64 {
	switch status {
	case interview.StatusMet:
		return 1
	case interview.StatusPartial:
		return 0.5
	}
	return 0
}

// evaluate is the offline interview-evaluation (and interview-review: the
// same input gives the same judgment, so the rule engine sees agreement).
//
// Anchors: a statement matches when ≥50% of its tokens are in the answer.
// An anchor is met when one statement reaches ≥60% or at least half of its
// statements match; partial when its best statement reaches ≥30%; missing
// otherwise. A common mistake is asserted when one answer sentence holds
// ≥70% of its tokens with the same polarity (negated or not); the anchor
// whose vocabulary shares most tokens with the mistake becomes contradicted.
//
// Dimensions:
//   - correctness: contradicted if a mistake is asserted; else met when all
//     core anchors (all anchors if none is core) are met, partial when some
//     are met or partial, missing otherwise.
//   - completeness: coverage = Σ normalised weight × (met 1, partial 0.5);
//     met at ≥0.75, partial above 0, missing at 0.
//   - logic: met with ≥25 words and (a connective or ≥3 sentences); partial
//     with ≥8 words; missing otherwise.
//   - depth: met when met anchors hold ≥50% of the weight and the answer has
//     ≥40 words or uses ≥8 rubric terms; partial with ≥2 rubric terms or any
//     met anchor; missing otherwise.
//   - clarity: met when sentences average 4..35 words, partial otherwise.
//
// Score: round(coverage × 100), capped at 40 when a mistake is asserted.
func evaluate(in interview.EvaluationInput) interview.Evaluation { return evaluateIn(in, "") }

// evaluateIn is evaluate writing in lang ("" for the answer's language).
func evaluateIn(in interview.EvaluationInput, lang string) interview.Evaluation {
	q := in.Question
	answer := strings.TrimSpace(in.Answer)
	zh := chineseOutput(lang, answer, q.Content)
	anchors := q.Anchors
	if len(anchors) == 0 {
		// Judge against the question itself; the output lists no anchors,
		// since the spec has none.
		anchors = []interview.Anchor{{Name: legacyAnchor, Weight: 100, Core: true}}
	}
	words := wordCount(answer)
	ans := answerTokens(answer)
	if words < nearEmptyWords || len(ans) == 0 {
		// A word or two says nothing of the candidate's language: answer in
		// the question's.
		return emptyEvaluation(q, answer, zh || isChinese(q.Content))
	}
	sents := sentences(answer)
	weights := normalisedWeights(anchors)
	qwords := answerTokens(questionText(q)) // with the glossary: a Chinese question's words too

	view := viewOf(q, anchors)
	res := make([]judged, len(anchors))
	for i, a := range anchors {
		res[i] = judgeAnchor(a, view.stmts[i], q.Content, qwords, ans, sents, zh)
		res[i].weight = weights[i]
	}

	// Rubric words out of context meet no anchor fully (context.go).
	why := outOfContext(q, view, sents)
	if why != outOfContextNone {
		for i := range res {
			if res[i].status == interview.StatusMet {
				res[i].status = interview.StatusPartial
			}
		}
	}

	// Common mistakes asserted by a sentence of the answer.
	var wrong []string // the sentences that assert a mistake
	for _, ws := range view.mistakes {
		if s, mt, ok := assertsMistake(ws, sents); ok {
			k := closestAnchor(anchors, view, mt)
			res[k].status = interview.StatusContradicted
			res[k].evidence = quoteText(s)
			wrong = append(wrong, s)
		}
	}

	coverage, metShare := 0.0, 0.0
	for _, r := range res {
		coverage += r.weight * factor(r.status)
		if r.status == interview.StatusMet {
			metShare += r.weight
		}
	}
	score := int(math.Round(coverage * 100))
	if len(wrong) > 0 {
		score = min(score, contradictionCap)
	}

	ev := interview.Evaluation{
		Dimensions: []interview.DimensionJudgment{
			correctness(anchors, res, wrong, zh),
			completeness(coverage, zh),
			logic(answer, words, len(sents), zh),
			depth(view, ans, words, metShare, zh),
			clarity(words, len(sents), zh),
		},
		Anchors:       []interview.AnchorJudgment{},
		Score:         max(0, min(100, score)),
		MissingPoints: []string{},
	}
	if len(q.Anchors) > 0 {
		for i, a := range anchors {
			ev.Anchors = append(ev.Anchors, interview.AnchorJudgment{Name: a.Name, Status: res[i].status, Evidence: res[i].evidence})
		}
	}
	var met, notMet []string
	for i, a := range anchors {
		name := displayName(a, zh)
		if a.Name != legacyAnchor || len(a.AcceptableStatements) > 0 {
			name = view.name(i, zh)
		}
		if res[i].status == interview.StatusMet {
			met = append(met, name)
			continue
		}
		notMet = append(notMet, name)
		if len(a.AcceptableStatements) > 0 || a.Name != legacyAnchor {
			ev.MissingPoints = append(ev.MissingPoints, view.point(i, zh))
		}
	}
	ev.Feedback = feedback(met, notMet, ev.MissingPoints, wrong, res, zh)
	if note := contextNote(why, zh); note != "" {
		ev.Feedback = note + pick(zh, " ", "") + ev.Feedback
		capContext(ev.Dimensions, why, zh)
	}
	return ev
}

// judgeAnchor judges one anchor against the answer's token set. Words the
// question itself uses do not count alone: an anchor is met or partial only
// when the answer also holds one of its statement words that the question
// does not (repeating "cache" and "database" does not explain consistency).
//
// A statement may have several wordings (English, Chinese, Chinese
// synonyms); its share is that of its best-matched wording.
func judgeAnchor(a interview.Anchor, wordings [][][]string, content string, qwords, ans map[string]bool, sents []string, zh bool) judged {
	stmts, pseudo := wordings, false
	if len(stmts) == 0 {
		var st [][]string
		st, pseudo = statementTokens(a, content)
		stmts = nil
		for _, t := range st {
			stmts = append(stmts, [][]string{t})
		}
	}
	matched, strong := 0, false
	best := 0.0
	var bestToks []string
	beyondQuestion := pseudo
	for _, ws := range stmts {
		share := 0.0
		for _, st := range ws {
			for _, t := range st {
				beyondQuestion = beyondQuestion || (ans[t] && !qwords[t])
			}
			_, sh := overlap(st, ans)
			if sh > share {
				share = sh
			}
			if sh > best {
				best, bestToks = sh, st
			}
		}
		if share >= matchShare {
			matched++
		}
		if share >= strongShare {
			strong = true
		}
	}
	var j judged
	switch {
	case !beyondQuestion:
		j.status = interview.StatusMissing
	case strong || (matched > 0 && 2*matched >= len(stmts)):
		j.status = interview.StatusMet
	case best >= overlapShare:
		j.status = interview.StatusPartial
	default:
		j.status = interview.StatusMissing
	}
	if j.status == interview.StatusMissing {
		j.evidence = pick(zh, "Not mentioned in the answer.", "回答中未提及。")
		return j
	}
	j.evidence = quoteText(bestSentence(bestToks, sents))
	return j
}

// statementTokens returns the token lists of an anchor's acceptable
// statements. An anchor without usable statements (a degraded "legacy"
// spec, or a model that wrote none) is judged by its name and the question
// (pseudo is then true).
func statementTokens(a interview.Anchor, content string) (stmts [][]string, pseudo bool) {
	var out [][]string
	for _, s := range a.AcceptableStatements {
		if t := uniqueTokens(s); len(t) > 0 {
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		return out, false
	}
	for _, s := range []string{a.Name, content} {
		if t := uniqueTokens(s); len(t) > 0 {
			out = append(out, t)
		}
	}
	return out, true
}

// bestSentence returns the answer sentence holding most of toks (the first
// on a tie).
func bestSentence(toks []string, sents []string) string {
	best, bestN := "", -1
	for _, s := range sents {
		if n, _ := overlap(toks, answerTokens(s)); n > bestN {
			best, bestN = s, n
		}
	}
	return best
}

// assertsMistake returns the first answer sentence that holds ≥70% of the
// tokens of one wording of a common mistake, with the same polarity, and
// that wording's tokens.
func assertsMistake(wordings []string, sents []string) (string, []string, bool) {
	for _, s := range sents {
		st := answerTokens(s)
		for _, m := range wordings {
			mt := uniqueTokens(m)
			if len(mt) == 0 {
				continue
			}
			if _, share := overlap(mt, st); share >= mistakeShare && negated(s) == negated(m) {
				return s, mt, true
			}
		}
	}
	return "", nil, false
}

// closestAnchor returns the anchor whose name and statements share most
// tokens with the mistake; with no overlap, the first core anchor.
func closestAnchor(anchors []interview.Anchor, view rubricView, mistake []string) int {
	best, bestN := -1, 0
	for i, a := range anchors {
		n, _ := overlap(mistake, tokenSet(a.Name+"\n"+strings.Join(a.AcceptableStatements, "\n")+"\n"+strings.Join(view.vocab[i], "\n")))
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best >= 0 {
		return best
	}
	for i, a := range anchors {
		if a.Core {
			return i
		}
	}
	return 0
}

// normalisedWeights returns the anchors' weights scaled to sum to 1 (equal
// shares when the spec's weights are unusable).
func normalisedWeights(anchors []interview.Anchor) []float64 {
	total := 0
	for _, a := range anchors {
		total += max(0, a.Weight)
	}
	w := make([]float64, len(anchors))
	for i, a := range anchors {
		if total > 0 {
			w[i] = float64(max(0, a.Weight)) / float64(total)
		} else {
			w[i] = 1 / float64(len(anchors))
		}
	}
	return w
}

func correctness(anchors []interview.Anchor, res []judged, wrong []string, zh bool) interview.DimensionJudgment {
	d := interview.DimensionJudgment{ID: interview.DimCorrectness, Confidence: judgedConfidence}
	if len(wrong) > 0 {
		d.Status = interview.StatusContradicted
		d.Evidence = pick(zh, "States a common mistake: ", "回答中有常见的错误说法：") + quoteText(wrong[0])
		return d
	}
	hasCore := false
	for _, a := range anchors {
		hasCore = hasCore || a.Core
	}
	core, met, partial := 0, 0, 0
	for i, a := range anchors {
		if hasCore && !a.Core {
			continue
		}
		core++
		switch res[i].status {
		case interview.StatusMet:
			met++
		case interview.StatusPartial:
			partial++
		}
	}
	switch {
	case met == core:
		d.Status = interview.StatusMet
	case met+partial > 0:
		d.Status = interview.StatusPartial
	default:
		d.Status = interview.StatusMissing
	}
	d.Evidence = fmt.Sprintf(pick(zh, "%d of %d core points met, %d partly.", "核心要点 %d/%d 答到，%d 个部分答到。"), met, core, partial)
	return d
}

func completeness(coverage float64, zh bool) interview.DimensionJudgment {
	d := interview.DimensionJudgment{ID: interview.DimCompleteness, Confidence: judgedConfidence}
	switch {
	case coverage >= 0.75:
		d.Status = interview.StatusMet
	case coverage > 0:
		d.Status = interview.StatusPartial
	default:
		d.Status = interview.StatusMissing
	}
	d.Evidence = fmt.Sprintf(pick(zh, "Covers %d%% of the rubric weight.", "覆盖了约 %d%% 的评分要点权重。"), int(math.Round(coverage*100)))
	return d
}

func logic(answer string, words, sents int, zh bool) interview.DimensionJudgment {
	d := interview.DimensionJudgment{ID: interview.DimLogic, Confidence: judgedConfidence}
	conn := connectives(answer)
	switch {
	case words >= 25 && (conn >= 1 || sents >= 3):
		d.Status = interview.StatusMet
	case words >= 8:
		d.Status = interview.StatusPartial
	default:
		d.Status = interview.StatusMissing
	}
	d.Evidence = fmt.Sprintf(pick(zh, "%d words in %d sentences, %d connectives.", "约 %d 词、%d 句，%d 个逻辑连接词。"), words, sents, conn)
	return d
}

func depth(view rubricView, ans map[string]bool, words int, metShare float64, zh bool) interview.DimensionJudgment {
	d := interview.DimensionJudgment{ID: interview.DimDepth, Confidence: judgedConfidence}
	var vocab []string
	for _, v := range view.vocab {
		vocab = append(vocab, v...)
	}
	terms, _ := overlap(uniqueTokens(strings.Join(vocab, "\n")), ans)
	switch {
	case metShare >= 0.5 && (words >= 40 || terms >= 8):
		d.Status = interview.StatusMet
	case terms >= 2 || metShare > 0:
		d.Status = interview.StatusPartial
	default:
		d.Status = interview.StatusMissing
	}
	d.Evidence = fmt.Sprintf(pick(zh, "Uses %d rubric terms; met points hold %d%% of the weight.", "使用了 %d 个要点术语；已答到要点占 %d%% 权重。"), terms, int(math.Round(metShare*100)))
	return d
}

func clarity(words, sents int, zh bool) interview.DimensionJudgment {
	d := interview.DimensionJudgment{ID: interview.DimClarity, Confidence: judgedConfidence}
	avg := float64(words) / float64(max(1, sents))
	if avg >= 4 && avg <= 35 {
		d.Status = interview.StatusMet
	} else {
		d.Status = interview.StatusPartial
	}
	d.Evidence = fmt.Sprintf(pick(zh, "Sentences average %.0f words.", "平均每句约 %.0f 词。"), avg)
	return d
}

// emptyEvaluation judges an empty or near-empty answer: everything missing,
// with full confidence.
//
// An answer of a word or two ("yes") was given: the feedback says it is
// too short rather than that no answer was given.
func emptyEvaluation(q interview.QuestionSpec, answer string, zh bool) interview.Evaluation {
	why := pick(zh, "The answer is empty or too short to judge.", "回答为空或过短，无法判断。")
	noAnswer := pick(zh, "No answer was given.", "没有作答。")
	if answer != "" {
		why = pick(zh, "The answer is too short to judge.", "回答过短，无法判断。")
		noAnswer = fmt.Sprintf(pick(zh, "Your answer (“%s”) is too short to judge.", "回答（“%s”）太短，无法判断。"), clip(answer, 40))
	}
	ev := interview.Evaluation{Anchors: []interview.AnchorJudgment{}, MissingPoints: []string{}}
	for _, id := range interview.Dimensions {
		ev.Dimensions = append(ev.Dimensions, interview.DimensionJudgment{ID: id, Status: interview.StatusMissing, Evidence: why, Confidence: trivialConfidence})
	}
	var names []string
	view := viewOf(q, q.Anchors)
	for i, a := range q.Anchors {
		ev.Anchors = append(ev.Anchors, interview.AnchorJudgment{Name: a.Name, Status: interview.StatusMissing, Evidence: why})
		if len(a.AcceptableStatements) > 0 || a.Name != legacyAnchor {
			ev.MissingPoints = append(ev.MissingPoints, view.point(i, zh))
			names = append(names, view.name(i, zh))
			continue
		}
		names = append(names, displayName(a, zh))
	}
	if len(names) == 0 {
		ev.Feedback = noAnswer + pick(zh, " Try to answer the question in a few sentences.", "请用几句话尝试回答这个问题。")
		return ev
	}
	ev.Feedback = noAnswer + fmt.Sprintf(pick(zh, " A complete answer would cover %s.", "完整的回答应包括：%s。"), joinList(names, zh))
	return ev
}

// legacyAnchor is the name of the single anchor of a degraded spec
// (interview.md "Resume → questions").
const legacyAnchor = "legacy"

// displayName is how feedback names an anchor: a statement-less "legacy"
// anchor stands for the question as a whole.
func displayName(a interview.Anchor, zh bool) string {
	if a.Name == legacyAnchor && len(a.AcceptableStatements) == 0 {
		return pick(zh, "the main point of the question", "题目的核心要求")
	}
	return a.Name
}

// firstPoint is what the answer should also have said for an anchor: its
// first acceptable statement, or its name.
func firstPoint(a interview.Anchor) string {
	for _, s := range a.AcceptableStatements {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return a.Name
}

// feedback speaks to the candidate in two or three sentences: what the
// answer covered, what to add, and which claim is wrong.
func feedback(met, notMet, missing, wrong []string, res []judged, zh bool) string {
	var b []string
	switch {
	case len(met) > 0 && len(notMet) == 0:
		b = append(b, fmt.Sprintf(pick(zh, "Strong answer: it covers %s.", "回答很完整，覆盖了：%s。"), joinList(met, zh)))
	case len(met) > 0:
		b = append(b, fmt.Sprintf(pick(zh, "Good: the answer covers %s.", "回答较好地覆盖了：%s。"), joinList(met, zh)))
	case len(notMet) > 0 && anyPartial(res):
		b = append(b, pick(zh, "The answer touches on the topic but does not fully cover any key point yet.", "回答涉及了题目，但还没有完整覆盖任何一个要点。"))
	default:
		b = append(b, pick(zh, "The answer does not address the key points of the question yet.", "回答还没有涉及题目的关键要点。"))
	}
	switch {
	case len(notMet) > 0 && len(missing) > 0:
		b = append(b, fmt.Sprintf(pick(zh, "To improve, address %s, for example: %s.", "建议补充：%s，例如：%s。"),
			joinList(notMet, zh), strings.TrimRight(missing[0], ".。")))
	case len(notMet) > 0:
		b = append(b, fmt.Sprintf(pick(zh, "To improve, address %s more directly.", "建议更直接地回答%s。"), joinList(notMet, zh)))
	default:
		b = append(b, pick(zh, "To go further, add a trade-off or an example from your own projects.", "可以再结合自己的项目经历，谈谈取舍和实际效果。"))
	}
	if len(wrong) > 0 {
		b = append(b, fmt.Sprintf(pick(zh, "Check this claim, it is a common mistake: %s", "请注意这个说法是常见错误：%s"), quoteText(wrong[0])))
	}
	return strings.Join(b, pick(zh, " ", ""))
}

func anyPartial(res []judged) bool {
	for _, r := range res {
		if r.status == interview.StatusPartial {
			return true
		}
	}
	return false
}

// quoteText quotes a piece of the answer, at most 120 characters.
func quoteText(s string) string {
	return "“" + clip(s, 118) + "”"
}

// questionText is the question in every wording the offline model knows:
// a bank question in English and in Chinese, so that the answer's credit does
// not depend on the language the question was asked in.
func questionText(q interview.QuestionSpec) string {
	i, ok := bankIndex[strings.TrimSpace(q.Content)]
	if !ok {
		return q.Content
	}
	return bank[i].content + "\n" + bankZH[bank[i].content].content
}
