package interview

import (
	"strings"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Languages of an interview session: questions, feedback, follow-ups and
// the report are written in it.
const (
	LangZH = "zh-CN" // Simplified Chinese
	LangEN = "en"    // English
)

// ParseLanguage validates the upload's language field: "" (detect from
// the resume), "zh-CN" or "en", matched case-insensitively.
func ParseLanguage(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", nil
	case strings.EqualFold(s, LangZH):
		return LangZH, nil
	case strings.EqualFold(s, LangEN):
		return LangEN, nil
	}
	return "", apperr.Invalid("language must be %q or %q (or left out to detect it from the resume)", LangZH, LangEN)
}

// DetectLanguage returns LangZH when Chinese characters make up at least
// 30 % of the letters of text, else LangEN. The threshold is below half
// because Chinese resumes keep technical terms ("Spring Boot", "MySQL") in
// Latin letters, which are longer per word than Chinese ones; a Chinese
// name in an English resume stays far below it.
func DetectLanguage(text string) string {
	var han, letters int
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	if letters > 0 && han*10 >= letters*3 {
		return LangZH
	}
	return LangEN
}

// sessionLanguage is the language of a stored session; sessions stored
// before it was recorded are English.
func sessionLanguage(s Session) string {
	if s.Language == LangZH {
		return LangZH
	}
	return LangEN
}
