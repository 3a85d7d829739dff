package interview_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// A second claim of a request whose turn is stored (another instance took
// the phase first) is a lost race, not an error.
func TestStoreClaimAnswerDuplicateRequest(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		now := time.Now().UTC()
		turn := interview.Turn{ID: "t1", SessionID: s.ID, QuestionNumber: "1", RequestID: "req-1", Answer: "a",
			Status: interview.TurnEvaluating, CreatedAt: now, UpdatedAt: now}
		st := interview.NewGormStore(gdb)
		if won, err := st.ClaimAnswer(ctx, s, turn, "", now, now.Add(-time.Hour)); err != nil || !won {
			t.Fatalf("first claim: %v %v", won, err)
		}
		// The phase went stale and is claimed again by the same request:
		// its evaluating turn is still there.
		stale := e.load("u1", s.ID)
		turn.ID = "t2"
		won, err := st.ClaimAnswer(ctx, stale, turn, "", now.Add(time.Hour), now.Add(time.Hour))
		if err != nil || won {
			t.Fatalf("claim over a stored turn: %v %v, want a lost race", won, err)
		}
	})
}

// Every store method reports a database failure as an error (wrapped, not
// a not-found or a lost race).
func TestStoreDatabaseFailures(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		if err := db.Close(gdb); err != nil {
			t.Fatal(err)
		}
		st := interview.NewGormStore(gdb)
		now := time.Now().UTC()
		turn := interview.Turn{ID: "t1", SessionID: s.ID, QuestionNumber: "1", RequestID: "r"}
		calls := map[string]func() error{
			"CreateSession": func() error { _, err := st.CreateSession(ctx, interview.Session{ID: "x", UserID: "u1"}); return err },
			"Session":       func() error { _, err := st.Session(ctx, "u1", s.ID); return err },
			"PageSessions": func() error {
				_, err := st.PageSessions(ctx, "u1", page.Request{Current: 1, Size: 10}, interview.SessionFilter{})
				return err
			},
			"ClaimUpload":    func() error { _, err := st.ClaimUpload(ctx, s, "h", now, now); return err },
			"FailUpload":     func() error { return st.FailUpload(ctx, s.ID, "h", now) },
			"CompleteUpload": func() error { _, _, err := st.CompleteUpload(ctx, s, interview.File{}, nil); return err },
			"Questions":      func() error { _, err := st.Questions(ctx, s.ID); return err },
			"StartInterview": func() error { return st.StartInterview(ctx, s.ID, now) },
			"TurnByRequest":  func() error { _, err := st.TurnByRequest(ctx, s.ID, "r"); return err },
			"AnswerState":    func() error { _, _, err := st.AnswerState(ctx, "u1", s.ID, "r"); return err },
			"QuestionsAndScores": func() error {
				_, _, err := st.QuestionsAndScores(ctx, s.ID, "1")
				return err
			},
			"AddTraces":   func() error { return st.AddTraces(ctx, []interview.TraceEntry{{SessionID: s.ID, At: now}}) },
			"Turns":       func() error { _, err := st.Turns(ctx, s.ID); return err },
			"ClaimAnswer": func() error { _, err := st.ClaimAnswer(ctx, s, turn, "", now, now); return err },
			"CompleteAnswer": func() error {
				_, err := st.CompleteAnswer(ctx, s.ID, 1, turn, interview.FlowAsking, "2", nil, nil)
				return err
			},
			"FailAnswer":         func() error { return st.FailAnswer(ctx, s.ID, 1, turn) },
			"File":               func() error { _, err := st.File(ctx, "u1", "f"); return err },
			"AddDemeanor":        func() error { return st.AddDemeanor(ctx, s.ID, "h", interview.DemeanorResult{}, now) },
			"DemeanorComposites": func() error { _, err := st.DemeanorComposites(ctx, s.ID); return err },
			"DemeanorByImage":    func() error { _, _, err := st.DemeanorByImage(ctx, s.ID, "h"); return err },
			"FinishSession":      func() error { _, err := st.FinishSession(ctx, s, interview.Report{}, now); return err },
			"Report":             func() error { _, err := st.Report(ctx, "u1", s.ID); return err },
			"PageReports": func() error {
				_, err := st.PageReports(ctx, "u1", page.Request{Current: 1, Size: 10}, interview.RecordFilter{})
				return err
			},
		}
		for name, call := range calls {
			t.Run(name, func(t *testing.T) {
				err := call()
				if err == nil || apperr.Is(err, apperr.KindNotFound) {
					t.Fatalf("%s on a closed database: %v, want a database error", name, err)
				}
			})
		}
	})
}
