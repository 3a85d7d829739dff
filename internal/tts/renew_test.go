package tts

import (
	"context"
	"errors"
	"testing"
	"time"
)

// heartbeatStore answers Heartbeat only; the other Store methods are not
// called by renew.
type heartbeatStore struct {
	Store
	ok  bool
	err error
}

func (s *heartbeatStore) Heartbeat(context.Context, string, string, time.Time) (bool, error) {
	return s.ok, s.err
}

// TestRenew checks each beat of a task's lease: renewed, lost to another
// owner, failing within the lease, failing past it, and after the end.
func TestRenew(t *testing.T) {
	down := errors.New("database unreachable")
	tests := []struct {
		name      string
		ok        bool
		err       error
		wait      time.Duration // before the beat
		stopped   bool          // the heartbeat's context is done
		wantMore  bool
		wantCause error
	}{
		{"renewed", true, nil, 0, false, true, nil},
		{"row no longer ours", false, nil, 0, false, false, errLost},
		{"error within the lease", false, down, 0, false, true, nil},
		{"error past the lease", false, down, 60 * time.Millisecond, false, false, errLost},
		{"after the end", true, nil, 0, true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{cfg: Config{InstanceID: "me", Lease: 50 * time.Millisecond}, store: &heartbeatStore{ok: tt.ok, err: tt.err}}
			task, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			hbCtx, stop := context.WithCancel(task)
			defer stop()
			beat := s.renew(hbCtx, "t1", cancel)
			if tt.stopped {
				stop()
			}
			time.Sleep(tt.wait)
			if got := beat(); got != tt.wantMore {
				t.Errorf("beat() = %v, want %v", got, tt.wantMore)
			}
			if got := context.Cause(task); got != tt.wantCause {
				t.Errorf("task cause = %v, want %v", got, tt.wantCause)
			}
		})
	}
}
