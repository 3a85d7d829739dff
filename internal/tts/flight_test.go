package tts_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// TestErrorCodec checks what a replayed synthesis failure says: the user
// message of a classified error, never an internal error's cause, and the
// original retryability.
func TestErrorCodec(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		msg   string
		retry bool
	}{
		{"classified", apperr.New(apperr.KindUpstream, "voice not available").AsRetryable(), "voice not available", true},
		{"internal hides its cause", apperr.Internal(errors.New("open /secret/path: denied")), "internal error", false},
		{"plain error", fmt.Errorf("espeak-ng: exit status 1"), "espeak-ng: exit status 1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c tts.ErrorCodec
			got := c.Decode(c.Encode(tt.err))
			e := apperr.As(got)
			if e == nil || e.Message != tt.msg || e.Retryable != tt.retry {
				t.Errorf("replayed %v as %#v, want message %q, retryable %v", tt.err, e, tt.msg, tt.retry)
			}
		})
	}
}
