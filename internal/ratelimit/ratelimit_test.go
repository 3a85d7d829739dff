package ratelimit

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		method, route string
		want          string
	}{
		{"POST", "/api/xunzhi/v1/interview/sessions/:sid/interview/answer-json", "answer"},
		{"POST", "/api/xunzhi/v1/interview/sessions/:sid/interview/answer", "answer"},
		{"POST", "/api/xunzhi/v1/interview/sessions/:sid/interview-questions", "heavy"},
		{"POST", "/api/xunzhi/v1/interview/sessions/:sid/demeanor-evaluation", "heavy"},
		{"GET", "/api/xunzhi/v1/interview/sessions/:sid/current-question", "read"},
		{"PUT", "/api/xunzhi/v1/interview/sessions/:sid/finish", "default"},
		{"GET", "/api/xunzhi/v1/users/me", "default"},
	}
	for _, tt := range tests {
		if got := DefaultBuckets.Classify(tt.method, tt.route).Name; got != tt.want {
			t.Errorf("Classify(%s %s) = %s, want %s", tt.method, tt.route, got, tt.want)
		}
	}
}

func count(l *Limiter, b Bucket, key string, n int) (allowed int, shared bool) {
	for range n {
		d := l.Allow(context.Background(), b, key)
		if d.Allowed {
			allowed++
		} else if d.RetryAfter <= 0 {
			panic("denied without a Retry-After")
		}
		shared = d.Shared
	}
	return allowed, shared
}

func TestLocalLimit(t *testing.T) {
	l := New(nil, "")
	b := Bucket{Name: "t", Rate: 5, Burst: 5}
	if got, shared := count(l, b, "alice", 20); got < 5 || got > 6 || shared {
		t.Fatalf("allowed %d of 20 at 5/s locally (shared %v), want 5 or 6", got, shared)
	}
	if got, _ := count(l, b, "bob", 5); got != 5 {
		t.Fatalf("another key allowed %d, want its own 5", got)
	}
}

// Two instances with their own Redis clients share one budget.
func TestSharedAcrossInstances(t *testing.T) {
	_, prefix := testenv.Redis(t)
	var ls []*Limiter
	for range 2 {
		rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr()})
		t.Cleanup(func() { _ = rdb.Close() })
		ls = append(ls, New(rdb, prefix))
	}
	b := Bucket{Name: "answer", Rate: 8, Burst: 8}
	total := 0
	for i := range 20 {
		a, shared := count(ls[i%2], b, "u:1", 1)
		if !shared {
			t.Fatal("decision not from Redis")
		}
		total += a
	}
	if total < 8 || total > 9 {
		t.Fatalf("two instances allowed %d of 20 at 8/s, want 8 (9 if a token refilled)", total)
	}
}

// When Redis fails the limiter falls back to local limits instead of
// failing open or closed.
func TestRedisDownFallsBackToLocal(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	l := New(rdb, "x:")
	got, shared := count(l, Bucket{Name: "t", Rate: 3, Burst: 3}, "k", 10)
	if shared || got < 3 || got > 4 {
		t.Fatalf("allowed %d (shared %v) with Redis down, want the local 3", got, shared)
	}
}
