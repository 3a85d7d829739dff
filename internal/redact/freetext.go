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
	s = urlInText.ReplaceAllStringFunc(s, URL)
	s = bearer.ReplaceAllString(s, "$1 "+Mask)
	s = keyed.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyed.FindStringSubmatch(m)
		if strings.Contains(sub[2], Mask) || strings.EqualFold(sub[2], "bearer") || strings.EqualFold(sub[2], "basic") {
			return m
		}
		quote := ""
		if v := sub[2]; len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
			quote = v[:1]
		}
		return sub[1] + quote + Mask + quote
	})
	return apiKey.ReplaceAllString(s, Mask)
}
