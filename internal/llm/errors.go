package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

// failure is everything known about a failed call, gathered from the
// caller's context, the recorded exchange and the client library.
type failure struct {
	provider     string // for messages, e.g. "openai"
	ctxErr       error  // the caller's ctx.Err() when the call returned
	status       int    // HTTP status of the response, 0 if none arrived
	body         []byte // body of a non-2xx response
	transportErr error  // error from the round trip or from reading the body
	err          error  // error returned by the client library
	finishReason string // finish reason of a successful response
	apiKey       string // redacted from every message
	apiSecret    string // likewise
	baseURL      string // its secrets (redact.Secrets) too
}

// classify turns a failure into the error a Provider returns: the caller's
// cancellation wraps context.Canceled, everything else is an *apperr.Error.
// It returns nil when nothing failed.
func classify(f failure) error {
	red := redactor(f.apiKey, f.baseURL, f.apiSecret)
	cause := f.err
	if cause == nil {
		cause = f.transportErr
	}
	mk := func(kind apperr.Kind, retryable bool, format string, args ...any) error {
		e := apperr.New(kind, "%s", red(fmt.Sprintf(format, args...)))
		e.Retryable = retryable
		if cause != nil {
			e.Err = redactedError{err: cause, msg: red(cause.Error())}
		}
		return e
	}

	switch {
	case errors.Is(f.ctxErr, context.DeadlineExceeded):
		return mk(apperr.KindTimeout, true, "model did not answer in time")
	case f.ctxErr != nil:
		return fmt.Errorf("llm: %s call cancelled: %w", f.provider, f.ctxErr)
	case f.status != 0 && (f.status < 200 || f.status > 299):
		// The message says all the library's error would (status and
		// server message), so it is not repeated as the cause.
		cause = nil
		return classifyStatus(f.status, f.body, mk)
	case f.transportErr != nil:
		// A client Timeout surfaces as a cancellation in the transport but
		// as a timeout from the client.
		if isTimeout(f.transportErr) || isTimeout(f.err) || isLibTimeout(f.err) {
			return mk(apperr.KindTimeout, true, "model did not answer in time")
		}
		return mk(apperr.KindUnavailable, true, "cannot reach the model (%s)", connectionProblem(f.transportErr))
	case f.err != nil:
		if isTimeout(f.err) || isLibTimeout(f.err) {
			return mk(apperr.KindTimeout, true, "model did not answer in time")
		}
		if strings.Contains(f.err.Error(), "network error") {
			return mk(apperr.KindUnavailable, true, "cannot reach the model")
		}
		// A 2xx answer the library could not use: empty or malformed.
		return mk(apperr.KindUpstream, true, "model returned an unusable response")
	case isContentFilter(f.finishReason):
		return mk(apperr.KindUpstream, false, "model refused on content policy")
	}
	return nil
}

// classifyStatus classifies a non-2xx HTTP response.
func classifyStatus(status int, body []byte, mk func(apperr.Kind, bool, string, ...any) error) error {
	msg, code, typ := parseErrorBody(body)
	detail := fmt.Sprintf("model returned HTTP %d", status)
	if msg != "" {
		detail += ": " + msg
	}
	switch {
	case isContentFilter(code) || isContentFilter(typ):
		return mk(apperr.KindUpstream, false, "model refused on content policy (%s)", detail)
	case status == http.StatusTooManyRequests:
		return mk(apperr.KindOverloaded, true, "%s", detail)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return mk(apperr.KindTimeout, true, "%s", detail)
	case status >= 500:
		return mk(apperr.KindUpstream, true, "%s", detail)
	default: // 3xx that were not followed, 400, 401, 403, 404, 422 and other 4xx
		return mk(apperr.KindUpstream, false, "%s", detail)
	}
}

// parseErrorBody extracts message, code and type from the error bodies that
// OpenAI-compatible servers ({"error": {"message", "code", "type"}}), Ollama
// ({"error": "..."}) and others ({"message": "..."}) send. Unknown bodies
// yield their first line.
func parseErrorBody(body []byte) (msg, code, typ string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Code    any             `json:"code"`
	}
	if json.Unmarshal(body, &v) != nil {
		line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
		return truncate(line, 300), "", ""
	}
	var nested struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	var flat string
	switch {
	case json.Unmarshal(v.Error, &nested) == nil && (nested.Message != "" || nested.Type != "" || nested.Code != nil):
		msg, typ, code = nested.Message, nested.Type, stringOf(nested.Code)
	case json.Unmarshal(v.Error, &flat) == nil && flat != "":
		msg = flat
	default:
		msg, code = v.Message, stringOf(v.Code)
	}
	return truncate(msg, 300), code, typ
}

func stringOf(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// isContentFilter reports whether s names a content-policy refusal, as an
// error code or type or as a finish reason.
func isContentFilter(s string) bool {
	s = strings.ToLower(s)
	return s == "content_filter" || s == "content_policy_violation" || s == "sensitive" ||
		strings.Contains(s, "content_filter") || strings.Contains(s, "content_policy")
}

// isTimeout reports whether err is a deadline or network timeout.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isLibTimeout reports whether err is langchaingo's flattened timeout
// ("request timeout: ...").
func isLibTimeout(err error) bool {
	return err != nil && strings.Contains(err.Error(), "request timeout")
}

// connectionProblem names a connection failure without echoing addresses
// or headers.
func connectionProblem(err error) string {
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return "connection refused or host unreachable"
	case errors.Is(err, net.ErrClosed), strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	case strings.Contains(err.Error(), "EOF"):
		return "connection closed mid-response"
	default:
		return "connection failed"
	}
}

// redactedError keeps the cause's chain for errors.Is/As but prints a
// message with the API key removed.
type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// redactor returns a function that replaces key and the secrets inside
// baseURL (its password and key or token query values) in a string:
// transport errors quote the whole request URL.
func redactor(key, baseURL string, more ...string) func(string) string {
	return func(s string) string {
		// A key shorter than 4 bytes is a placeholder, not a secret, and
		// too short to search for without mangling messages.
		for _, k := range append([]string{key}, more...) {
			if len(k) >= 4 {
				s = strings.ReplaceAll(s, k, "[redacted]")
			}
		}
		return redact.Text(s, baseURL)
	}
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
