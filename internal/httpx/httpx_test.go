package httpx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{apperr.Invalid("x"), 400, apperr.CodeBadRequest},
		{fmt.Errorf("wrapped: %w", apperr.NotFound("session")), 404, apperr.CodeNotFound},
		{apperr.New(apperr.KindTimeout, "slow").WithCode(apperr.CodeAITimeout), 504, apperr.CodeAITimeout},
		{apperr.New(apperr.KindOverloaded, "full"), 503, apperr.CodeAIOverloaded},
		{apperr.New(apperr.KindUpstream, "bad"), 502, apperr.CodeAIUpstream},
		{context.DeadlineExceeded, 504, apperr.CodeAITimeout},
		{errors.New("bug"), 500, apperr.CodeInternal},
		{&http.MaxBytesError{Limit: 10}, 413, apperr.CodeTooLarge},
		{fmt.Errorf("create session: %w", apperr.New(apperr.KindUnavailable, "db busy").WithCode(apperr.CodeUnavailable)), 503, apperr.CodeUnavailable},
		{fmt.Errorf("load: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), 503, apperr.CodeUnavailable},
		{errors.New("Error 1062: Duplicate entry"), 500, apperr.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			status, e := StatusOf(tt.err)
			if status != tt.status || e.Code != tt.code {
				t.Fatalf("StatusOf = %d %s, want %d %s", status, e.Code, tt.status, tt.code)
			}
			if status == 500 && e.Message != "internal error" {
				t.Fatalf("internal message %q leaks the cause", e.Message)
			}
		})
	}
}

func TestJSONDepth(t *testing.T) {
	tests := map[string]int{`{}`: 1, `{"a":[1,{"b":2}]}`: 3, `"[[[["`: 0, `{"a":"\"[["}`: 1, `1`: 0}
	for in, want := range tests {
		if got := jsonDepth([]byte(in)); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", in, got, want)
		}
	}
}

func TestCORS(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		name        string
		origins     []string
		credentials bool
		origin      string
		wantAllow   string
		wantCreds   string
	}{
		{"no config", nil, false, "https://a.example", "", ""},
		{"listed origin", []string{"https://a.example"}, true, "https://a.example", "https://a.example", "true"},
		{"unlisted origin", []string{"https://a.example"}, true, "https://b.example", "", ""},
		{"wildcard without credentials", []string{"*"}, false, "https://b.example", "*", ""},
		{"wildcard never with credentials", []string{"*"}, true, "https://b.example", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gin.New()
			r.Use(CORS(tt.origins, tt.credentials))
			r.GET("/x", func(c *gin.Context) { c.String(200, "ok") })
			req := httptest.NewRequest("GET", "/x", nil)
			req.Header.Set("Origin", tt.origin)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tt.wantAllow {
				t.Fatalf("Allow-Origin = %q, want %q", got, tt.wantAllow)
			}
			if got := w.Header().Get("Access-Control-Allow-Credentials"); got != tt.wantCreds {
				t.Fatalf("Allow-Credentials = %q, want %q", got, tt.wantCreds)
			}
		})
	}
}

func TestPageRequest(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		query string
		ok    bool
	}{
		{"", true},
		{"current=3&size=20", true},
		{"current=92233720368547758&size=100", true},
		{"current=9223372036854775807&size=100", false},
		{"current=92233720368547759&size=100", false},
		{"current=99999999999999999999&size=100", false},
		{"current=0", false},
		{"size=101", false},
		{"pageNum=0", false},
		{"pageSize=101", false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			c, _ := gin.CreateTestContext(httptest.NewRecorder())
			c.Request = httptest.NewRequest(http.MethodGet, "/x?"+tt.query, nil)
			p, err := PageRequest(c)
			if got := err == nil; got != tt.ok {
				t.Fatalf("PageRequest(%s) = %+v, %v; want ok=%v", tt.query, p, err, tt.ok)
			}
			if err != nil {
				if status, _ := StatusOf(err); status != http.StatusBadRequest {
					t.Fatalf("status %d for %v, want 400", status, err)
				}
				return
			}
			if p.Offset() < 0 {
				t.Fatalf("offset %d < 0 for %s", p.Offset(), tt.query)
			}
		})
	}
}

// TestPageRequestAliases: the original's pageNum/pageSize name the page
// when current/size are absent.
func TestPageRequestAliases(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		query         string
		current, size int
	}{
		{"pageNum=3&pageSize=20", 3, 20},
		{"current=2&pageNum=5&pageSize=7", 2, 7},
		{"current=2&size=4&pageNum=5&pageSize=7", 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			c, _ := gin.CreateTestContext(httptest.NewRecorder())
			c.Request = httptest.NewRequest(http.MethodGet, "/x?"+tt.query, nil)
			p, err := PageRequest(c)
			if err != nil || p.Current != tt.current || p.Size != tt.size {
				t.Fatalf("PageRequest(%s) = %+v, %v; want current %d size %d", tt.query, p, err, tt.current, tt.size)
			}
		})
	}
}
