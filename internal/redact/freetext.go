package redact

import (
	"regexp"
	"strings"
)

// Credential shapes found in free text (model output, error messages) when
// the secret itself is not known to the caller.
var (
	// urlInText is a URL inside text; its secrets are masked by URL.
	urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// bearer is an Authorization header value.
	bearer = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{7,}[A-Za-z0-9_~+/=-]`)
	// keyed is a secret-named field with its value: api_key=…, "apiKey": "…",
	// password: …; the name is kept, the value masked.
	keyed = regexp.MustCompile(`(?i)("?\b(?:api[_-]?key|api[_-]?secret|secret|token|access[_-]?token|password|passwd|authorization)"?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)`)
	// apiKey is a provider key by its usual prefix (OpenAI "sk-", Anthropic
	// "sk-ant-", Google "AIza", GitHub "ghp_"/"github_pat_", Slack "xox?-").
	apiKey = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,})`)
)

// FreeText masks what looks like a credential in s: the secrets of URLs
// inside it (see URL), bearer and basic tokens, the values of secret-named
// fields (api_key=…, "password": "…") and provider keys recognised by their
// prefix (sk-…). For text that no one vetted, such as a model's answer
// stored for a trace; the known secrets of a URL are better removed with
// Text.
func FreeText(s string) string {
	// Each pattern is tried only when s holds a literal that every match of
	// it contains: most text (a model's JSON, an error) holds none, and the
	// regular expressions were most of an answer's CPU (issue 21). A long s
	// ("ſ", U+017F) folds to 's' in the (?i) patterns but not in ToLower:
	// text holding it tries every pattern.
	folds := strings.ContainsRune(s, '\u017f')
	if folds || strings.Contains(s, "://") {
		s = urlInText.ReplaceAllStringFunc(s, URL)
	}
	lower := strings.ToLower(s)
	if folds || strings.Contains(lower, "bearer") || strings.Contains(lower, "basic") {
		s = bearer.ReplaceAllString(s, "$1 "+Mask)
		lower = strings.ToLower(s)
	}
	if folds || mayBeKeyed(s, lower) {
		s = keyed.ReplaceAllStringFunc(s, maskKeyed)
	}
	if mayHoldProviderKey(s) {
		s = apiKey.ReplaceAllString(s, Mask)
	}
	return s
}

// maskKeyed masks the value of one keyed match.
func maskKeyed(m string) string {
	sub := keyed.FindStringSubmatch(m)
	if strings.Contains(sub[2], Mask) || strings.EqualFold(sub[2], "bearer") || strings.EqualFold(sub[2], "basic") {
		return m
	}
	quote := ""
	if v := sub[2]; len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		quote = v[:1]
	}
	return sub[1] + quote + Mask + quote
}

// mayBeKeyed reports whether s (lower: s in lower case) may hold a match of
// keyed: a ':' or '=' and one of its names.
func mayBeKeyed(s, lower string) bool {
	if !strings.ContainsAny(s, ":=") {
		return false
	}
	return strings.Contains(lower, "secret") || strings.Contains(lower, "token") ||
		strings.Contains(lower, "passw") || strings.Contains(lower, "authorization") ||
		strings.Contains(lower, "api") && strings.Contains(lower, "key")
}

// mayHoldProviderKey reports whether s holds one of apiKey's prefixes.
func mayHoldProviderKey(s string) bool {
	if strings.Contains(s, "sk-") || strings.Contains(s, "AIza") || strings.Contains(s, "github_pat_") || strings.Contains(s, "xox") {
		return true
	}
	for i := strings.Index(s, "gh"); i >= 0; {
		if i+3 < len(s) && strings.IndexByte("pousr", s[i+2]) >= 0 && s[i+3] == '_' {
			return true
		}
		j := strings.Index(s[i+2:], "gh")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return false
}
