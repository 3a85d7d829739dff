package ratelimit

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

func TestLimitsBucket(t *testing.T) {
	gin.SetMode(gin.TestMode)
	ls := NewLimits(New(nil, "", nil, 0), Bucket{Name: "a", Rate: 2, Burst: 2}, Bucket{Name: "b", Rate: 3, Burst: 3})
	r := gin.New()
	login := func(c *gin.Context) {
		if u := c.GetHeader("X-User"); u != "" {
			httpx.SetCaller(c, auth.Caller{UserID: u})
		}
	}
	ok := func(c *gin.Context) { httpx.Respond(c, nil, nil) }
	r.GET("/a", login, ls.Bucket("a"), ok)
	r.GET("/a2", login, ls.Bucket("a"), ok)
	r.GET("/b", login, ls.Bucket("b"), ok)
	allowed := func(path, user string, n int) (got int) {
		for range n {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("X-User", user)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			switch {
			case w.Code == 200:
				got++
			case w.Code != 429 || w.Header().Get("Retry-After") == "":
				t.Fatalf("GET %s = %d %v, want 200 or 429 with Retry-After", path, w.Code, w.Header())
			}
		}
		return got
	}
	// Allowing one more than the burst tolerates a token refilled meanwhile.
	tests := []struct {
		name, path, user string
		lo, hi           int
	}{
		{"bucket a for alice", "/a", "alice", 2, 3},
		{"another route of bucket a shares it", "/a2", "alice", 0, 1},
		{"bucket b is its own", "/b", "alice", 3, 4},
		{"bob has his own buckets", "/a", "bob", 2, 3},
		{"anonymous is limited by IP", "/a", "", 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := allowed(tt.path, tt.user, 6); got < tt.lo || got > tt.hi {
				t.Fatalf("allowed %d of 6, want %d..%d", got, tt.lo, tt.hi)
			}
		})
	}
}

func TestLimitsOff(t *testing.T) {
	gin.SetMode(gin.TestMode)
	ls := NewLimits(nil, Bucket{Name: "a", Rate: 1, Burst: 1})
	r := gin.New()
	r.GET("/a", ls.Bucket("a"), func(c *gin.Context) { httpx.Respond(c, nil, nil) })
	for range 5 {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/a", nil))
		if w.Code != 200 {
			t.Fatalf("status %d with limits off, want 200", w.Code)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Bucket of an unknown name did not panic")
		}
	}()
	ls.Bucket("nope")
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
	l := New(nil, "", nil, 0)
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
		ls = append(ls, New(rdb, prefix, nil, 0))
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
	l := New(rdb, "x:", nil, 0)
	got, shared := count(l, Bucket{Name: "t", Rate: 3, Burst: 3}, "k", 10)
	if shared || got < 3 || got > 4 {
		t.Fatalf("allowed %d (shared %v) with Redis down, want the local 3", got, shared)
	}
}

// A breaker opened by another user of Redis (shared) makes the limiter
// limit locally at once, and its success closes the breaker again.
func TestSharedBreakerSkipsRedis(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	br := redisx.NewBreaker(time.Hour)
	l := New(rdb, prefix, br, time.Second)
	br.Fail(errors.New("the token cache saw Redis fail"))
	if d := l.Allow(context.Background(), Bucket{Name: "t", Rate: 5, Burst: 5}, "k"); d.Shared {
		t.Fatal("the limiter used Redis while the shared breaker was open")
	}
	br.Ok()
	if d := l.Allow(context.Background(), Bucket{Name: "t", Rate: 5, Burst: 5}, "k"); !d.Shared {
		t.Fatal("the limiter did not use Redis once the breaker closed")
	}
}
