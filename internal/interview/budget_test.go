package interview_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	dbpkg "github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// sqlCounter counts the SQL statements gorm runs and the transactions they
// commit in: a statement outside a transaction that writes is a commit of
// its own; the statements of one transaction are one commit.
type sqlCounter struct {
	mu         sync.Mutex // protects the fields below
	on         bool
	statements []string
	txs        map[gorm.ConnPool]bool
	autocommit int
}

// countSQL registers the counter's callbacks on gdb; it counts between
// start and stop.
func countSQL(t *testing.T, gdb *gorm.DB) *sqlCounter {
	t.Helper()
	c := &sqlCounter{}
	cb := gdb.Callback()
	for _, p := range []struct {
		kind  string
		write bool
		reg   func(name string, fn func(*gorm.DB)) error
	}{
		{"create", true, func(n string, fn func(*gorm.DB)) error { return cb.Create().After("gorm:create").Register(n, fn) }},
		{"query", false, func(n string, fn func(*gorm.DB)) error { return cb.Query().After("gorm:query").Register(n, fn) }},
		{"update", true, func(n string, fn func(*gorm.DB)) error { return cb.Update().After("gorm:update").Register(n, fn) }},
		{"delete", true, func(n string, fn func(*gorm.DB)) error { return cb.Delete().After("gorm:delete").Register(n, fn) }},
		{"row", false, func(n string, fn func(*gorm.DB)) error { return cb.Row().After("gorm:row").Register(n, fn) }},
		{"raw", true, func(n string, fn func(*gorm.DB)) error { return cb.Raw().After("gorm:raw").Register(n, fn) }},
	} {
		if err := p.reg("test:count_"+p.kind, func(db *gorm.DB) { c.add(db, p.write) }); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *sqlCounter) add(db *gorm.DB, write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || db.DryRun { // a statement built for a script, not run
		return
	}
	sql := db.Statement.SQL.String()
	if rest, ok := strings.CutPrefix(sql, "START TRANSACTION"+dbpkg.ScriptSeparator); ok {
		// A script (db.GuardedScript, MySQL): one transaction, one commit;
		// its statements are the guard and those after the check.
		for _, s := range strings.Split(rest, dbpkg.ScriptSeparator) {
			if s != "COMMIT" && !strings.HasSuffix(s, "AS guard_check") {
				c.statements = append(c.statements, s)
			}
		}
		c.autocommit++
		return
	}
	c.statements = append(c.statements, sql)
	if _, inTx := db.Statement.ConnPool.(gorm.TxCommitter); inTx {
		c.txs[db.Statement.ConnPool] = true
	} else if write {
		c.autocommit++
	}
}

func (c *sqlCounter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.statements, c.txs, c.autocommit = true, nil, map[gorm.ConnPool]bool{}, 0
}

// stop returns the statements and commits counted since start.
func (c *sqlCounter) stop() (statements []string, commits int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.statements, len(c.txs) + c.autocommit
}

// The SQL budget of the interview's hot paths (issue 21): a distinct
// answer runs at most 7 statements (the issue allows 8) in at most 2
// commits, whatever it earns (a review, a follow-up); the current question
// and an identical replay are at most 2 queries (1 today) and commit
// nothing (the first current question starts the interview: one more
// statement).
func TestAnswerSQLBudget(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		sql := countSQL(t, gdb)
		within := func(t *testing.T, what string, maxStatements, maxCommits int, f func() error) {
			t.Helper()
			sql.start()
			err := f()
			stmts, commits := sql.stop()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(stmts) > maxStatements || commits > maxCommits {
				t.Errorf("%s: %d statements in %d commits, want at most %d in %d:\n%s", what, len(stmts), commits,
					maxStatements, maxCommits, listSQL(stmts))
			}
			t.Logf("%s: %d statements, %d commits:\n%s", what, len(stmts), commits, listSQL(stmts))
			if len(stmts) == 0 {
				t.Errorf("%s: no statement counted (the counter is broken)", what)
			}
		}
		var last interview.AnswerResp
		for i, tc := range []struct{ name, text string }{
			{"plain answer", "a plain answer"},
			{"answer earning a review and a follow-up", "WEAK UNSURE answer"},
			{"answer to the follow-up", "the follow-up's answer"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cur, err := e.svc.CurrentQuestion(ctx, "u1", s.ID)
				if err != nil {
					t.Fatal(err)
				}
				in := answer(cur.QuestionNumber, tc.text, fmt.Sprintf("req-%d", i))
				within(t, "distinct answer", 7, 2, func() (err error) { last, err = e.svc.Answer(ctx, "u1", s.ID, in); return err })
				if i == 1 && !last.IsFollowUp {
					t.Fatalf("answer %+v earned no follow-up: the case does not test the follow-up's statements", last)
				}
				within(t, "identical replay", 2, 0, func() error {
					r, err := e.svc.Answer(ctx, "u1", s.ID, in)
					if err == nil && !reflect.DeepEqual(r, last) {
						err = fmt.Errorf("replay = %+v, want %+v", r, last)
					}
					return err
				})
				within(t, "current question", 2, 0, func() error { _, err := e.svc.CurrentQuestion(ctx, "u1", s.ID); return err })
			})
		}
		traces, err := e.store.Store.Traces(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(traces); n < 5 {
			t.Fatalf("%d trace entries, want the answers' calls (evaluation ×3, review, follow-up)", n)
		}
	})
}

func listSQL(stmts []string) string {
	out := ""
	for i, s := range stmts {
		out += fmt.Sprintf("  %d. %.160s\n", i+1, s)
	}
	return out
}
