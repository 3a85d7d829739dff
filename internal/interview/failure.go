package interview

import (
	"context"
	"errors"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Messages a candidate reads when the AI work of an upload or an answer
// fails. The technical cause ("model output for … is unusable", a
// provider's status) stays in the error's cause, which the HTTP edge logs
// with the request id; the envelope carries the request id for support.
const (
	msgUploadUnusable = "the AI could not read your resume this time; please try again"
	msgUploadTimeout  = "the AI took too long to read your resume; please try again"
	msgUploadBusy     = "the AI service is busy or unreachable right now; please try again in a minute"
	msgAnswerUnusable = "the AI could not evaluate your answer this time; your answer is saved, please send it again"
	msgAnswerTimeout  = "the AI took too long to evaluate your answer; your answer is saved, please send it again"
	msgAnswerBusy     = "the AI service is busy or unreachable right now; your answer is saved, please send it again in a minute"
)

// candidateError rewords a failed AI stage of kind (ProgressUpload or
// ProgressAnswer) for the candidate, keeping its kind, code, retryable flag
// and data, with err as the cause. Errors the candidate can act on as they
// are (a 4xx, a request still running elsewhere) are returned unchanged.
func candidateError(kind string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	e := apperr.As(err)
	if e == nil {
		e = apperr.Internal(err)
	}
	var out *apperr.Error
	upload := kind == ProgressUpload
	switch {
	case (e.Kind == apperr.KindUpstream || e.Kind == apperr.KindInternal) && upload:
		out = apperr.New(e.Kind, msgUploadUnusable)
	case e.Kind == apperr.KindUpstream || e.Kind == apperr.KindInternal:
		out = apperr.New(e.Kind, msgAnswerUnusable)
	case e.Kind == apperr.KindTimeout && upload:
		out = apperr.New(e.Kind, msgUploadTimeout)
	case e.Kind == apperr.KindTimeout:
		out = apperr.New(e.Kind, msgAnswerTimeout)
	case (e.Kind == apperr.KindUnavailable || e.Kind == apperr.KindOverloaded) && upload:
		out = apperr.New(e.Kind, msgUploadBusy)
	case e.Kind == apperr.KindUnavailable || e.Kind == apperr.KindOverloaded:
		out = apperr.New(e.Kind, msgAnswerBusy)
	default:
		return err
	}
	out = out.WithCode(e.Code).WithCause(err).WithData(e.Data)
	out.Retryable = e.Retryable || e.Kind != apperr.KindInternal
	return out
}
