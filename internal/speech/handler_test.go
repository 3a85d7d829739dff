package speech_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// capabilitiesRouter mounts the speech routes with an auth middleware that
// accepts the bearer token "good" and a rate limiter that counts calls.
func capabilitiesRouter(rec speech.Recognizer, buckets *[]string) *gin.Engine {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	h := speech.NewHandler(speech.NewServer(speech.Config{}, rec, fakeAuth, nil), speech.NewTranscriber(rec), 1<<20)
	auth := func(c *gin.Context) {
		if c.GetHeader("Authorization") != "Bearer good" {
			httpx.Error(c, apperr.Unauthenticated("send a bearer token"))
			c.Abort()
		}
	}
	limit := func(bucket string) gin.HandlerFunc {
		return func(c *gin.Context) { *buckets = append(*buckets, bucket) }
	}
	h.Register(r.Group("/api/xunzhi/v1"), auth, limit)
	return r
}

func getCapabilities(t *testing.T, r http.Handler, token string) (int, speech.Capabilities) {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/xunzhi/v1/speech/capabilities", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	var env struct {
		Data speech.Capabilities `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatalf("body %q: %v", w.Body.String(), err)
	}
	return w.Code, env.Data
}

func TestCapabilitiesEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  speech.Recognizer
		want speech.Capabilities
	}{
		{"english only", &fakeRecognizer{languages: []string{speech.LangEnglish}}, speech.Capabilities{Provider: "fake", Languages: []string{"en"}}},
		{"bilingual", &fakeRecognizer{}, speech.Capabilities{Provider: "fake", Languages: []string{"zh-CN", "en"}}},
		{"unavailable", speech.Unavailable{Reason: "none"}, speech.Capabilities{Provider: "none", Languages: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buckets []string
			r := capabilitiesRouter(tc.rec, &buckets)
			code, got := getCapabilities(t, r, "good")
			if code != http.StatusOK || got.Provider != tc.want.Provider || !slices.Equal(got.Languages, tc.want.Languages) {
				t.Errorf("got %d %+v, want 200 %+v", code, got, tc.want)
			}
			if got.Languages == nil {
				t.Errorf("languages is null, want a list")
			}
			if !slices.Equal(buckets, []string{"default"}) {
				t.Errorf("rate buckets %v, want [default]", buckets)
			}
			if code, _ := getCapabilities(t, r, ""); code != http.StatusUnauthorized {
				t.Errorf("without token: %d, want 401", code)
			}
		})
	}
}

func TestNormalizeLanguage(t *testing.T) {
	for tag, want := range map[string]string{"en": "en", "EN-us": "en", "en_GB": "en", "zh": "zh-CN",
		"zh-CN": "zh-CN", "zh-Hans": "zh-CN", "cmn": "zh-CN", " zh-tw ": "zh-CN", "fr": "", "": "", "english": ""} {
		got, ok := speech.NormalizeLanguage(tag)
		if got != want || ok != (want != "") {
			t.Errorf("NormalizeLanguage(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
}
