package speech

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snapshot is the visible transcript after an update.
type Snapshot struct {
	// Committed is the longest prefix of final segments: it no longer
	// changes. Live is the rest, which may still be revised.
	Committed, Live string
	// Full is Committed followed by Live.
	Full string
	// Revision increases by one with every visible change.
	Revision int
	// Segment is the id of the segment the last update touched.
	Segment int
	// Final reports whether every segment is final.
	Final bool
}

// Assembler merges segmented partial results into one transcript: segments
// ordered by id whatever order they arrive in, replaced by range (iFlytek
// "rpl" rg [a,b]) or set one by one ("apd"), with overlapping resent words
// dropped. It is not safe for concurrent use.
type Assembler struct {
	segs []segment // sorted by id
	snap Snapshot
}

type segment struct {
	id    int
	text  string
	final bool
}

// Apply merges r and returns the new snapshot and whether the visible
// text (committed or live) changed. Revision only increases on a change.
func (a *Assembler) Apply(r Result) (Snapshot, bool) {
	if r.Replace != nil {
		from, to := r.Replace.From, r.Replace.To
		if from > to {
			from, to = to, from
		}
		a.segs = slices.DeleteFunc(a.segs, func(s segment) bool { return s.id >= from && s.id <= to })
	}
	text := strings.TrimSpace(r.Text)
	i, found := slices.BinarySearchFunc(a.segs, r.Segment, func(s segment, id int) int { return s.id - id })
	if r.Dedup {
		text = dropOverlap(joinSegments(a.segs[:i]), text)
	}
	seg := segment{id: r.Segment, text: text, final: r.Final}
	if found {
		a.segs[i] = seg
	} else {
		a.segs = slices.Insert(a.segs, i, seg)
	}
	return a.snapshot(r.Segment)
}

// Finish marks every segment final (the stream ended).
func (a *Assembler) Finish() (Snapshot, bool) {
	for i := range a.segs {
		a.segs[i].final = true
	}
	return a.snapshot(a.snap.Segment)
}

// Snapshot returns the current transcript.
func (a *Assembler) Snapshot() Snapshot { return a.snap }

func (a *Assembler) snapshot(touched int) (Snapshot, bool) {
	n := 0
	for n < len(a.segs) && a.segs[n].final {
		n++
	}
	committed := joinSegments(a.segs[:n])
	live := joinSegments(a.segs[n:])
	next := Snapshot{Committed: committed, Live: live, Full: joinText(committed, live),
		Revision: a.snap.Revision, Segment: touched, Final: n == len(a.segs)}
	changed := next.Committed != a.snap.Committed || next.Live != a.snap.Live
	if changed {
		next.Revision++
	}
	a.snap = next
	return next, changed
}

func joinSegments(segs []segment) string {
	var out string
	for _, s := range segs {
		out = joinText(out, s.text)
	}
	return out
}

// joinText joins two pieces of transcript: with a space between words of
// spaced scripts, without one before punctuation or between CJK text.
func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	last, _ := utf8.DecodeLastRuneInString(a)
	first, _ := utf8.DecodeRuneInString(b)
	if unicode.IsPunct(first) && !strings.ContainsRune("([{\"'“‘¿¡", first) || isCJK(last) || isCJK(first) {
		return a + b
	}
	return a + " " + b
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// dropOverlap removes from the start of next the longest run of tokens
// that repeats the end of prev (case and punctuation ignored). Tokens are
// words, or single characters in CJK text.
func dropOverlap(prev, next string) string {
	p, n := tokens(prev), tokens(next)
	for k := min(len(p), len(n)); k > 0; k-- {
		match := true
		for j := 0; j < k; j++ {
			if p[len(p)-k+j].norm != n[j].norm {
				match = false
				break
			}
		}
		if match {
			return strings.TrimLeftFunc(next[n[k-1].end:], func(r rune) bool {
				return unicode.IsSpace(r) || unicode.IsPunct(r) && !isCJK(r)
			})
		}
	}
	return next
}

type token struct {
	norm string
	end  int // byte offset just after the token in its string
}

func tokens(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, token{norm: strings.ToLower(s[start:end]), end: end})
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case isCJK(r) && (unicode.IsLetter(r) || unicode.IsNumber(r)):
			flush(i)
			out = append(out, token{norm: string(r), end: i + utf8.RuneLen(r)})
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '\'':
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	// A token's norm ignores punctuation; skip empty ones.
	return slices.DeleteFunc(out, func(t token) bool { return t.norm == "" })
}
