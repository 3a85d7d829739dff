package interview_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// withChanges gives an instance the sessions' changes on rdb (nil: none),
// subscribed before it returns.
func withChanges(t *testing.T, rdb redis.UniversalClient, prefix string) option {
	var changes *interview.SessionChanges
	if rdb != nil {
		changes = interview.NewSessionChanges(rdb, prefix, nil, time.Second)
		t.Cleanup(func() { _ = changes.Close() })
		for deadline := time.Now().Add(5 * time.Second); !changes.Live(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the sessions' changes are not subscribed")
			}
		}
	}
	return func(c *interview.Config, _ *singleflight.Config) { c.Changes = changes }
}

// Two instances sharing the database and Redis: b answers the current
// question from memory while the session is unchanged, and stops showing
// it as it was once the message of a change made on a has arrived (an
// answer, its follow-up, abandoning the session): by then a has answered
// the request that made the change, and Redis has written the message to
// b's connection.
func TestCurrentQuestionFromMemory(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		rdb, prefix := testenv.Redis(t)
		e := newEnv(t, gdb, withChanges(t, rdb, prefix))
		a := e.svc
		b := e.instance(withChanges(t, rdb, prefix))
		plain := e.instance(withChanges(t, nil, "")) // the database's answer, for comparison
		s := e.ready("u1")
		sql := countSQL(t, gdb)
		current := func(svc *interview.Service, user string) (r interview.AnswerResp, statements int, err error) {
			sql.start()
			r, err = svc.CurrentQuestion(ctx, user, s.ID)
			stmts, _ := sql.stop()
			return r, len(stmts), err
		}
		// wantCurrent checks b against the database, and that b's next
		// read comes from memory.
		wantCurrent := func(t *testing.T, what string) interview.AnswerResp {
			t.Helper()
			want, _, err := current(plain, "u1")
			if err != nil {
				t.Fatal(err)
			}
			// The message has been sent when a answered; b handles it
			// within a moment. A read that a message of its session
			// overtook is not kept (the messages of the session's
			// creation may still be on their way at the first read), so
			// b shows want and then, on a read after that, from memory.
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
				got, _, err := current(b, "u1")
				if err == nil && reflect.DeepEqual(got, want) {
					again, n, err := current(b, "u1")
					if err == nil && n == 0 && reflect.DeepEqual(again, want) {
						break
					}
					got = again
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: b = %+v, %v\nwant %+v, and then from memory", what, got, err, want)
				}
			}
			raw, err := b.CurrentQuestionJSON(ctx, "u1", s.ID) // from memory, encoded once
			if wantJSON, _ := json.Marshal(want); err != nil || string(raw) != string(wantJSON) {
				t.Fatalf("%s: b's JSON = %s, %v\nwant %s", what, raw, err, wantJSON)
			}
			return want
		}

		cur := wantCurrent(t, "first read")
		if _, _, err := current(b, "u2"); apperr.KindOf(err) != apperr.KindNotFound {
			t.Fatalf("another user: %v, want not found", err)
		}
		for i, text := range []string{"a plain answer", "WEAK UNSURE answer", "the follow-up's answer"} {
			resp, err := a.Answer(ctx, "u1", s.ID, answer(cur.QuestionNumber, text, "req-"+text))
			if err != nil {
				t.Fatal(err)
			}
			cur = wantCurrent(t, "after answer "+text)
			if cur.QuestionNumber != resp.NextQuestionNumber {
				t.Fatalf("after answer %d: b shows question %s, the answer announced %s", i, cur.QuestionNumber, resp.NextQuestionNumber)
			}
		}
		// A new session abandons this one: b stops showing its question.
		e.session("u1")
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
			_, _, err := current(b, "u1")
			if k := apperr.KindOf(err); k == apperr.KindInvalid || k == apperr.KindConflict {
				break
			}
			if time.Now().After(deadline) {
				_, _, dbErr := current(plain, "u1")
				t.Fatalf("after abandon: b = %v, the database says %v", err, dbErr)
			}
		}
	})
}

// Without Redis (down, or not answering), nothing is answered from memory.
func TestCurrentQuestionRedisDown(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
		t.Cleanup(func() { _ = down.Close() })
		changes := interview.NewSessionChanges(down, "x:", nil, 100*time.Millisecond)
		t.Cleanup(func() { _ = changes.Close() })
		e := newEnv(t, gdb, func(c *interview.Config, _ *singleflight.Config) { c.Changes = changes })
		s := e.ready("u1")
		sql := countSQL(t, gdb)
		for i := range 3 {
			sql.start()
			_, err := e.svc.CurrentQuestion(ctx, "u1", s.ID)
			stmts, _ := sql.stop()
			if err != nil || len(stmts) != 1 {
				t.Fatalf("read %d with Redis down: %v after %d statements, want the query", i, err, len(stmts))
			}
		}
	})
}
