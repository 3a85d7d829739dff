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

// withVersions gives an instance session versions on rdb (nil: none).
func withVersions(rdb redis.UniversalClient, prefix string) option {
	return func(c *interview.Config, _ *singleflight.Config) {
		c.Versions = nil
		if rdb != nil {
			c.Versions = interview.NewRedisVersions(rdb, prefix, nil, time.Second)
		}
	}
}

// Two instances sharing the database and Redis: b answers the current
// question from memory while the session is unchanged, and never shows it
// as it was once a change made on a has been answered (an answer, its
// follow-up, abandoning the session).
func TestCurrentQuestionFromMemory(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		rdb, prefix := testenv.Redis(t)
		e := newEnv(t, gdb, withVersions(rdb, prefix))
		a := e.svc
		b := e.instance(withVersions(rdb, prefix))
		plain := e.instance(withVersions(nil, "")) // the database's answer, for comparison
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
			got, _, err := current(b, "u1")
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: b = %+v, %v\nwant %+v", what, got, err, want)
			}
			again, n, err := current(b, "u1")
			if err != nil || n != 0 || !reflect.DeepEqual(again, want) {
				t.Fatalf("%s: b again = %+v, %v after %d statements, want %+v from memory", what, again, err, n, want)
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
		if _, _, err := current(b, "u1"); apperr.KindOf(err) != apperr.KindInvalid && apperr.KindOf(err) != apperr.KindConflict {
			_, _, dbErr := current(plain, "u1")
			t.Fatalf("after abandon: b = %v, the database says %v", err, dbErr)
		}
	})
}

// Without Redis (down, or not answering), nothing is answered from memory.
func TestCurrentQuestionRedisDown(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
		t.Cleanup(func() { _ = down.Close() })
		e := newEnv(t, gdb, withVersions(down, "x:"))
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
