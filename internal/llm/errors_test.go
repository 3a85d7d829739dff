package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

func TestClassify(t *testing.T) {
	const key = "sk-planted-key-42"
	dialErr := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	resetErr := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	body := func(code string) []byte {
		return fmt.Appendf(nil, `{"error":{"message":"nope, key %s","type":"invalid_request_error","code":%q}}`, key, code)
	}
	tests := []struct {
		name      string
		f         failure
		kind      apperr.Kind
		retryable bool
		msg       string
	}{
		{"deadline", failure{ctxErr: context.DeadlineExceeded, err: errors.New("request timeout")}, apperr.KindTimeout, true, "in time"},
		{"400", failure{status: 400, body: body("invalid_request")}, apperr.KindUpstream, false, "model returned HTTP 400: nope, key [redacted]"},
		{"401", failure{status: 401, body: body("invalid_api_key")}, apperr.KindUpstream, false, "HTTP 401"},
		{"403", failure{status: 403, body: body("")}, apperr.KindUpstream, false, "HTTP 403"},
		{"404", failure{status: 404, body: body("model_not_found")}, apperr.KindUpstream, false, "HTTP 404"},
		{"422", failure{status: 422, body: body("")}, apperr.KindUpstream, false, "HTTP 422"},
		{"408", failure{status: 408}, apperr.KindTimeout, true, "HTTP 408"},
		{"429", failure{status: 429, body: body("rate_limit_exceeded")}, apperr.KindOverloaded, true, "HTTP 429"},
		{"500", failure{status: 500, body: []byte("<html>oops</html>")}, apperr.KindUpstream, true, "HTTP 500: <html>oops</html>"},
		{"503", failure{status: 503}, apperr.KindUpstream, true, "HTTP 503"},
		{"504", failure{status: 504}, apperr.KindTimeout, true, "HTTP 504"},
		{"ollama error body", failure{status: 404, body: []byte(`{"error":"model 'x' not found"}`)}, apperr.KindUpstream, false, "HTTP 404: model 'x' not found"},
		{"content filter code", failure{status: 400, body: body("content_filter")}, apperr.KindUpstream, false, "refused on content policy"},
		{"content policy type", failure{status: 400, body: []byte(`{"error":{"message":"no","type":"content_policy_violation"}}`)}, apperr.KindUpstream, false, "refused on content policy"},
		{"content filter finish", failure{finishReason: "content_filter"}, apperr.KindUpstream, false, "refused on content policy"},
		{"dial refused", failure{transportErr: dialErr, err: errors.New("network error: failed to reach API server")}, apperr.KindUnavailable, true, "connection refused"},
		{"reset", failure{transportErr: resetErr}, apperr.KindUnavailable, true, "connection reset"},
		{"EOF mid-response", failure{status: 200, transportErr: io.ErrUnexpectedEOF, err: io.ErrUnexpectedEOF}, apperr.KindUnavailable, true, "closed mid-response"},
		{"network timeout", failure{transportErr: timeoutErr{}}, apperr.KindTimeout, true, "in time"},
		{"library timeout only", failure{err: errors.New("request timeout: network operation exceeded timeout")}, apperr.KindTimeout, true, "in time"},
		{"library network error only", failure{err: errors.New("network error: failed to reach API server")}, apperr.KindUnavailable, true, "cannot reach"},
		{"malformed 200", failure{status: 200, err: errors.New("invalid character 'x'")}, apperr.KindUpstream, true, "unusable response"},
		{"key in cause", failure{transportErr: fmt.Errorf("dial %s: refused", key)}, apperr.KindUnavailable, true, "cannot reach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.provider, tt.f.apiKey = "openai", key
			err := classify(tt.f)
			e := apperr.As(err)
			if e == nil {
				t.Fatalf("classify = %v, want an *apperr.Error", err)
			}
			if e.Kind != tt.kind || e.Retryable != tt.retryable {
				t.Errorf("kind %d retryable %v, want kind %d retryable %v (%v)", e.Kind, e.Retryable, tt.kind, tt.retryable, err)
			}
			wantCode := map[apperr.Kind]string{
				apperr.KindTimeout: apperr.CodeAITimeout, apperr.KindUnavailable: apperr.CodeAIUnavailable,
				apperr.KindOverloaded: apperr.CodeAIOverloaded, apperr.KindUpstream: apperr.CodeAIUpstream,
			}[tt.kind]
			if e.Code != wantCode {
				t.Errorf("code = %s, want %s", e.Code, wantCode)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", e.Message, tt.msg)
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
}

func TestClassifyCancelAndSuccess(t *testing.T) {
	err := classify(failure{provider: "openai", ctxErr: context.Canceled, err: errors.New("request cancelled")})
	if !errors.Is(err, context.Canceled) || apperr.As(err) != nil {
		t.Errorf("cancelled: got %#v, want a plain wrapped context.Canceled", err)
	}
	if err := classify(failure{provider: "openai", status: 200, finishReason: "stop"}); err != nil {
		t.Errorf("success: got %v, want nil", err)
	}
}

func TestClassifyKeepsCause(t *testing.T) {
	err := classify(failure{transportErr: io.ErrUnexpectedEOF, err: fmt.Errorf("reading: %w", io.ErrUnexpectedEOF)})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = false, want true", err)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a b c d e f g", []string{"a b c ", "d e f ", "g"}},
		{"  lead  spaces here now", []string{"  lead  spaces here ", "now"}},
	}
	for _, tt := range tests {
		got := splitWords(tt.in, 3)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || strings.Join(got, "") != tt.in {
			t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
