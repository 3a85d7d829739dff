package httpx

import (
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

const langKey = "httpx.lang"

// Language picks the language of a response from an Accept-Language
// header: apperr.LangZH for any Chinese tag ("zh", "zh-CN", "zh-Hans",
// "zh-TW"), apperr.LangEN for English or anything else, the highest
// q-value winning and the first listed among equals. q=0 refuses a tag.
func Language(header string) string {
	best, bestQ := apperr.LangEN, 0.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		tag = strings.ToLower(strings.TrimSpace(tag))
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				continue
			}
			q = f
		}
		var lang string
		switch {
		case tag == "zh" || strings.HasPrefix(tag, "zh-"):
			lang = apperr.LangZH
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			lang = apperr.LangEN
		default:
			continue // "*" and languages we do not speak: English by default
		}
		if q > bestQ {
			best, bestQ = lang, q
		}
	}
	return best
}

// language reads Accept-Language once per request for Lang and marks the
// response as depending on it.
func language(c *gin.Context) {
	lang := Language(c.GetHeader("Accept-Language"))
	c.Set(langKey, lang)
	h := c.Writer.Header()
	h.Set("Content-Language", lang)
	h.Add("Vary", "Accept-Language")
	c.Next()
}

// Lang returns the language the caller asked for (apperr.LangZH or
// apperr.LangEN).
func Lang(c *gin.Context) string {
	if l := c.GetString(langKey); l != "" {
		return l
	}
	return Language(c.GetHeader("Accept-Language"))
}

// Message is e's message in the caller's language: what every error
// envelope, server-sent error event and WebSocket error carries.
func Message(c *gin.Context, e *apperr.Error) string { return e.MessageIn(Lang(c)) }

// Text translates a fixed English message (a catalog format without verbs,
// or text made from one) into the caller's language; unknown text is
// returned unchanged.
func Text(c *gin.Context, english string) string {
	if Lang(c) == apperr.LangZH {
		if zh, ok := apperr.Translate(english); ok {
			return zh
		}
	}
	return english
}
