package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// maxFollowUpRunes is the contract's limit on a follow-up question.
const maxFollowUpRunes = 100

// buildFollowUp is the offline interview-followup. It asks the spec's
// followUpStrategy when that question is usable (≤100 characters, ends with
// "?" or "？") and relates to a target anchor: it names the anchor, or shares
// at least two tokens with the anchor's name and statements (Chinese
// through the glossary). Otherwise it
// asks the candidate to expand on the first target, in the answer's
// language. It never ends the interview: the rules decide that.
func buildFollowUp(in interview.FollowUpInput) interview.FollowUpOutput {
	return buildFollowUpIn(in, "")
}

// buildFollowUpIn is buildFollowUp writing in lang ("" for the answer's
// language).
func buildFollowUpIn(in interview.FollowUpInput, lang string) interview.FollowUpOutput {
	q := in.Question
	zh := chineseOutput(lang, in.Answer, q.Content)
	strategy := strings.TrimSpace(q.FollowUpStrategy)
	usable := usableQuestion(strategy)

	var targets []string
	for _, t := range in.Targets {
		if t = strings.TrimSpace(t); t != "" {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		if usable {
			return interview.FollowUpOutput{FollowUp: strategy}
		}
		return interview.FollowUpOutput{FollowUp: pick(zh,
			"Could you give a concrete example from your own experience?", "能结合你的实际经历举一个具体的例子吗？")}
	}
	if usable {
		st := answerTokens(strategy) // a Chinese strategy relates through the glossary
		for _, t := range targets {
			if strings.Contains(strings.ToLower(strategy), strings.ToLower(t)) {
				return interview.FollowUpOutput{FollowUp: strategy}
			}
			if n, _ := overlap(uniqueTokens(anchorText(q, t)), st); n >= 2 {
				return interview.FollowUpOutput{FollowUp: strategy}
			}
		}
	}
	return interview.FollowUpOutput{FollowUp: expandOn(anchorName(q, targets[0], zh), zh)}
}

// anchorName names the anchor called name in the answer's language (a bank
// anchor has both wordings); other names are returned as they are.
func anchorName(q interview.QuestionSpec, name string, zh bool) string {
	view := viewOf(q, q.Anchors)
	for i, a := range q.Anchors {
		if strings.EqualFold(strings.TrimSpace(a.Name), name) {
			if n := view.name(i, zh); n != "" {
				return n
			}
		}
	}
	return name
}

// anchorText is the name and statements of the anchor called name (just
// the name when the spec has no such anchor).
func anchorText(q interview.QuestionSpec, name string) string {
	for _, a := range q.Anchors {
		if strings.EqualFold(strings.TrimSpace(a.Name), name) {
			return a.Name + "\n" + strings.Join(a.AcceptableStatements, "\n")
		}
	}
	return name
}

// usableQuestion reports whether s can be asked as a follow-up.
func usableQuestion(s string) bool {
	return s != "" && utf8.RuneCountInString(s) <= maxFollowUpRunes &&
		(strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？"))
}

// expandOn asks the candidate to expand on an anchor, within the length limit.
func expandOn(name string, zh bool) string {
	prefix, suffix := "Could you expand on ", "?"
	if zh {
		prefix, suffix = "能再具体讲讲", "吗？"
	}
	room := maxFollowUpRunes - utf8.RuneCountInString(prefix) - utf8.RuneCountInString(suffix)
	name = strings.TrimRight(strings.TrimSpace(name), "?？.。")
	if !zh {
		name = inProse(name)
	}
	return prefix + clip(name, room) + suffix
}
