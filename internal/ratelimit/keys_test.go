package ratelimit

import (
	"context"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// The limiter writes its buckets under the prefix it is given, not under
// redis_rate's own "rate:" (issue 16: every key under redis.key-prefix).
func TestKeysUnderPrefix(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	l := New(rdb, prefix, nil, 0)
	if _, shared := count(l, Bucket{Name: "answer", Rate: 8, Burst: 8}, "u:1", 3); !shared {
		t.Fatal("decision not from Redis")
	}
	ctx := context.Background()
	if n, err := rdb.Exists(ctx, prefix+"answer:u:1").Result(); err != nil || n != 1 {
		t.Fatalf("EXISTS %sanswer:u:1 = %d, %v; want the bucket under the prefix", prefix, n, err)
	}
	if n, err := rdb.Exists(ctx, "rate:"+prefix+"answer:u:1").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS rate:%sanswer:u:1 = %d, %v; want no key outside the prefix", prefix, n, err)
	}
}
