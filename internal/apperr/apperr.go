// Package apperr defines the application's error type: a kind that decides the
// HTTP status, a stable envelope code that clients read, a message that says
// what to fix, and whether retrying the same call may succeed.
//
// Domain packages return *Error values (or wrap them with %w); the HTTP edge
// maps them to a response in one place. The package imports no framework.
package apperr

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// The kinds, from the client's mistakes to the server's.
const (
	KindInternal         Kind = iota // a bug: 500
	KindInvalid                      // bad input: 400
	KindUnauthenticated              // not logged in: 401
	KindForbidden                    // logged in but not allowed: 403
	KindNotFound                     // missing, or not the caller's: 404
	KindConflict                     // state conflict or still in progress: 409
	KindTooLarge                     // body or upload too large: 413
	KindUnprocessable                // well-formed but unusable upload: 422
	KindRateLimited                  // too many requests: 429
	KindUpstream                     // the model answered with an error or garbage: 502
	KindUnavailable                  // the model or a dependency cannot be reached: 503
	KindTimeout                      // the model did not answer in time: 504
	KindOverloaded                   // bulkhead full or circuit open: 503
	KindMethodNotAllowed             // a known path asked with another method: 405
)

// Stable envelope codes (api.md).
const (
	CodeOK               = "0"
	CodeBadRequest       = "A000001"
	CodeMethodNotAllowed = "A000405" // the path exists, not with this method (the Allow header lists them)
	CodeUnauthenticated  = "A000200"
	CodeRateLimited      = "A000300"
	CodeInternal         = "B000001"
	CodeUnavailable      = "B000002" // a dependency (the database) is busy or unreachable
	CodeForbidden        = "A000403"
	CodeNotFound         = "A000404"
	CodeConflict         = "A000409"
	CodeTooLarge         = "A000413"
	CodeUnprocessable    = "A000422"
	CodeSessionMissing   = "B000412"
	CodeAccessDenied     = "B000413"
	CodeInvalidState     = "B000414"
	CodeAITimeout        = "B000415"
	CodeAIOverloaded     = "B000416"
	CodeAIUnavailable    = "B000417"
	CodeAIUpstream       = "B000418"
)

// Error is the application error. Message is safe to show to the client; Err
// (the cause) is for logs only.
type Error struct {
	Kind Kind
	Code string
	// Message is the English text; MessageIn renders it in another
	// language from Format and Args.
	Message   string
	Retryable bool
	Err       error
	// Data is optional structured detail returned in the envelope's data
	// (for example the current question on a stale answer).
	Data any
	// Format and Args are what New made Message from: the catalog
	// (catalog_zh.go) is keyed by Format. Errors built without New (a
	// replayed failure) leave them empty; MessageIn then matches Message.
	Format string
	Args   []any
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the envelope code.
func (e *Error) ErrorCode() string { return e.Code }

// IsRetryable reports whether the same call may succeed when repeated.
func (e *Error) IsRetryable() bool { return e.Retryable }

// defaultCode is the envelope code of each kind when none is given.
var defaultCode = map[Kind]string{
	KindInternal:         CodeInternal,
	KindInvalid:          CodeBadRequest,
	KindUnauthenticated:  CodeUnauthenticated,
	KindForbidden:        CodeForbidden,
	KindNotFound:         CodeNotFound,
	KindConflict:         CodeConflict,
	KindTooLarge:         CodeTooLarge,
	KindUnprocessable:    CodeUnprocessable,
	KindRateLimited:      CodeRateLimited,
	KindUpstream:         CodeAIUpstream,
	KindUnavailable:      CodeAIUnavailable,
	KindTimeout:          CodeAITimeout,
	KindOverloaded:       CodeAIOverloaded,
	KindMethodNotAllowed: CodeMethodNotAllowed,
}

// New returns an error of kind with the kind's default code.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: defaultCode[kind], Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// WithCode returns a copy of e with another envelope code.
func (e *Error) WithCode(code string) *Error {
	c := *e
	c.Code = code
	return &c
}

// WithCause returns a copy of e that wraps cause.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

// WithData returns a copy of e that carries data for the envelope.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

// AsRetryable returns a copy of e marked retryable.
func (e *Error) AsRetryable() *Error {
	c := *e
	c.Retryable = true
	return &c
}

// Invalid is a 400 with a message saying what to fix.
func Invalid(format string, args ...any) *Error { return New(KindInvalid, format, args...) }

// NotFound says that what (e.g. "conversation") does not exist or is not
// the caller's. what is a noun from a closed set, translated by the
// catalog (Word).
func NotFound(what string) *Error { return New(KindNotFound, "%s not found", Word(what)) }

// Conflict is a 409.
func Conflict(format string, args ...any) *Error { return New(KindConflict, format, args...) }

// Unauthenticated is a 401.
func Unauthenticated(format string, args ...any) *Error {
	return New(KindUnauthenticated, format, args...)
}

// Forbidden is a 403.
func Forbidden(format string, args ...any) *Error { return New(KindForbidden, format, args...) }

// Internal wraps an unexpected error; its message never reaches the client.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: CodeInternal, Message: "internal error", Format: "internal error", Err: err}
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// KindOf returns the kind of err: the kind of its *Error, KindTimeout for a
// context deadline, KindInternal otherwise.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Kind
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout
	}
	return KindInternal
}

// IsRetryable reports whether err says a repeat may succeed. Errors that carry
// no classification (bugs, plain errors) are not retryable; a deadline is.
func IsRetryable(err error) bool {
	if e := As(err); e != nil {
		return e.Retryable
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// Is reports whether err is an *Error of kind.
func Is(err error, kind Kind) bool {
	e := As(err)
	return e != nil && e.Kind == kind
}
