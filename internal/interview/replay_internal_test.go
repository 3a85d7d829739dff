package interview

import (
	"testing"
	"time"
)

// A cached replay is served only within the replay window of its turn.
func TestReplayCacheWindow(t *testing.T) {
	c := newReplayCache(2)
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c.put("u1", "s1", "r1", &AnswerResp{SessionID: "s1", QuestionNumber: "1"}, created)
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"just stored", created, true},
		{"last instant of the window", created.Add(replayFor - time.Nanosecond), true},
		{"window over", created.Add(replayFor), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := c.get("u1", "s1", "r1", tc.at); ok != tc.want {
				t.Errorf("get at %s = %v, want %v", tc.at, ok, tc.want)
			}
		})
	}
	if _, ok := c.get("u2", "s1", "r1", created); ok {
		t.Error("another user's key hit")
	}
}
