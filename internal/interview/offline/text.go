package offline

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text primitives every stage shares. Matching is deliberately simple
// and fully deterministic: lower-cased, lightly stemmed Latin words and digit
// runs, and character bigrams for Chinese (which has no spaces to split on).

// stopWords are English words too common to say anything about a topic.
// Negations are here too: they decide polarity (negated), not topic.
var stopWords = setOf(
	"a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am",
	"to", "of", "in", "on", "at", "for", "by", "with", "and", "or", "it", "its",
	"this", "that", "these", "those", "as", "from", "into", "onto", "than", "then",
	"so", "if", "but", "can", "could", "should", "would", "will", "may", "might",
	"must", "do", "does", "did", "done", "has", "have", "had", "you", "your", "we",
	"our", "us", "my", "me", "they", "them", "their", "he", "she", "his", "her",
	"which", "what", "when", "where", "who", "whom", "how", "why", "also", "use",
	"used", "uses", "using", "via", "each", "every", "all", "any", "some", "more",
	"most", "very", "just", "only", "there", "here", "about", "such", "like",
	"other", "both", "own", "etc", "eg", "ie", "up", "out", "too", "well", "one",
	"not", "no", "never", "nor", "none", "cannot", "dont", "doesnt", "isnt",
	"arent", "wasnt", "werent", "wont", "cant", "couldnt", "shouldnt", "wouldnt",
	"didnt", "hasnt", "havent", "because", "therefore", "thus", "hence", "first",
	"second", "finally", "however", "since", "while", "whereas", "i", "let",
	"make", "makes", "made", "get", "gets", "got", "way", "thing", "things",
	"something", "really", "usually", "often", "always",
)

// funcChars are Chinese function characters; a bigram containing one
// carries little meaning ("库的", "的索").
const funcChars = "的了是在和与也就都而及或把被这那个吗呢吧啊着地得"

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// isApostrophe reports runes that join a word ("don't" reads as "dont").
func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// tokens returns the significant tokens of s in order: stemmed Latin words
// (at least two letters, not stop words), digit runs of any length, and the
// bigrams of each run of Chinese characters (a lone character stands alone).
func tokens(s string) []string {
	var out []string
	var word, run []rune
	flushWord := func() {
		if len(word) > 0 {
			if t, ok := significant(string(word)); ok {
				out = append(out, t)
			}
			word = word[:0]
		}
	}
	flushRun := func() {
		if len(run) == 1 && !strings.ContainsRune(funcChars, run[0]) {
			out = append(out, string(run))
		}
		for i := 0; i+1 < len(run); i++ {
			if !strings.ContainsRune(funcChars, run[i]) && !strings.ContainsRune(funcChars, run[i+1]) {
				out = append(out, string(run[i:i+2]))
			}
		}
		run = run[:0]
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case isHan(r):
			flushWord()
			run = append(run, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushRun()
			word = append(word, r)
		case isApostrophe(r) && len(word) > 0:
			// keep the word going
		default:
			flushWord()
			flushRun()
		}
	}
	flushWord()
	flushRun()
	return out
}

// uniqueTokens returns the tokens of s without repeats, in first-seen order.
func uniqueTokens(s string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, t := range tokens(s) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// tokenSet returns the set of significant tokens of s.
func tokenSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, t := range tokens(s) {
		m[t] = true
	}
	return m
}

// overlap returns how many of toks are in set, and that share of toks.
func overlap(toks []string, set map[string]bool) (int, float64) {
	if len(toks) == 0 {
		return 0, 0
	}
	n := 0
	for _, t := range toks {
		if set[t] {
			n++
		}
	}
	return n, float64(n) / float64(len(toks))
}

func significant(w string) (string, bool) {
	if isDigits(w) {
		return w, true
	}
	if utf8.RuneCountInString(w) < 2 || stopWords[w] {
		return "", false
	}
	return stem(w), true
}

