package interview_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// An identical answer replayed once from the database is answered from
// memory afterwards, by the instance that replayed it, with no query and
// the same response; another instance, another user or another request
// gets nothing from memory, and abandoning the session changes nothing
// that the database path would not change too (a done request replays).
func TestReplayFromMemory(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		a := e.svc
		b := e.instance() // a second instance on the same database
		s := e.ready("u1")
		cur, err := a.CurrentQuestion(ctx, "u1", s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []interview.AnswerInput{
			answer(cur.QuestionNumber, "an answer with its own request id", "req-1"),
			answer("", "", ""), // replaced below: the next question, answered without a request id
		} {
			if in.AnswerContent == "" {
				next, err := a.CurrentQuestion(ctx, "u1", s.ID)
				if err != nil {
					t.Fatal(err)
				}
				in = answer(next.QuestionNumber, "an answer without a request id", "")
			}
			want, err := a.Answer(ctx, "u1", s.ID, in)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := b.ReplayJSON("u1", s.ID, in); ok {
				t.Fatal("instance b answered from memory a request it never replayed")
			}
			got, err := b.Answer(ctx, "u1", s.ID, in) // a replay from the database
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("replay on b = %+v, %v; want %+v", got, err, want)
			}
			sql := countSQL(t, gdb)
			sql.start()
			raw, ok := b.ReplayJSON("u1", s.ID, in)
			if stmts, _ := sql.stop(); len(stmts) != 0 {
				t.Errorf("a replay from memory ran %d statements:\n%s", len(stmts), listSQL(stmts))
			}
			if !ok {
				t.Fatal("instance b did not answer from memory a request it replayed")
			}
			if wantJSON, _ := json.Marshal(want); string(raw) != string(wantJSON) {
				t.Errorf("replay from memory = %s\nwant %s", raw, wantJSON)
			}
			if _, ok := b.ReplayJSON("u2", s.ID, in); ok {
				t.Error("another user got the replay from memory")
			}
			// Another request: another request id, or (without one) another
			// text, whose derived id differs.
			other := in
			if other.RequestID != "" {
				other.RequestID += "-other"
			} else {
				other.AnswerContent += " (changed)"
			}
			if _, ok := b.ReplayJSON("u1", s.ID, other); ok {
				t.Error("another request got the replay from memory")
			}
		}
		// Abandon the session (a new one is created): the database path
		// still replays a done request, as memory does.
		in := answer(cur.QuestionNumber, "an answer with its own request id", "req-1")
		e.session("u1")
		if got := e.load("u1", s.ID).Status; got != interview.SessionAbandoned {
			t.Fatalf("status %s, want %s", got, interview.SessionAbandoned)
		}
		fromDB, err := a.Answer(ctx, "u1", s.ID, in)
		if err != nil {
			t.Fatalf("replay from the database after abandon: %v", err)
		}
		raw, ok := b.ReplayJSON("u1", s.ID, in)
		var fromMemory interview.AnswerResp
		if !ok || json.Unmarshal(raw, &fromMemory) != nil || !reflect.DeepEqual(fromMemory, fromDB) {
			t.Errorf("after abandon: memory %s (%v), database %+v", raw, ok, fromDB)
		}
	})
}
