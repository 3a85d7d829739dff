package httpx

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
)

// stillWorking is a Pending error, like the interview's still-evaluating answer.
type stillWorking struct{ progress int }

func (e *stillWorking) Error() string { return "still working" }
func (e *stillWorking) Accepted() any { return map[string]int{"progress": e.progress} }

func TestRespond(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		name       string
		data       any
		err        error
		wantStatus int
		wantCode   string
		wantData   string
	}{
		{"data", map[string]int{"n": 1}, nil, 200, apperr.CodeOK, `{"n":1}`},
		{"accepted data", Accepted{Data: map[string]int{"n": 2}}, nil, 202, apperr.CodeOK, `{"n":2}`},
		{"error", nil, apperr.NotFound("session"), 404, apperr.CodeNotFound, `null`},
		{"pending error", nil, fmt.Errorf("answer: %w", &stillWorking{progress: 40}), 202, apperr.CodeOK, `{"progress":40}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			c.Request = httptest.NewRequest("GET", "/x", nil)
			Respond(c, tt.data, tt.err)
			var env struct {
				Code string          `json:"code"`
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
				t.Fatal(err)
			}
			if w.Code != tt.wantStatus || env.Code != tt.wantCode || string(env.Data) != tt.wantData {
				t.Fatalf("Respond = %d %s %s, want %d %s %s", w.Code, env.Code, env.Data, tt.wantStatus, tt.wantCode, tt.wantData)
			}
		})
	}
}

func TestAdmin(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		name   string
		caller *auth.Caller
		want   int
	}{
		{"nobody", nil, 401},
		{"user", &auth.Caller{UserID: "1"}, 403},
		{"admin", &auth.Caller{UserID: "2", Admin: true}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gin.New()
			r.GET("/x", func(c *gin.Context) {
				if tt.caller != nil {
					SetCaller(c, *tt.caller)
				}
			}, Admin(), func(c *gin.Context) {
				caller, err := auth.Require(c.Request.Context())
				Respond(c, caller.UserID, err)
			})
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.want, w.Body)
			}
		})
	}
}

// OKJSON writes the bytes OK writes for the same data, in either language.
func TestOKJSONMatchesOK(t *testing.T) {
	gin.SetMode(gin.TestMode)
	data := map[string]any{"text": "<b>你好</b> & \"quotes\"", "n": 1.5, "list": []string{"a"}}
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"", "zh-CN"} {
		t.Run("lang="+lang, func(t *testing.T) {
			serve := func(write func(c *gin.Context)) *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				_, r := gin.CreateTestContext(w)
				r.Use(Middleware(slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), 1<<20)...)
				r.GET("/x", write)
				req := httptest.NewRequest("GET", "/x", nil)
				req.Header.Set("Accept-Language", lang)
				req.Header.Set(HeaderRequestID, "req-1")
				r.ServeHTTP(w, req)
				return w
			}
			want := serve(func(c *gin.Context) { OK(c, data) })
			got := serve(func(c *gin.Context) { OKJSON(c, raw) })
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Errorf("OKJSON: %d %s\nOK:     %d %s", got.Code, got.Body, want.Code, want.Body)
			}
			if g, w := got.Header().Get("Content-Type"), want.Header().Get("Content-Type"); g != w {
				t.Errorf("Content-Type %q, want %q", g, w)
			}
		})
	}
}