func isDigits(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stem strips plural, -ing/-ed and a final e, so that "caches", "cached",
// "caching" and "cache" all read "cach". It is crude but applied the same
// way to the rubric and the answer, which is all matching needs.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ing", "ed"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			if n := len(w); n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
				w = w[:n-1] // "stopped" → "stop"
			}
			break
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// counts returns the number of Chinese characters and of Latin words
// (maximal runs of other letters and digits) in s.
func counts(s string) (han, latin int) {
	in := false
	for _, r := range s {
		switch {
		case isHan(r):
			han++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				latin++
			}
			in = true
		case isApostrophe(r) && in:
		default:
			in = false
		}
	}
	return han, latin
}

// isChinese reports whether s is mostly Chinese: at least as many Chinese
// characters as Latin words.
func isChinese(s string) bool {
	han, latin := counts(s)
	return han > 0 && han >= latin
}

// wordCount counts Latin words plus one word per two Chinese characters
// (a Chinese word is about two characters long).
func wordCount(s string) int {
	han, latin := counts(s)
	return latin + (han+1)/2
}

// sentences splits s at sentence ends: 。！？；!?; and newlines always, a
// period only before a space or the end (so "node.js" and "3.5" stay whole).
func sentences(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	cut := func(end int) {
		if t := strings.TrimSpace(string(rs[start:end])); t != "" {
			out = append(out, t)
		}
		start = end + 1
	}
	for i, r := range rs {
		switch {
		case strings.ContainsRune("。！？；!?;\n", r):
			cut(i)
		case r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			cut(i)
		}
	}
	if start < len(rs) {
		cut(len(rs))
	}
	return out
}

var (
	negationEN = regexp.MustCompile(`\b(not|no|never|cannot|none|neither|nor)\b|n['’]t\b`)
	negationZH = []string{"不是", "不会", "不能", "不用", "不要", "不需要", "不必", "没有", "并非", "无法", "不可以", "不可能", "从不", "绝不"}
)

// negated reports whether s is a negative statement. An answer sentence
// repeats a common mistake only when its polarity matches the mistake's:
// "indexes do not speed up writes" does not assert "indexes speed up writes".
func negated(s string) bool {
	l := strings.ToLower(s)
	n := len(negationEN.FindAllString(l, -1))
	for _, w := range negationZH {
		n += strings.Count(l, w)
	}
	return n%2 == 1
}

var (
	connectivesEN = setOf("because", "therefore", "so", "thus", "hence", "first", "firstly", "second",
		"secondly", "then", "finally", "however", "since", "but", "otherwise", "whereas", "while",
		"example", "instance", "result", "consequently", "next", "if", "when")
	connectivesZH = []string{"因为", "所以", "因此", "首先", "其次", "然后", "最后", "但是", "不过", "例如", "比如", "如果", "否则", "由于", "而且", "另外", "总之"}
)

// connectives counts the words that mark reasoning or sequence in s.
func connectives(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) || isHan(r)
	}) {
		if connectivesEN[w] {
			n++
		}
	}
	for _, w := range connectivesZH {
		n += strings.Count(s, w)
	}
	return n
}

// clip shortens s to at most n runes, ending it with "…" when cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return strings.TrimSpace(string(rs[:n-1])) + "…"
}

// joinList joins names as "a, b and c" (English, each name as it reads
// inside a sentence: inProse) or "a、b、c" (Chinese).
func joinList(names []string, zh bool) string {
	if zh {
		return strings.Join(names, "、")
	}
	names = slices.Clone(names)
	for i, n := range names {
		names[i] = inProse(n)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// properNouns are capitalised words that begin English anchor names and
// stay capitalised inside a sentence.
var properNouns = setOf("terraform", "kubernetes", "docker", "java", "python", "go", "react", "vue", "redis", "kafka", "linux", "android", "kotlin", "swift")

// inProse is an English anchor name as it reads inside a sentence: the bank
// writes names as headings ("Write and storage cost"), feedback says
// "address write and storage cost". Acronyms ("DNS resolution", "B+ tree
// lookup"), mixed-case words ("InnoDB") and proper nouns keep their case.
func inProse(name string) string {
	first, _, _ := strings.Cut(name, " ")
	r, size := utf8.DecodeRuneInString(first)
	if size == 0 || !unicode.IsUpper(r) || properNouns[strings.ToLower(first)] {
		return name
	}
	for _, c := range first[size:] {
		if !unicode.IsLower(c) && c != '-' {
			return name
		}
	}
	return string(unicode.ToLower(r)) + name[size:]
}
