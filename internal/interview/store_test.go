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
			"AnswerState":    func() error { _, err := st.AnswerState(ctx, "u1", s.ID, "r"); return err },
			"AddTraces":      func() error { return st.AddTraces(ctx, []interview.TraceEntry{{SessionID: s.ID, At: now}}) },
			"Turns":          func() error { _, err := st.Turns(ctx, s.ID); return err },
			"ClaimAnswer":    func() error { _, err := st.ClaimAnswer(ctx, s, turn, "", now, now); return err },
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

// AnswerState reads in one query what an answer is decided on: the
// session, the request's turn, the questions in asking order (only the
// current one's rubric, and only for an answer) and the main questions'
// scores; another user's session is missing.
func TestStoreAnswerState(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		first, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "a plain answer", "req-1"))
		if err != nil || first.Score == nil {
			t.Fatalf("answer: %+v %v", first, err)
		}
		st := interview.NewGormStore(gdb)
		v, err := st.AnswerState(ctx, "u1", s.ID, "req-1")
		if err != nil {
			t.Fatal(err)
		}
		cur := v.Session.CurrentNumber
		if v.Session.ID != s.ID || v.Session.UserID != "u1" || cur == "1" || cur == "" || v.Session.Profile != nil {
			t.Fatalf("session = %+v: want the session after question 1, no profile for a replayed request", v.Session)
		}
		if v.Turn.Status != interview.TurnDone || v.Turn.Response == nil || v.Turn.Response.RequestID != "req-1" ||
			v.Turn.QuestionNumber != "1" || v.Turn.CreatedAt.IsZero() {
			t.Fatalf("turn = %+v, want the done turn of req-1 with its response", v.Turn)
		}
		if len(v.Scores) != 1 || v.Scores[0] != *first.Score {
			t.Fatalf("scores = %v, want [%d]", v.Scores, *first.Score)
		}
		if len(v.Questions) != 5 {
			t.Fatalf("%d questions, want 5", len(v.Questions))
		}
		for i, q := range v.Questions {
			if i > 0 && q.Seq <= v.Questions[i-1].Seq {
				t.Fatalf("questions out of asking order: %+v", v.Questions)
			}
			if q.Content == "" || (q.Number == cur) != (len(q.Spec.Anchors) > 0) {
				t.Fatalf("question %s: content %q, %d anchors; want text for all and the rubric of %s only",
					q.Number, q.Content, len(q.Spec.Anchors), cur)
			}
		}
		// A new request: no turn, the profile to evaluate with.
		v, err = st.AnswerState(ctx, "u1", s.ID, "req-2")
		if err != nil || v.Turn.ID != "" || v.Session.Profile == nil {
			t.Fatalf("new request: turn %+v, profile %v, err %v", v.Turn, v.Session.Profile, err)
		}
		// The current question: no rubric, no profile.
		v, err = st.AnswerState(ctx, "u1", s.ID, "")
		if err != nil || v.Session.Profile != nil || len(v.Questions) != 5 || len(v.Scores) != 1 {
			t.Fatalf("current question: %+v %v", v, err)
		}
		for _, q := range v.Questions {
			if len(q.Spec.Anchors) > 0 {
				t.Fatalf("question %s has its rubric without an answer", q.Number)
			}
		}
		_, err = st.AnswerState(ctx, "u2", s.ID, "req-1")
		wantKind(t, err, apperr.KindNotFound, "")
	})
}
