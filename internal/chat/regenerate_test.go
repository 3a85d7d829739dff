package chat

import (
	"context"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// TestRegenerateReplacesTheLastAnswer runs on SQLite and MariaDB: the new
// answer takes the old one's sequence number, the count is unchanged, and
// of regenerations released together exactly one wins (the others see the
// answer being written: a 409).
func TestRegenerateReplacesTheLastAnswer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := MustService(t, gdb)
		conv := MustConversation(t, svc, "u1")
		if _, err := svc.PrepareRegenerate(ctx, "u1", conv.ID, ScopeChat, RegenerateInput{}, nil); !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("regenerate with no answer: %v, want a conflict", err)
		}
		if _, err := send(ctx, svc, ScopeChat, "u1", conv.ID, "first"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.PrepareRegenerate(ctx, "u2", conv.ID, ScopeChat, RegenerateInput{}, nil); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("another user's regenerate: %v, want not found", err)
		}

		const n = 6
		var wg sync.WaitGroup
		start := make(chan struct{})
		turns := make([]*Turn, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				turns[i], errs[i] = svc.PrepareRegenerate(ctx, "u1", conv.ID, ScopeChat, RegenerateInput{}, nil)
			}()
		}
		close(start)
		wg.Wait()
		var won *Turn
		for i, err := range errs {
			switch {
			case err == nil && won == nil:
				won = turns[i]
			case err == nil:
				t.Fatal("two regenerations of one answer both went ahead")
			case !apperr.Is(err, apperr.KindConflict):
				t.Fatalf("losing regenerate: %v, want a conflict", err)
			}
		}
		if won == nil {
			t.Fatal("no regeneration went ahead")
		}
		if got := won.Request().Messages; got[len(got)-1].Content != "first" || won.UserMessage().Seq != 1 {
			t.Fatalf("regenerate request %+v", got)
		}
		res, err := won.Run(ctx, func(llm.Chunk) error { return nil })
		if err != nil || res.MessageSeq != 2 {
			t.Fatalf("regenerated answer: %+v, %v", res, err)
		}
		msgs, err := svc.History(ctx, "u1", conv.ID, ScopeChat)
		if err != nil || len(msgs) != 2 || msgs[1].Seq != 2 || msgs[1].Type != TypeAI {
			t.Fatalf("history = %+v, %v", msgs, err)
		}
		got, err := svc.Get(ctx, "u1", conv.ID, ScopeChat)
		if err != nil || got.MessageCount != 2 {
			t.Fatalf("message count = %d, %v", got.MessageCount, err)
		}
	})
}
