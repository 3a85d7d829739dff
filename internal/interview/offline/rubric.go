package offline

import (
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// The Chinese rubric of the bank. A Chinese interview gets Chinese anchor
// names, acceptable statements and common mistakes; and whatever language
// the spec is in, a bank question is matched against both wordings, so a
// Chinese answer is credited for an English rubric and the other way round.

// altSep separates the synonyms of one Chinese statement: the first
// alternative is what the candidate sees, the others are other ways a good
// answer says the same thing ("降低写入速度|写入变慢").
const altSep = "|"

// zhAnchor is the Chinese wording of a bank anchor; statements line up with
// the English ones, one for one.
type zhAnchor struct {
	name       string
	statements []string
}

// zhRubric is the Chinese wording of a bank question's rubric.
type zhRubric struct {
	anchors  []zhAnchor
	mistakes []string
}

// firstAlt returns what the candidate sees of a statement: its first
// alternative.
func firstAlt(s string) string {
	first, _, _ := strings.Cut(s, altSep)
	return strings.TrimSpace(first)
}

// alts returns the alternatives of a statement.
func alts(s string) []string {
	var out []string
	for _, a := range strings.Split(s, altSep) {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// bankIndex maps a bank question's English and Chinese wording to its index.
var bankIndex = func() map[string]int {
	m := make(map[string]int, 2*len(bank))
	for i, e := range bank {
		m[e.content] = i
		if t, ok := bankZH[e.content]; ok {
			m[t.content] = i
		}
	}
	return m
}()

// bankEntry returns the bank question q was made from, when q still has its
// anchors (same count, each named as in one of the two wordings).
func bankEntry(q interview.QuestionSpec) (entry, zhRubric, bool) {
	i, ok := bankIndex[strings.TrimSpace(q.Content)]
	if !ok {
		return entry{}, zhRubric{}, false
	}
	e := bank[i]
	r, ok := rubricZH[e.content]
	if !ok || len(q.Anchors) != len(e.anchors) || len(r.anchors) != len(e.anchors) {
		return entry{}, zhRubric{}, false
	}
	for k, a := range q.Anchors {
		if a.Name != e.anchors[k].name && a.Name != r.anchors[k].name {
			return entry{}, zhRubric{}, false
		}
	}
	return e, r, true
}

// rubricView is how the evaluator sees a spec: per anchor, per statement,
// the token lists of its wordings; per common mistake, its wordings; and
// the anchors' names in both languages.
type rubricView struct {
	stmts    [][][][]string // anchor → statement → alternative → tokens
	vocab    [][]string     // anchor → all the text of its wordings
	mistakes [][]string     // mistake → wordings
	names    [][2]string    // anchor → English, Chinese name ("" when unknown)
	points   [][2]string    // anchor → first statement in English, Chinese
}

// viewOf builds the rubric view of q: its own wording, plus, for a bank
// question, the other language's wording and the Chinese synonyms.
func viewOf(q interview.QuestionSpec, anchors []interview.Anchor) rubricView {
	v := rubricView{
		stmts:  make([][][][]string, len(anchors)),
		vocab:  make([][]string, len(anchors)),
		names:  make([][2]string, len(anchors)),
		points: make([][2]string, len(anchors)),
	}
	e, r, isBank := bankEntry(q)
	for i, a := range anchors {
		var texts [][]string // statement → wordings
		for _, s := range a.AcceptableStatements {
			texts = append(texts, []string{s})
		}
		v.names[i] = [2]string{a.Name, ""}
		v.points[i] = [2]string{firstPoint(a), ""}
		if isChinese(a.Name) {
			v.names[i] = [2]string{"", a.Name}
			v.points[i] = [2]string{"", firstPoint(a)}
		}
		if isBank && len(e.anchors[i].statements) == len(r.anchors[i].statements) {
			ea, za := e.anchors[i], r.anchors[i]
			texts = nil
			for j := range ea.statements {
				texts = append(texts, append([]string{ea.statements[j]}, alts(za.statements[j])...))
			}
			v.names[i] = [2]string{ea.name, za.name}
			v.points[i] = [2]string{ea.statements[0], firstAlt(za.statements[0])}
		}
		for _, ws := range texts {
			var st [][]string
			for _, w := range ws {
				if t := uniqueTokens(w); len(t) > 0 {
					st = append(st, t)
				}
				v.vocab[i] = append(v.vocab[i], w)
			}
			if len(st) > 0 {
				v.stmts[i] = append(v.stmts[i], st)
			}
		}
		v.vocab[i] = append(v.vocab[i], v.names[i][0], v.names[i][1])
	}
	for k, m := range q.CommonMistakes {
		ws := []string{m}
		if isBank && k < len(e.mistakes) && k < len(r.mistakes) {
			ws = append([]string{e.mistakes[k]}, alts(r.mistakes[k])...)
		}
		v.mistakes = append(v.mistakes, ws)
	}
	return v
}

// name returns anchor i's name in the wanted language, falling back to the
// other one.
func (v rubricView) name(i int, zh bool) string {
	return bilingual(v.names[i], zh)
}

// point returns anchor i's first statement in the wanted language.
func (v rubricView) point(i int, zh bool) string {
	return bilingual(v.points[i], zh)
}

func bilingual(p [2]string, zh bool) string {
	if zh && p[1] != "" || p[0] == "" {
		return p[1]
	}
	return p[0]
}
