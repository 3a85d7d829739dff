package tts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Split cuts text into segments of at most maxChars runes each, at sentence
// boundaries where it can:
//
//  1. Sentences end at 。｡！？；!?;…⋯ and line breaks, and at '.' followed by a
//     space or the end of the text, except after an abbreviation ("e.g.",
//     "Dr.", an initial "J.") or inside a number ("3.14" never ends one).
//     Closing quotes and brackets stay with their sentence.
//  2. A sentence longer than maxChars is cut at its last comma (，or ,), 、,
//     colon (：or :) or dash in the window (when that keeps at least half of it), else at its
//     last space, and only as a last resort between two runes, never inside
//     a Latin word or number unless the word itself is longer than maxChars.
//  3. Segments are trimmed; whitespace-only ones are dropped and
//     punctuation-only ones are appended to the previous segment when it has
//     room, so no provider is asked to read "……" alone.
//
// Every non-space rune of text appears in the segments, in order. Split is
// a pure function; text should be valid UTF-8 (invalid bytes become U+FFFD).
func Split(text string, maxChars int) []string {
	maxChars = max(maxChars, 1)
	var out []string
	for _, s := range sentences([]rune(text)) {
		for _, piece := range splitLong(s, maxChars) {
			p := strings.TrimSpace(string(piece))
			if p == "" {
				continue
			}
			out = appendPiece(out, p, maxChars)
		}
	}
	return out
}

// Segments is what a task synthesises: Split, then Pack, so that short
// sentences share a provider call (each call has a fixed cost: a process,
// a request) while no segment exceeds maxChars.
func Segments(text string, maxChars int) []string {
	return Pack(Split(text, maxChars), maxChars)
}

// Pack joins consecutive segments, separated by a space, while the result
// stays within maxChars runes. Sentence boundaries are kept: a segment is
// never cut, only put next to its neighbour.
func Pack(segs []string, maxChars int) []string {
	var out []string
	size := 0 // runes of out's last segment
	for _, s := range segs {
		n := utf8.RuneCountInString(s)
		if len(out) > 0 && size+1+n <= maxChars {
			out[len(out)-1] += " " + s
			size += 1 + n
			continue
		}
		out = append(out, s)
		size = n
	}
	return out
}

// sentences cuts r after each sentence terminator (with its trailing closers).
func sentences(r []rune) [][]rune {
	var out [][]rune
	start := 0
	for i := 0; i < len(r); i++ {
		if !endsSentence(r, i) {
			continue
		}
		end := i + 1
		for end < len(r) && (isCloser(r[end]) || isTerminator(r[end])) {
			end++
		}
		out = append(out, r[start:end])
		start, i = end, end-1
	}
	if start < len(r) {
		out = append(out, r[start:])
	}
	return out
}

// endsSentence reports whether r[i] ends a sentence.
func endsSentence(r []rune, i int) bool {
	c := r[i]
	switch {
	case c == '\n' || isTerminator(c):
		return true
	case c != '.':
		return false
	}
	// '.' ends a sentence only before a space, the end, or a closer followed
	// by either; "3.14", "e.g." and "Dr." do not.
	j := i + 1
	for j < len(r) && isCloser(r[j]) {
		j++
	}
	if j < len(r) && !unicode.IsSpace(r[j]) {
		return false
	}
	return !abbreviation(r, i)
}

// abbreviations never end a sentence (lower case, without the final dot).
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "fig": true, "no": true, "inc": true, "ltd": true, "co": true, "mt": true,
	"approx": true, "dept": true, "est": true, "vol": true, "eq": true, "cf": true, "al": true,
}

// abbreviation reports whether the '.' at r[i] closes an abbreviation: a
// word with an inner dot ("e.g", "U.S"), a single capital (an initial) or a
// listed abbreviation.
func abbreviation(r []rune, i int) bool {
	j := i - 1
	for j >= 0 && (isLatin(r[j]) || r[j] == '.') {
		j--
	}
	word := string(r[j+1 : i])
	switch {
	case word == "":
		return false
	case strings.Contains(word, "."):
		return true
	case utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(word)[0]):
		return true
	}
	return abbreviations[strings.ToLower(word)]
}

func isTerminator(c rune) bool { return strings.ContainsRune("。｡！？；!?;…⋯", c) }

func isCloser(c rune) bool { return strings.ContainsRune("\"'”’」』）)]］】》〉〕", c) }

func isSoftBreak(c rune) bool { return strings.ContainsRune("，,、：:—–", c) }

// isLatin reports whether c is a letter of an alphabetic script (not Han,
// Kana or Hangul, where every character may be cut after).
func isLatin(c rune) bool {
	return unicode.IsLetter(c) && !unicode.Is(unicode.Han, c) && !unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isWordRune reports whether a cut before or after c may fall inside a word.
func isWordRune(c rune) bool { return isLatin(c) || unicode.IsDigit(c) || unicode.Is(unicode.Mn, c) }

// splitLong cuts s into pieces of at most maxChars runes.
func splitLong(s []rune, maxChars int) [][]rune {
	var out [][]rune
	for len(s) > maxChars {
		k := cutPoint(s, maxChars)
		out = append(out, s[:k])
		s = s[k:]
	}
	return append(out, s)
}

// cutPoint returns where to cut s (len(s) > maxChars): 1 <= k <= maxChars.
func cutPoint(s []rune, maxChars int) int {
	lastPunct, lastSpace := 0, 0
	for k := maxChars; k >= 1; k-- {
		if lastPunct == 0 && isSoftBreak(s[k-1]) {
			lastPunct = k
		}
		if lastSpace == 0 && (unicode.IsSpace(s[k-1]) || unicode.IsSpace(s[k])) {
			lastSpace = k
		}
	}
	switch {
	case lastPunct > 0 && lastPunct >= maxChars/2:
		return lastPunct
	case lastSpace > 0:
		return lastSpace
	case lastPunct > 0:
		return lastPunct
	}
	// Last resort: between runes, but at the start of a Latin word rather
	// than inside it (unless the word alone is longer than maxChars).
	k := maxChars
	if isWordRune(s[k-1]) && isWordRune(s[k]) {
		for k > 0 && isWordRune(s[k-1]) {
			k--
		}
		if k == 0 {
			k = maxChars
		}
	}
	return k
}

// appendPiece appends p to out, or to out's last segment when p has nothing
// to say (punctuation only) and the last segment has room for it.
func appendPiece(out []string, p string, maxChars int) []string {
	if len(out) > 0 && !speakable(p) {
		last := out[len(out)-1]
		if utf8.RuneCountInString(last)+utf8.RuneCountInString(p) <= maxChars {
			out[len(out)-1] = last + p
			return out
		}
	}
	return append(out, p)
}

// speakable reports whether s holds a letter or a digit.
func speakable(s string) bool {
	return strings.IndexFunc(s, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsNumber(c) }) >= 0
}
