// Package httpx is the HTTP edge shared by every domain: the response
// envelope, the one place that maps errors to statuses and codes, request
// ids, logging, recovery, CORS, metrics and request decoding with limits.
// Domain packages stay free of it except for their handler.go files.
package httpx

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Envelope is the body of every REST response.
type Envelope struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Data      any    `json:"data"`
	RequestID string `json:"requestId"`
}

// OK writes data in a success envelope with status 200.
func OK(c *gin.Context, data any) { Status(c, http.StatusOK, data) }

// Status writes data in a success envelope with the given status.
func Status(c *gin.Context, status int, data any) {
	c.JSON(status, Envelope{Code: apperr.CodeOK, Message: Text(c, "success"), Data: data, RequestID: RequestID(c)})
}

// OKJSON writes data, already encoded, in a success envelope with status
// 200: the bytes c.JSON would write for OK(c, data) without decoding and
// encoding data again.
func OKJSON(c *gin.Context, data json.RawMessage) {
	b := make([]byte, 0, len(data)+96)
	b = append(b, `{"code":`...)
	b = appendJSONString(b, apperr.CodeOK)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, Text(c, "success"))
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, `,"requestId":`...)
	b = appendJSONString(b, RequestID(c))
	b = append(b, '}')
	c.Data(http.StatusOK, "application/json; charset=utf-8", b)
}

// appendJSONString appends s encoded as encoding/json encodes a string.
func appendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s) // a string always encodes
	return append(b, enc...)
}

// statusOf maps an error kind to its HTTP status.
var statusOf = map[apperr.Kind]int{
	apperr.KindInternal:         http.StatusInternalServerError,
	apperr.KindInvalid:          http.StatusBadRequest,
	apperr.KindUnauthenticated:  http.StatusUnauthorized,
	apperr.KindForbidden:        http.StatusForbidden,
	apperr.KindNotFound:         http.StatusNotFound,
	apperr.KindConflict:         http.StatusConflict,
	apperr.KindTooLarge:         http.StatusRequestEntityTooLarge,
	apperr.KindUnprocessable:    http.StatusUnprocessableEntity,
	apperr.KindRateLimited:      http.StatusTooManyRequests,
	apperr.KindUpstream:         http.StatusBadGateway,
	apperr.KindUnavailable:      http.StatusServiceUnavailable,
	apperr.KindTimeout:          http.StatusGatewayTimeout,
	apperr.KindOverloaded:       http.StatusServiceUnavailable,
	apperr.KindMethodNotAllowed: http.StatusMethodNotAllowed,
}

// StatusOf returns the HTTP status and the application error for err.
// Unclassified errors become 500 internal errors.
func StatusOf(err error) (int, *apperr.Error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, apperr.New(apperr.KindTooLarge, "request body larger than %d bytes", mbe.Limit)
	}
	e := apperr.As(err)
	if e == nil {
		// Database failures arrive translated by the stores (db.Translate);
		// a dependency that could not be reached at all is still a 503.
		var ne *net.OpError
		if errors.As(err, &ne) {
			e = apperr.New(apperr.KindUnavailable, "a service the server depends on is unreachable; retry shortly").
				WithCode(apperr.CodeUnavailable).AsRetryable().WithCause(err)
		} else if apperr.KindOf(err) == apperr.KindTimeout {
			e = apperr.New(apperr.KindTimeout, "the request timed out").WithCause(err)
		} else {
			e = apperr.Internal(err)
		}
	}
	status, ok := statusOf[e.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	return status, e
}

// Error writes err as an error envelope with its status. Internal errors are
// logged once, with the request id; their cause never reaches the client.
func Error(c *gin.Context, err error) {
	status, e := StatusOf(err)
	switch {
	case status >= 500 && e.Kind == apperr.KindInternal:
		Logger(c).Error("internal error", "err", err, "method", c.Request.Method, "path", c.FullPath())
	case status >= 500 && e.Err != nil:
		Logger(c).Warn("dependency failure", "err", err, "status", status, "path", c.FullPath())
	}
	if e.Kind == apperr.KindRateLimited {
		if ra, ok := e.Data.(RetryAfter); ok {
			c.Header("Retry-After", strconv.Itoa(ra.Seconds))
		}
	}
	c.AbortWithStatusJSON(status, Envelope{Code: e.Code, Message: Message(c, e), Data: e.Data, RequestID: RequestID(c)})
}

// RetryAfter is the data of a rate-limited error: the client should wait
// that many seconds.
type RetryAfter struct {
	Seconds int `json:"retryAfterSeconds"`
}

// Logger returns the request-scoped logger (with the request id).
func Logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}

// Accepted is data answered with 202 Accepted instead of 200: the request
// was taken and its work goes on; the client polls for the result.
type Accepted struct{ Data any }

// Pending is an error that is no failure: the work the request started
// goes on. Respond answers it with 202 Accepted and Accepted() as the data.
type Pending interface {
	error
	Accepted() any
}

// Respond is how every handler answers: data in a success envelope (202
// when data is an Accepted), or err through Error (202 when err is a
// Pending).
func Respond(c *gin.Context, data any, err error) {
	var pending Pending
	switch {
	case errors.As(err, &pending):
		Status(c, http.StatusAccepted, pending.Accepted())
	case err != nil:
		Error(c, err)
	default:
		if a, ok := data.(Accepted); ok {
			Status(c, http.StatusAccepted, a.Data)
			return
		}
		OK(c, data)
	}
}
