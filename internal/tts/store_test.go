package tts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		s := tts.NewGormStore(gdb)
		at := time.Now().UTC().Truncate(time.Millisecond)
		mk := func(id, user string, status tts.Status, created time.Time) *tts.Task {
			task := &tts.Task{ID: id, UserID: user, Text: strings.Repeat("长", 50000), Key: "k-" + id,
				Params: tts.Params{Speed: 50, Encoding: "wav", SampleRate: 16000}, Status: status,
				SegmentsTotal: 10, CreatedAt: created, UpdatedAt: created}
			if err := s.Create(ctx, task); err != nil {
				t.Fatal(err)
			}
			return task
		}
		mk("t1", "u1", tts.StatusCreated, at)
		mk("t2", "u1", tts.StatusCreated, at.Add(time.Millisecond))
		mk("t3", "u2", tts.StatusCreated, at.Add(2*time.Millisecond))

		got, err := s.Get(ctx, "t1", "u1")
		if err != nil || len([]rune(got.Text)) != 50000 || got.Params.SampleRate != 16000 {
			t.Fatalf("get: %v", err)
		}
		if _, err := s.Get(ctx, "t1", "u2"); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("another user's task: %v", err)
		}
		list, total, err := s.List(ctx, "u1", page.Request{Current: 1, Size: 1})
		if err != nil || total != 2 || len(list) != 1 || list[0].ID != "t2" || len([]rune(list[0].Text)) > 41 {
			t.Fatalf("list: %v %d %+v", err, total, list)
		}

		// Claims: one winner; a live lease blocks, an expired one does not.
		won := 0
		for _, owner := range []string{"a", "b"} {
			ok, err := s.Claim(ctx, "t1", owner, at, at.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				won++
			}
		}
		if won != 1 {
			t.Fatalf("%d claims won", won)
		}
		ids, _ := s.Claimable(ctx, at, 10)
		if strings.Join(ids, ",") != "t2,t3" {
			t.Fatalf("claimable %v", ids)
		}
		ids, _ = s.Claimable(ctx, at.Add(2*time.Minute), 10)
		if strings.Join(ids, ",") != "t1,t2,t3" {
			t.Fatalf("claimable after the lease %v", ids)
		}
		if ok, _ := s.Heartbeat(ctx, "t1", "b", at.Add(time.Hour)); ok {
			t.Fatal("heartbeat by a non-owner")
		}
		if ok, _ := s.Heartbeat(ctx, "t1", "a", at.Add(time.Hour)); !ok {
			t.Fatal("owner heartbeat refused")
		}

		// Progress only grows.
		for _, n := range []int{3, 2, 5} {
			if _, err := s.Progress(ctx, "t1", n); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.Get(ctx, "t1", ""); got.SegmentsDone != 5 || got.Attempts != 1 {
			t.Fatalf("progress %d attempts %d", got.SegmentsDone, got.Attempts)
		}

		// Release keeps it running, claimable, the attempt uncounted.
		if ok, _ := s.Release(ctx, "t1", "a"); !ok {
			t.Fatal("release")
		}
		if got, _ := s.Get(ctx, "t1", ""); got.Status != tts.StatusRunning || got.Owner != "" || got.Attempts != 0 {
			t.Fatalf("released: %+v", got)
		}
		if ok, _ := s.Claim(ctx, "t1", "b", at, at.Add(time.Minute)); !ok {
			t.Fatal("released task not claimable")
		}
		if ok, _ := s.Finish(ctx, "t1", "a", 1000, 32000); ok {
			t.Fatal("finish by a former owner")
		}
		if ok, _ := s.Finish(ctx, "t1", "b", 1000, 32000); !ok {
			t.Fatal("finish by the owner")
		}
		done, _ := s.Get(ctx, "t1", "")
		if done.Status != tts.StatusDone || done.SegmentsDone != 10 || done.DurationMs != 1000 || done.FinishedAt == nil {
			t.Fatalf("done: %+v", done)
		}

		// Cancel a queued task; a finished one cannot be cancelled.
		if ok, _ := s.Fail(ctx, "t2", "", tts.CancelledMessage); !ok {
			t.Fatal("cancel")
		}
		if ok, _ := s.Fail(ctx, "t1", "", tts.CancelledMessage); ok {
			t.Fatal("cancelled a finished task")
		}
		if ok, _ := s.Delete(ctx, "t3", "u2"); ok {
			t.Fatal("deleted a queued task")
		}
		if ok, _ := s.Delete(ctx, "t1", "u2"); ok {
			t.Fatal("deleted another user's task")
		}
		if inUse, _ := s.KeyInUse(ctx, "k-t1", "t2"); !inUse {
			t.Fatal("key of a done task not in use")
		}
		// Done (t1) and cancelled (t2) tasks need no work folder; a
		// queued one (t3) does.
		for key, want := range map[string]bool{"k-t1": false, "k-t2": false, "k-t3": true} {
			if pending, err := s.KeyPending(ctx, key); err != nil || pending != want {
				t.Fatalf("KeyPending(%s) = %v, %v; want %v", key, pending, err, want)
			}
		}
		if ok, _ := s.Delete(ctx, "t1", "u1"); !ok {
			t.Fatal("delete")
		}
		if inUse, _ := s.KeyInUse(ctx, "k-t1", "x"); inUse {
			t.Fatal("key of a deleted task in use")
		}
	})
}
