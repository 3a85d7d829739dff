package interview_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

func TestRedisProgress(t *testing.T) {
	ctx := context.Background()
	p := interview.Progress{RequestID: "r1", Kind: interview.ProgressAnswer, Step: interview.StepScoring,
		StartedAt: time.Now().UTC().Truncate(time.Millisecond)}

	t.Run("shared by instances", func(t *testing.T) {
		rdb, prefix := testenv.Redis(t)
		a := interview.NewRedisProgress(rdb, prefix, nil, time.Second)
		b := interview.NewRedisProgress(rdb, prefix, nil, time.Second)
		if err := a.PutProgress(ctx, "s1", p); err != nil {
			t.Fatal(err)
		}
		got, ok, err := b.Progress(ctx, "s1", "r1")
		if err != nil || !ok || got.Step != p.Step || !got.StartedAt.Equal(p.StartedAt) {
			t.Fatalf("other instance read %+v %v %v", got, ok, err)
		}
		if _, ok, _ := b.Progress(ctx, "s2", "r1"); ok {
			t.Fatal("progress of another session's request")
		}
		if ttl := rdb.TTL(ctx, prefix+"interview:progress:s1|r1").Val(); ttl <= 0 || ttl > interview.ProgressTTL {
			t.Fatalf("ttl %s", ttl)
		}
	})
	t.Run("redis down: this instance's copy", func(t *testing.T) {
		down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
		defer down.Close()
		s := interview.NewRedisProgress(down, "x:", nil, 200*time.Millisecond)
		if err := s.PutProgress(ctx, "s1", p); err == nil {
			t.Fatal("put to a dead Redis reported no error")
		}
		got, ok, err := s.Progress(ctx, "s1", "r1")
		if err != nil || !ok || got.Step != p.Step {
			t.Fatalf("local copy: %+v %v %v", got, ok, err)
		}
	})
}
