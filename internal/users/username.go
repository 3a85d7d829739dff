package users

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// UsernameRule is the username rule as shown to users, in error messages
// and next to the registration form's field.
const UsernameRule = "username must be 2 to 32 characters: letters of any script (such as 张伟 or alice), digits, '_', '.' or '-'"

const (
	usernameMinRunes = 2
	usernameMaxRunes = 32
	// usernameKeyMaxBytes bounds the canonical key (the column is
	// VARCHAR(191)); compatibility forms such as ㎏ expand under NFKC.
	usernameKeyMaxBytes = 191
)

// NormalizeUsername trims name and puts it in Unicode normal form C, the
// form usernames are stored and looked up in, so that "é" typed as e plus
// a combining accent finds the account registered as "é".
func NormalizeUsername(name string) string {
	return norm.NFC.String(strings.TrimSpace(name))
}

// ValidateUsername checks the form of a normalised username (see
// NormalizeUsername): 2 to 32 characters, each a letter of any script, a
// digit, '_', '.' or '-'. Combining marks are allowed after a letter or
// digit (scripts such as Devanagari need them), variation selectors and
// joiners (emoji) are not.
func ValidateUsername(name string) error {
	if name == "" {
		return apperr.Invalid("username is required; " + UsernameRule)
	}
	if !utf8.ValidString(name) {
		return apperr.Invalid("username is not valid UTF-8; " + UsernameRule)
	}
	n := utf8.RuneCountInString(name)
	if n < usernameMinRunes || n > usernameMaxRunes {
		return apperr.Invalid("username has %d characters; "+UsernameRule, n)
	}
	prevBase := false
	for _, r := range name {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
			prevBase = true
			continue
		case r == '_' || r == '.' || r == '-':
			prevBase = false
			continue
		case unicode.IsMark(r) && prevBase && !unicode.Is(unicode.Variation_Selector, r):
			continue
		}
		if unicode.IsSpace(r) {
			return apperr.Invalid("username may not contain spaces; " + UsernameRule)
		}
		return apperr.Invalid("username may not contain %q; "+UsernameRule, string(r))
	}
	if len(UsernameKey(name)) > usernameKeyMaxBytes {
		return apperr.Invalid("username is too long once normalised; " + UsernameRule)
	}
	return nil
}

// confusables maps letters that look like a Latin letter (after NFKC and
// case folding) to that letter. It is deliberately small: the common
// Cyrillic and Greek homoglyphs of Latin letters. Full-width and other
// compatibility forms (ＡＬＩＣＥ, ℓ, ſ) are handled by NFKC.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'н': 'h', 'і': 'i', 'ї': 'i',
	'ј': 'j', 'к': 'k', 'ӏ': 'l', 'м': 'm', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'с': 'c',
	'ѕ': 's', 'т': 't', 'у': 'y', 'ү': 'y', 'х': 'x', 'ԁ': 'd', 'ԝ': 'w', 'ԍ': 'g',
	// Greek
	'α': 'a', 'β': 'b', 'ε': 'e', 'ζ': 'z', 'η': 'h', 'ι': 'i', 'κ': 'k', 'ν': 'v',
	'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ϲ': 'c', 'ϳ': 'j',
	// Latin look-alikes that NFKC and case folding keep apart
	'ı': 'i', 'ɡ': 'g', 'ɑ': 'a',
}

var folder = cases.Fold()

// UsernameKey is the canonical form that makes usernames unique: NFKC
// (full-width and compatibility forms become plain ones), case folded, with
// Cyrillic and Greek look-alikes of Latin letters replaced by the Latin
// letter. Two names with the same key cannot both be registered, so
// "аlice" (Cyrillic а) and "ＡＬＩＣＥ" both collide with "alice". For ASCII
// names the key is the lower-cased name (the migration relies on this).
func UsernameKey(name string) string {
	s := folder.String(norm.NFKC.String(name))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := confusables[r]; ok {
			r = m
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}
