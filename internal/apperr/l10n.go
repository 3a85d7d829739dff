package apperr

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The languages a message can be rendered in (the tags the API and the
// interview sessions use).
const (
	LangEN = "en"    // English, the default
	LangZH = "zh-CN" // Simplified Chinese
)

// Word is a message argument from a closed set of English words, such as
// the noun of NotFound ("conversation") or a rate-limit bucket's name: the
// catalog translates it (zhWords). Other arguments (field names, numbers,
// what the client sent) are shown as they are.
type Word string

// List is a message argument naming alternatives, such as the file types
// an upload accepts: English "PDF, TXT or MD", Chinese "PDF、TXT 或 MD".
type List []string

// String renders the list in English (the Message of an Error).
func (l List) String() string { return joinAlternatives(l, ", ", " or ") }

// joinAlternatives joins items with sep, the last one with or.
func joinAlternatives(items []string, sep, or string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], sep) + or + items[len(items)-1]
}

// englishList matches a List of upper-case names in English, for messages
// matched by their text (Translate).
var englishList = regexp.MustCompile(`^[A-Z0-9]+(?:, [A-Z0-9]+)* or [A-Z0-9]+$`)

// MessageIn returns the message in lang (LangZH or LangEN; anything else is
// English). The Chinese text comes from the catalog entry of Format with
// Args (Word arguments translated); an error built without New is matched
// against the catalog by its English Message. Messages the catalog does not
// know (an upstream service's own text) stay in English.
func (e *Error) MessageIn(lang string) string {
	if lang != LangZH {
		return e.Message
	}
	if e.Format != "" {
		if s, ok := localize(e.Format, e.Args); ok {
			return s
		}
	}
	if s, ok := Translate(e.Message); ok {
		return s
	}
	if e.Kind == KindInternal {
		return zhCN["internal error"]
	}
	return e.Message
}

// localize renders format with args in Chinese, if the catalog has format.
// A bare "%s" passes a message through (a guard's or a model client's
// message): that message is translated in turn.
func localize(format string, args []any) (string, bool) {
	if format == "%s" && len(args) == 1 {
		return Translate(fmt.Sprint(args[0]))
	}
	zh, ok := zhCN[format]
	if !ok {
		return "", false
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case Word:
			out[i] = word(string(a))
		case List:
			out[i] = joinAlternatives(a, "、", " 或 ")
		default:
			out[i] = a
		}
	}
	return fmt.Sprintf(zh, out...), true
}

// word translates one closed-set word, or returns it unchanged.
func word(w string) string {
	if zh, ok := zhWords[w]; ok {
		return zh
	}
	if englishList.MatchString(w) {
		head, last, _ := strings.Cut(w, " or ")
		return joinAlternatives(append(strings.Split(head, ", "), last), "、", " 或 ")
	}
	return w
}

// Translate returns the Chinese text of an English message made from a
// catalog format, recovering the arguments from the text: for errors that
// lost their Format (replayed by the single-flight, stored in a row) and
// for messages passed through with "%s". Arguments that are catalog words
// are translated.
func Translate(msg string) (string, bool) {
	m := matchers()
	if zh, ok := m.exact[msg]; ok {
		return zh, true
	}
	for _, p := range m.patterns {
		sub := p.re.FindStringSubmatch(msg)
		if sub == nil {
			continue
		}
		args := make([]any, len(sub)-1)
		for i, s := range sub[1:] {
			args[i] = word(s)
		}
		return fmt.Sprintf(p.zh, args...), true
	}
	return "", false
}

// pattern matches the English text of one catalog format; zh is the
// Chinese format with every verb turned into %s (the captured arguments
// are text already formatted).
type pattern struct {
	re      *regexp.Regexp
	zh      string
	literal int // letters outside verbs: longer is more specific, tried first
}

type matcherSet struct {
	exact    map[string]string // formats without verbs, by their text
	patterns []pattern
}

var matchers = sync.OnceValue(func() matcherSet {
	m := matcherSet{exact: make(map[string]string)}
	for en, zh := range zhCN {
		parts := parseFormat(en)
		if len(Verbs(en)) == 0 {
			m.exact[strings.ReplaceAll(en, "%%", "%")] = strings.ReplaceAll(zh, "%%", "%")
			continue
		}
		var re strings.Builder
		literal := 0
		re.WriteString("^")
		for _, p := range parts {
			switch {
			case p.verb == 0:
				re.WriteString(regexp.QuoteMeta(p.text))
				literal += len(p.text)
			case p.verb == 'd':
				re.WriteString(`(-?\d+)`)
			default:
				re.WriteString(`(.+?)`)
			}
		}
		re.WriteString("$")
		var zhs strings.Builder
		for _, p := range parseFormat(zh) {
			if p.verb == 0 {
				zhs.WriteString(strings.ReplaceAll(p.text, "%", "%%"))
			} else {
				zhs.WriteString("%s")
			}
		}
		m.patterns = append(m.patterns, pattern{re: regexp.MustCompile(re.String()), zh: zhs.String(), literal: literal})
	}
	slices.SortFunc(m.patterns, func(a, b pattern) int {
		if c := cmp.Compare(b.literal, a.literal); c != 0 {
			return c
		}
		return strings.Compare(a.re.String(), b.re.String())
	})
	return m
})

// formatPart is a literal run of a format (verb 0; "%%" already made "%")
// or one verb.
type formatPart struct {
	text string
	verb rune
}

// parseFormat splits a fmt format into literal text and verbs (flags,
// width and precision are read and dropped).
func parseFormat(f string) []formatPart {
	var parts []formatPart
	var lit strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("+-# 0123456789.[]*", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			lit.WriteString(f[i:])
			break
		}
		if f[j] == '%' {
			lit.WriteByte('%')
			i = j
			continue
		}
		if lit.Len() > 0 {
			parts = append(parts, formatPart{text: lit.String()})
			lit.Reset()
		}
		parts = append(parts, formatPart{verb: rune(f[j])})
		i = j
	}
	if lit.Len() > 0 {
		parts = append(parts, formatPart{text: lit.String()})
	}
	return parts
}

// Verbs returns the verbs of a fmt format in order ("%q is %d" gives
// ["q", "d"]): a translation must have the same ones.
func Verbs(format string) []string {
	var vs []string
	for _, p := range parseFormat(format) {
		if p.verb != 0 {
			vs = append(vs, string(p.verb))
		}
	}
	return vs
}
