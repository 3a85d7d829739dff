package httpx

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

func TestLanguage(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", apperr.LangEN},
		{"zh-CN", apperr.LangZH},
		{"zh-Hans-CN", apperr.LangZH},
		{"ZH-tw", apperr.LangZH},
		{"en-GB", apperr.LangEN},
		{"*", apperr.LangEN},
		{"fr, zh;q=0.5", apperr.LangZH},
		{"en;q=0.5, zh-CN;q=0.9", apperr.LangZH},
		{"zh-CN;q=0.4, en;q=0.8", apperr.LangEN},
		{"zh-CN, en", apperr.LangZH}, // equal q: the first listed
		{"zh;q=0", apperr.LangEN},
		{"zh;q=abc, en", apperr.LangEN},
	}
	for _, tt := range tests {
		if got := Language(tt.header); got != tt.want {
			t.Errorf("Language(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

// Error renders the message in the request's language; code and status
// do not change.
func TestErrorInCallersLanguage(t *testing.T) {
	gin.SetMode(gin.TestMode)
	for _, tt := range []struct{ header, want string }{
		{"zh-CN", "title 最多 200 个字符"},
		{"en", "title must be at most 200 characters"},
	} {
		r := gin.New()
		r.Use(language)
		r.GET("/x", func(c *gin.Context) { Error(c, apperr.Invalid("title must be at most %d characters", 200)) })
		w := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header.Set("Accept-Language", tt.header)
		r.ServeHTTP(w, req)
		var env Envelope
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		if w.Code != 400 || env.Code != apperr.CodeBadRequest || env.Message != tt.want {
			t.Errorf("%s: %d %q %q, want 400 %q %q", tt.header, w.Code, env.Code, env.Message, apperr.CodeBadRequest, tt.want)
		}
		if got := w.Header().Get("Content-Language"); got != Language(tt.header) {
			t.Errorf("%s: Content-Language %q", tt.header, got)
		}
	}
}
