package tts

import (
	"errors"
	"fmt"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// FlightPolicy is the single-flight policy of Stage: the design's defaults
// with the TTS error codec.
func FlightPolicy() singleflight.Policy {
	p := singleflight.DefaultPolicy()
	p.Codec = ErrorCodec{}
	return p
}

// ErrorCodec stores a failed synthesis as what a task row records of it:
// the message a user may read (an internal error's cause is not stored) and
// whether a retry may succeed. A replayed failure is an upstream error with
// that message.
type ErrorCodec struct{}

var _ singleflight.ErrorCodec = ErrorCodec{}

// Encode implements singleflight.ErrorCodec.
func (ErrorCodec) Encode(err error) singleflight.Failure {
	f := singleflight.DefaultErrorCodec{}.Encode(err)
	if e := apperr.As(err); e != nil {
		f.Message = e.Message
	}
	return f
}

// Decode implements singleflight.ErrorCodec.
func (ErrorCodec) Decode(f singleflight.Failure) error {
	return &apperr.Error{Kind: apperr.KindUpstream, Code: f.Code, Message: f.Message, Retryable: f.Retryable}
}

// errFlightsUnavailable is singleflight.ErrRedisUnavailable as a task sees it.
var errFlightsUnavailable = apperr.New(apperr.KindUnavailable, "single-flight coordination store (Redis) unavailable").AsRetryable()

// flightError gives the single-flight's Redis failure its meaning for a
// task (a retryable unavailable error, the sentinel kept in the chain).
func flightError(err error) error {
	if errors.Is(err, singleflight.ErrRedisUnavailable) {
		return fmt.Errorf("%w: %w", errFlightsUnavailable, err)
	}
	return err
}
