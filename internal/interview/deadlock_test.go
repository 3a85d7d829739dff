package interview_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// The store's writes on MariaDB at its default isolation (REPEATABLE READ)
// must not deadlock with each other when many users act at once: a deadlock
// costs a retry at best and a 503 once the retries run out (issue 21). The
// tests count InnoDB's deadlocks around the run, so a deadlock hidden by
// db.Transaction's retry fails them too.

// deadlockWatch reports deadlocks InnoDB detected in gdb's database since
// it was made.
type deadlockWatch struct {
	gdb    *gorm.DB
	dbName string
	before int64
}

func watchDeadlocks(t *testing.T, gdb *gorm.DB) *deadlockWatch {
	t.Helper()
	return &deadlockWatch{gdb: gdb, dbName: gdb.Migrator().CurrentDatabase(), before: innodbDeadlocks(t, gdb)}
}

func innodbDeadlocks(t *testing.T, gdb *gorm.DB) int64 {
	t.Helper()
	var name string
	var n int64
	if err := gdb.Raw("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'").Row().Scan(&name, &n); err != nil {
		t.Fatalf("Innodb_deadlocks: %v", err)
	}
	return n
}

// check fails t when InnoDB's latest deadlock since the watch began was in
// this test's database (other tests on the same server may deadlock in
// theirs).
func (w *deadlockWatch) check(t *testing.T) {
	t.Helper()
	if innodbDeadlocks(t, w.gdb) == w.before {
		return
	}
	var typ, name, status string
	if err := w.gdb.Raw("SHOW ENGINE INNODB STATUS").Row().Scan(&typ, &name, &status); err != nil {
		t.Fatalf("innodb status: %v", err)
	}
	i := strings.Index(status, "LATEST DETECTED DEADLOCK")
	j := strings.Index(status, "\nTRANSACTIONS\n")
	if i < 0 || j < i {
		return
	}
	if dl := status[i:j]; strings.Contains(dl, "`"+w.dbName+"`") {
		t.Fatalf("InnoDB deadlocked in this test's database:\n%s", dl)
	}
}

// Many users answer at once, each in their own session: every claim wins,
// and InnoDB sees no deadlock.
func TestStoreConcurrentClaimsDoNotDeadlock(t *testing.T) {
	gdb := dbtest.MySQL(t)
	ctx := context.Background()
	st := interview.NewGormStore(gdb)
	const n = 64
	now := time.Now().UTC()
	sessions := make([]interview.Session, n)
	for i := range sessions {
		s := interview.Session{ID: ids.New(), UserID: ids.New(), Status: interview.SessionDraft, CreatedAt: now, UpdatedAt: now}
		if _, err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := gdb.Table("interview_sessions").Where("id = ?", s.ID).Updates(map[string]any{
			"status": interview.SessionInProgress, "flow": interview.FlowAsking, "current_number": "1"}).Error; err != nil {
			t.Fatal(err)
		}
		s.Status, s.Flow, s.CurrentNumber = interview.SessionInProgress, interview.FlowAsking, "1"
		sessions[i] = s
	}
	for round := range 3 {
		w := watchDeadlocks(t, gdb)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, n)
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := sessions[i]
				tn := interview.Turn{ID: ids.New(), SessionID: s.ID, QuestionNumber: "1", RequestID: fmt.Sprintf("req-%d-%d", round, i),
					Answer: "a", Status: interview.TurnEvaluating, CreatedAt: now, UpdatedAt: now}
				<-start
				won, err := st.ClaimAnswer(ctx, s, tn, "", now, now.Add(-time.Hour))
				if err == nil && !won {
					err = fmt.Errorf("session %d: claim lost with no one else answering", i)
				}
				if err == nil {
					// Give the question back, as a failed evaluation does,
					// so the next round claims again (over a failed turn).
					tn.Status, tn.ErrorMessage = interview.TurnFailed, "x"
					err = st.FailAnswer(ctx, s.ID, s.FlowVersion+1, tn)
				}
				errs <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		w.check(t)
		for i := range sessions {
			sessions[i].FlowVersion += 2
		}
	}
}

// Many users start a session at once (each abandoning their active ones):
// no deadlock, and each user keeps exactly one active session.
func TestStoreConcurrentCreateSessionsDoNotDeadlock(t *testing.T) {
	gdb := dbtest.MySQL(t)
	ctx := context.Background()
	st := interview.NewGormStore(gdb)
	const users, perUser = 32, 4
	userIDs := make([]string, users)
	for i := range userIDs {
		userIDs[i] = ids.New()
	}
	w := watchDeadlocks(t, gdb)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, users*perUser)
	for _, u := range userIDs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range perUser {
				now := time.Now().UTC()
				_, err := st.CreateSession(ctx, interview.Session{ID: ids.New(), UserID: u, Status: interview.SessionDraft, CreatedAt: now, UpdatedAt: now})
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	w.check(t)
	var rows []struct {
		UserID string
		N      int
	}
	if err := gdb.Raw("SELECT user_id, COUNT(*) AS n FROM interview_sessions WHERE status = ? GROUP BY user_id", interview.SessionDraft).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != users {
		t.Fatalf("%d users have an active session, want %d", len(rows), users)
	}
	for _, r := range rows {
		if r.N != 1 {
			t.Errorf("user %s has %d active sessions, want 1", r.UserID, r.N)
		}
	}
}

// Many users' resumes are stored at once (twice each: a replacement
// deletes the previous file and questions): no deadlock.
func TestStoreConcurrentUploadsDoNotDeadlock(t *testing.T) {
	gdb := dbtest.MySQL(t)
	ctx := context.Background()
	st := interview.NewGormStore(gdb)
	const n = 48
	now := time.Now().UTC()
	sessions := make([]interview.Session, n)
	for i := range sessions {
		s := interview.Session{ID: ids.New(), UserID: ids.New(), Status: interview.SessionDraft, CreatedAt: now, UpdatedAt: now}
		if _, err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		sessions[i] = s
	}
	for round := range 2 {
		w := watchDeadlocks(t, gdb)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, n)
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := sessions[i]
				<-start
				hash := fmt.Sprintf("h%d-%d", round, i)
				won, err := st.ClaimUpload(ctx, s, hash, now, now.Add(-time.Hour))
				if err == nil && !won {
					err = fmt.Errorf("session %d: upload claim lost", i)
				}
				if err != nil {
					errs <- err
					return
				}
				s.Status, s.UploadHash, s.FlowVersion, s.CurrentNumber = interview.SessionResumeUploading, hash, s.FlowVersion+1, "1"
				f := interview.File{ID: ids.New(), UserID: s.UserID, SessionID: s.ID, MIME: "text/plain", Size: 1, SHA256: hash, Path: hash, CreatedAt: now}
				qs := make([]interview.Question, 5)
				for k := range qs {
					qs[k] = interview.Question{SessionID: s.ID, Number: fmt.Sprint(k + 1), Seq: k + 1, Content: "q", CreatedAt: now}
				}
				_, won, err = st.CompleteUpload(ctx, s, f, qs)
				if err == nil && !won {
					err = fmt.Errorf("session %d: upload completion lost", i)
				}
				errs <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		w.check(t)
		for i := range sessions {
			sessions[i].FlowVersion += 2
			sessions[i].Status = interview.SessionReady
		}
	}
}
