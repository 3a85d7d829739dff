package interview_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

func TestServiceUpload(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.session("u1")
		res, err := e.svc.Upload(ctx, "u1", s.ID, "../resume.txt", []byte(resumeText), "  Go developer ")
		if err != nil {
			t.Fatal(err)
		}
		if res.QuestionCount != interviewtest.QuestionCount || res.Target != "Go developer" || res.InterviewType != "backend engineer" ||
			*res.ResumeScore != 75 || res.SuggestionCount != 2 || !res.IsSuccess || res.Offline {
			t.Fatalf("upload = %+v", res)
		}
		got := e.load("u1", s.ID)
		if got.Status != interview.SessionReady || got.CurrentNumber != "1" || got.Target != "Go developer" || got.Profile == nil || got.UploadHash != "" {
			t.Fatalf("session after upload = %+v", got)
		}
		f, obj, _, err := e.svc.ResumeFile(ctx, "u1", s.ID)
		if err != nil {
			t.Fatalf("resume file: %v", err)
		}
		data, err := io.ReadAll(obj)
		obj.Close()
		if err != nil || string(data) != resumeText || f.Filename != "resume.txt" || f.Text == "" {
			t.Fatalf("resume file = %+v %q %v", f, data, err)
		}
		// A READY session takes a new resume.
		if _, err := e.svc.Upload(ctx, "u1", s.ID, "resume.md", []byte(resumeText+"More.\n"), ""); err != nil {
			t.Fatalf("second upload: %v", err)
		}
		// Once started, it does not.
		if _, err := e.svc.CurrentQuestion(ctx, "u1", s.ID); err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.Upload(ctx, "u1", s.ID, "resume.txt", []byte(resumeText), "")
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		if got := e.model.Calls(interview.StageProfile); got != 2 {
			t.Fatalf("profile calls = %d, want 2", got)
		}
	})
}

// The extraction's output is bounded and completed: at most 8 questions,
// the interview type defaults to the target, suggestions are deduplicated
// and the profile's resume score is used when the extraction has none.
func TestServiceUploadNormalizesExtraction(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		e := newEnv(t, gdb)
		e.setReply(interview.StageExtraction, func(llmtest.RecordedRequest) llmtest.Reply {
			var qs []string
			for i := range 9 {
				qs = append(qs, fmt.Sprintf(`{"content":"Question %d?","anchors":[{"name":"core","weight":100,"core":true}]}`, i+1))
			}
			return llmtest.Reply{Content: `{"questions":[` + strings.Join(qs, ",") + `],"suggestions":["quantify your impact.","Add tests."]}`}
		})
		s := e.session("u1")
		res, err := e.svc.Upload(context.Background(), "u1", s.ID, "r.txt", []byte(resumeText), "")
		if err != nil {
			t.Fatal(err)
		}
		if res.QuestionCount != 8 || res.Questions["8"] != "Question 8?" || res.Questions["9"] != "" {
			t.Fatalf("questions = %v", res.Questions)
		}
		if res.InterviewType != "backend engineer" || res.Target != "backend engineer" || *res.ResumeScore != 72 {
			t.Fatalf("type %q target %q score %d, want the profile's", res.InterviewType, res.Target, *res.ResumeScore)
		}
		if res.SuggestionCount != 2 || res.Suggestions["2"] != "Add tests." {
			t.Fatalf("suggestions = %v, want the duplicate dropped", res.Suggestions)
		}
	})
}

func TestServiceUploadRejects(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.session("u1")
		_, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), strings.Repeat("x", interview.MaxTargetChars+1))
		wantKind(t, err, apperr.KindInvalid, "")
		_, err = e.svc.Upload(ctx, "u2", s.ID, "r.txt", []byte(resumeText), "")
		wantKind(t, err, apperr.KindNotFound, apperr.CodeSessionMissing)
		_, err = e.svc.Upload(ctx, "u1", s.ID, "photo.png", []byte("\x89PNG\r\n\x1a\nnot a resume"), "")
		if apperr.As(err) == nil {
			t.Fatalf("PNG upload: %v, want a typed error", err)
		}
		if got := e.load("u1", s.ID); got.Status != interview.SessionDraft || e.model.Calls(interview.StageProfile) != 0 {
			t.Fatalf("rejected uploads changed the session (%s) or called the model", got.Status)
		}
	})
}

// A failed extraction gives the session back (DRAFT); a failed reset is
// logged, not returned.
func TestServiceUploadModelFailure(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.session("u1")
		e.model.Fail(interview.StageExtraction, true)
		_, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
		wantKind(t, err, apperr.KindUpstream, "")
		if got := e.load("u1", s.ID); got.Status != interview.SessionDraft || got.UploadHash != "" {
			t.Fatalf("after a failed extraction: %s hash %q, want DRAFT", got.Status, got.UploadHash)
		}
		// The reset itself fails: the upload's error is still returned and
		// the session stays claimed until it is stale.
		e.store.failOn("FailUpload", 0)
		_, err = e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText+"x"), "")
		wantKind(t, err, apperr.KindUpstream, "")
		if got := e.load("u1", s.ID); got.Status != interview.SessionResumeUploading {
			t.Fatalf("after a failed reset: %s, want RESUME_UPLOADING", got.Status)
		}
	})
}

func TestServiceUploadStoreFailures(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("file write", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("blocked")
			// The user's upload directory is a file: the write fails.
			dir := filepath.Join(e.filesDir, interview.ResumePrefix)
			if err := os.MkdirAll(dir, 0o750); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "blocked"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := e.svc.Upload(ctx, "blocked", s.ID, "r.txt", []byte(resumeText), "")
			wantKind(t, err, apperr.KindUnavailable, apperr.CodeUnavailable)
			if got := e.load("blocked", s.ID); got.Status != interview.SessionDraft {
				t.Fatalf("after a failed write: %s, want DRAFT", got.Status)
			}
		})
		t.Run("complete", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("u1")
			e.store.failOn("CompleteUpload", 1)
			if _, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), ""); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the store's", err)
			}
			if got := e.load("u1", s.ID); got.Status != interview.SessionDraft {
				t.Fatalf("after a failed completion: %s, want DRAFT", got.Status)
			}
			entries, _ := os.ReadDir(filepath.Join(e.filesDir, interview.ResumePrefix, "u1"))
			if len(entries) != 0 {
				t.Fatalf("the stored file of a failed upload was kept: %v", entries)
			}
		})
		t.Run("claim", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("u1")
			e.store.failOn("ClaimUpload", 1)
			if _, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), ""); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the store's", err)
			}
		})
	})
}

// A double-submitted upload landing on two instances: the second joins the
// first (it does not own the claim); its own failure leaves the session to
// the owner, which completes it.
func TestServiceUploadJoinsSameUpload(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		other := e.instance()
		s := e.session("u1")
		g := e.hold(interview.StageProfile)
		type result struct {
			res interview.UploadResult
			err error
		}
		first, second := make(chan result, 1), make(chan result, 1)
		go func() {
			r, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
			first <- result{r, err}
		}()
		reqA := e.wait(g) // the owner is extracting
		go func() {
			r, err := other.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
			second <- result{r, err}
		}()
		reqB := e.wait(g) // the joined copy (another instance) too
		reqB.reply <- llmtest.ErrorReply(500, "overloaded", "server_error")
		if r := <-second; apperr.As(r.err) == nil || apperr.As(r.err).Kind != apperr.KindUpstream {
			t.Fatalf("joined copy: %v, want the model's error", r.err)
		}
		if got := e.load("u1", s.ID); got.Status != interview.SessionResumeUploading {
			t.Fatalf("a joined copy's failure reset the owner's upload: %s", got.Status)
		}
		e.answer(reqA)
		if r := <-first; r.err != nil || r.res.QuestionCount != interviewtest.QuestionCount {
			t.Fatalf("owner: %+v %v", r.res, r.err)
		}
	})
}

// Both copies extract; the one that stores second answers with the same
// questions when the session is READY, and 409 when it moved on.
func TestServiceUploadLostCompletion(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		for _, tc := range []struct {
			name   string
			winner func(e *env, s interview.Session)
			want   apperr.Kind // 0: success
		}{
			{"other copy stored", func(e *env, s interview.Session) {
				cur := e.load("u1", s.ID)
				cur.CurrentNumber, cur.UpdatedAt = "1", time.Now().UTC()
				_, won, err := e.store.Store.CompleteUpload(ctx, cur, interview.File{ID: "other-file", UserID: "u1", SessionID: s.ID},
					[]interview.Question{{SessionID: s.ID, Number: "1", Seq: 100, Content: "q"}})
				if err != nil || !won {
					t.Fatalf("other copy: %v %v", won, err)
				}
			}, 0},
			{"session reset", func(e *env, s interview.Session) {
				cur := e.load("u1", s.ID)
				if err := e.store.Store.FailUpload(ctx, s.ID, cur.UploadHash, time.Now().UTC()); err != nil {
					t.Fatal(err)
				}
			}, apperr.KindConflict},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, gdb)
				s := e.session("u1")
				e.store.on("CompleteUpload", func(int) error { tc.winner(e, s); return nil })
				res, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
				if tc.want == 0 {
					if err != nil || res.QuestionCount != interviewtest.QuestionCount {
						t.Fatalf("lost completion: %+v %v", res, err)
					}
					return
				}
				wantKind(t, err, tc.want, apperr.CodeInvalidState)
			})
		}
	})
}

func TestServiceClaimUpload(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("another resume in progress", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("u1")
			// Another upload claims the session between our read and claim.
			e.store.on("ClaimUpload", func(n int) error {
				if n == 1 {
					if _, err := e.store.Store.ClaimUpload(ctx, e.load("u1", s.ID), "other-hash", time.Now().UTC(), time.Now().UTC()); err != nil {
						t.Fatal(err)
					}
				}
				return nil
			})
			_, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
			if m := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(m.Message, "another resume") {
				t.Fatalf("message %q", m.Message)
			}
		})
		t.Run("changing too fast", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("u1")
			e.store.on("ClaimUpload", func(int) error {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
				return nil
			})
			_, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), "")
			if m := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(m.Message, "too fast") {
				t.Fatalf("message %q", m.Message)
			}
			if n := e.store.count("ClaimUpload"); n != 3 {
				t.Fatalf("claims = %d, want 3", n)
			}
		})
		t.Run("reload fails", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.session("u1")
			e.store.on("ClaimUpload", func(int) error {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
				return nil
			})
			e.store.failOn("Session", 2)
			if _, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), ""); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the store's", err)
			}
		})
		t.Run("stale claim is taken over", func(t *testing.T) {
			e := newEnv(t, gdb, staleAfter(time.Minute))
			s := e.session("u1")
			e.setSession(s.ID, map[string]any{"status": interview.SessionResumeUploading, "upload_hash": "dead-instance",
				"flow_updated_at": time.Now().UTC().Add(-time.Hour)})
			if _, err := e.svc.Upload(ctx, "u1", s.ID, "r.txt", []byte(resumeText), ""); err != nil {
				t.Fatalf("takeover of a stale upload: %v", err)
			}
			// A fresh claim of another upload is not taken over.
			s2 := e.session("u1")
			e.setSession(s2.ID, map[string]any{"status": interview.SessionResumeUploading, "upload_hash": "live-instance",
				"flow_updated_at": time.Now().UTC()})
			_, err := e.svc.Upload(ctx, "u1", s2.ID, "r.txt", []byte(resumeText), "")
			wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		})
	})
}

func TestServiceAnswerInterview(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		var resps []interview.AnswerResp
		for i, no := range []string{"1", "2", "2-F1", "3", "4", "5"} {
			text := "A complete answer about " + no
			switch no {
			case "2":
				text = "WEAK answer"
			case "3":
				text = "UNSURE answer" // low confidence: reviewed
			}
			r, err := e.svc.Answer(ctx, "u1", s.ID, answer(no, text, ""))
			if err != nil {
				t.Fatalf("answer %d (%s): %v", i, no, err)
			}
			resps = append(resps, r)
		}
		if !resps[1].IsFollowUp || resps[1].NextQuestionNumber != "2-F1" || resps[1].NextQuestion != interviewtest.FollowUp {
			t.Fatalf("weak answer: %+v", resps[1])
		}
		if resps[2].NextQuestionNumber != "3" || resps[2].IsFollowUp {
			t.Fatalf("follow-up answer: %+v", resps[2])
		}
		if !resps[5].Finished || resps[5].TotalScore == nil || resps[0].RequestID == "" {
			t.Fatalf("last answer: %+v", resps[5])
		}
		if e.model.Calls(interview.StageReview) != 1 {
			t.Fatalf("review calls = %d, want 1 (the UNSURE answer)", e.model.Calls(interview.StageReview))
		}
		if tr := e.turn(s.ID, resps[3].RequestID); tr.Review == nil || tr.ReviewReason == "" {
			t.Fatalf("reviewed turn: %+v", tr)
		}
		// Replays, the finished flow and the read side.
		r, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "A complete answer about 1", ""))
		if err != nil || r.QuestionNumber != "1" || *r.Score != *resps[0].Score {
			t.Fatalf("replay = %+v %v", r, err)
		}
		_, err = e.svc.Answer(ctx, "u1", s.ID, answer("5", "another answer", ""))
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		if n := e.model.Calls(interview.StageEvaluation); n != 6 {
			t.Fatalf("evaluations = %d, want 6", n)
		}
		rest, err := e.svc.Restore(ctx, "u1", s.ID)
		if err != nil || rest.CanResume || !rest.Current.Finished || len(rest.Suggestions) != 2 {
			t.Fatalf("restore = %+v %v", rest, err)
		}
		mains, err := e.svc.MainQuestions(ctx, "u1", s.ID)
		if err != nil || len(mains) != interviewtest.QuestionCount {
			t.Fatalf("main questions = %v %v", mains, err)
		}
		score, err := e.svc.Score(ctx, "u1", s.ID)
		if err != nil || score == nil || *score != *resps[5].TotalScore {
			t.Fatalf("score = %v %v, want %v", score, err, resps[5].TotalScore)
		}
		sg, err := e.svc.Suggestions(ctx, "u1", s.ID)
		if err != nil || sg["1"] == "" {
			t.Fatalf("suggestions = %v %v", sg, err)
		}
		rep, err := e.svc.Finish(ctx, "u1", s.ID)
		if err != nil || rep.InterviewScore == nil {
			t.Fatalf("finish = %+v %v", rep, err)
		}
		again, err := e.svc.Finish(ctx, "u1", s.ID)
		if err != nil || *again.InterviewScore != *rep.InterviewScore {
			t.Fatalf("second finish = %+v %v", again, err)
		}
		if _, err := e.svc.Record(ctx, "u1", s.ID); err != nil {
			t.Fatal(err)
		}
		recs, err := e.svc.Records(ctx, "u1", page.Request{Current: 1, Size: 10}, interview.RecordFilter{MinScore: intPtr(0), MaxScore: intPtr(100), Direction: "backend"})
		if err != nil || recs.Total != 1 {
			t.Fatalf("records = %+v %v", recs, err)
		}
		if _, err := e.svc.RadarChart(ctx, "u1", s.ID); err != nil {
			t.Fatal(err)
		}
		cur, err := e.svc.CurrentQuestion(ctx, "u1", s.ID)
		if err != nil || !cur.Finished {
			t.Fatalf("current after finish = %+v %v", cur, err)
		}
		_, err = e.svc.Answer(ctx, "u1", s.ID, answer("5", "late", ""))
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
	})
}

func TestServiceAnswerRejects(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		for _, tc := range []struct {
			name string
			in   interview.AnswerInput
		}{
			{"no question", answer(" ", "text", "")},
			{"long question number", answer(strings.Repeat("1", 17), "text", "")},
			{"no answer", answer("1", "  ", "")},
			{"long answer", answer("1", strings.Repeat("a", interview.MaxAnswerChars+1), "")},
			{"long request id", answer("1", "text", strings.Repeat("r", interview.MaxRequestIDLen+1))},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.svc.Answer(ctx, "u1", s.ID, tc.in)
				wantKind(t, err, apperr.KindInvalid, "")
			})
		}
		// Another user's session is a 404 whatever the body says.
		_, err := e.svc.Answer(ctx, "u2", s.ID, answer("", "", ""))
		wantKind(t, err, apperr.KindNotFound, apperr.CodeSessionMissing)
		// A stale question number: 409 carrying the current question.
		_, err = e.svc.Answer(ctx, "u1", s.ID, answer("3", "text", ""))
		if ae := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); ae.Data.(interview.AnswerResp).QuestionNumber != "1" {
			t.Fatalf("409 data = %+v", ae.Data)
		}
		// A session without questions.
		d := e.session("u3")
		_, err = e.svc.Answer(ctx, "u3", d.ID, answer("1", "text", ""))
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		_, err = e.svc.CurrentQuestion(ctx, "u3", d.ID)
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		// The current question is missing: a bug, not the user's fault.
		e.setSession(s.ID, map[string]any{"current_number": "9"})
		_, err = e.svc.Answer(ctx, "u1", s.ID, answer("9", "text", ""))
		wantKind(t, err, apperr.KindInternal, "")
		// A failing store.
		e.setSession(s.ID, map[string]any{"current_number": "1"})
		e.store.failOn("AnswerState", 0)
		if _, err = e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "")); !errors.Is(err, errInjected) {
			t.Fatalf("err = %v, want the store's", err)
		}
		e.store.on("AnswerState", nil)
		e.store.failOn("ClaimAnswer", 0)
		if _, err = e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "")); !errors.Is(err, errInjected) {
			t.Fatalf("err = %v, want the store's", err)
		}
	})
}

// Copies of one answer: a copy arriving while the first is evaluated joins
// its flight (202 when the flight outlasts the follower's wait); another
// answer to the same question is a 409; a copy on another instance that
// completes second answers with what the first stored.
func TestServiceAnswerConcurrentCopies(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb, followerWait(50*time.Millisecond))
		other := e.instance()
		s := e.ready("u1")
		g := e.hold(interview.StageEvaluation)
		in := answer("1", "A complete answer", "req-1")
		type result struct {
			resp interview.AnswerResp
			err  error
		}
		first := make(chan result, 1)
		go func() {
			r, err := e.svc.Answer(ctx, "u1", s.ID, in)
			first <- result{r, err}
		}()
		reqA := e.wait(g)

		// Same instance: joins the flight, which outlasts its wait: 202.
		_, err := e.svc.Answer(ctx, "u1", s.ID, in)
		var still *interview.ErrStillEvaluating
		if !errors.As(err, &still) || still.Resp.Status != "evaluating" || still.Resp.RequestID != "req-1" || still.Error() == "" {
			t.Fatalf("joined copy: %v, want ErrStillEvaluating", err)
		}
		// A different answer to the question being evaluated: 409.
		_, err = e.svc.Answer(ctx, "u1", s.ID, answer("1", "Another answer", "req-2"))
		if ae := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(ae.Message, "being evaluated") {
			t.Fatalf("message %q", ae.Message)
		}
		// Another instance evaluates alongside (its own model call).
		second := make(chan result, 1)
		go func() {
			r, err := other.Answer(ctx, "u1", s.ID, in)
			second <- result{r, err}
		}()
		reqB := e.wait(g)
		e.answer(reqA)
		a := <-first
		if a.err != nil {
			t.Fatal(a.err)
		}
		e.answer(reqB)
		b := <-second
		if b.err != nil || b.resp.Score == nil || *b.resp.Score != *a.resp.Score || b.resp.NextQuestionNumber != a.resp.NextQuestionNumber {
			t.Fatalf("copies differ: %+v (%v) vs %+v", b.resp, b.err, a.resp)
		}
		if got := e.load("u1", s.ID); got.CurrentNumber != "2" || got.Flow != interview.FlowAsking {
			t.Fatalf("session after the copies: %s %s", got.CurrentNumber, got.Flow)
		}
	})
}

// A failed evaluation keeps the answer, gives the question back and lets
// the same request be retried; a client that leaves does not fail it.
func TestServiceEvaluationFailed(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("model error then retry", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.model.Fail(interview.StageEvaluation, true)
			in := answer("1", "An answer that must not be lost", "req-1")
			_, err := e.svc.Answer(ctx, "u1", s.ID, in)
			wantKind(t, err, apperr.KindUpstream, "")
			tr := e.turn(s.ID, "req-1")
			if tr.Status != interview.TurnFailed || tr.Answer != in.AnswerContent || tr.ErrorMessage == "" {
				t.Fatalf("failed turn = %+v", tr)
			}
			if got := e.load("u1", s.ID); got.Flow != interview.FlowAsking || got.CurrentNumber != "1" {
				t.Fatalf("question not given back: %s %s", got.Flow, got.CurrentNumber)
			}
			e.model.Fail(interview.StageEvaluation, false)
			r, err := e.svc.Answer(ctx, "u1", s.ID, in)
			if err != nil || r.RequestID != "req-1" || r.Score == nil {
				t.Fatalf("retry = %+v %v", r, err)
			}
		})
		t.Run("fail answer fails", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.model.Fail(interview.StageEvaluation, true)
			e.store.failOn("FailAnswer", 0)
			_, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "req-1"))
			if !errors.Is(err, errInjected) || apperr.As(err) == nil {
				t.Fatalf("err = %v, want the model's and the store's", err)
			}
		})
		t.Run("unusable model output", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.setReply(interview.StageEvaluation, func(llmtest.RecordedRequest) llmtest.Reply {
				return llmtest.Reply{Content: "I cannot grade this."}
			})
			_, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "req-1"))
			ae := apperr.As(err)
			if ae == nil || e.turn(s.ID, "req-1").ErrorMessage != ae.Message {
				t.Fatalf("err = %v; the turn must keep the error's message", err)
			}
		})
		t.Run("client leaves during review", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			g := e.hold(interview.StageReview)
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := e.svc.Answer(cctx, "u1", s.ID, answer("1", "UNSURE answer", "req-1"))
				done <- err
			}()
			req := e.wait(g)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			e.answer(req)
			if tr := e.turn(s.ID, "req-1"); tr.Status != interview.TurnEvaluating {
				t.Fatalf("turn = %s, want still evaluating (not failed by a client leaving)", tr.Status)
			}
		})
		t.Run("review fails", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.model.Fail(interview.StageReview, true)
			r, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "UNSURE answer", "req-1"))
			if err != nil || r.Score == nil {
				t.Fatalf("a failed review must keep the first result: %+v %v", r, err)
			}
			if tr := e.turn(s.ID, "req-1"); tr.Review != nil || tr.Scored == nil || !strings.Contains(tr.Scored.Reason, "review:failed") {
				t.Fatalf("turn = %+v", tr.Scored)
			}
		})
	})
}

// Lost races of the answer claim: reload and decide again.
func TestServiceAnswerLostClaim(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("changing too fast", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.store.on("ClaimAnswer", func(int) error {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
				return nil
			})
			_, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", ""))
			if ae := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(ae.Message, "too fast") {
				t.Fatalf("message %q", ae.Message)
			}
		})
		t.Run("another answer won", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.store.on("ClaimAnswer", func(n int) error {
				if n == 1 {
					now := time.Now().UTC()
					won, err := e.store.Store.ClaimAnswer(ctx, e.load("u1", s.ID), interview.Turn{ID: "other", SessionID: s.ID,
						QuestionNumber: "1", RequestID: "other-req", Answer: "x", Status: interview.TurnEvaluating,
						CreatedAt: now, UpdatedAt: now}, "", now, now.Add(-time.Minute))
					if err != nil || !won {
						t.Fatalf("other claim: %v %v", won, err)
					}
				}
				return nil
			})
			_, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", ""))
			if ae := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(ae.Message, "being evaluated") {
				t.Fatalf("message %q", ae.Message)
			}
		})
		t.Run("reload fails", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.store.on("ClaimAnswer", func(int) error {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
				return nil
			})
			e.store.failOn("AnswerState", e.store.count("AnswerState")+2)
			if _, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "")); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the store's", err)
			}
		})
		t.Run("stale evaluation is taken over", func(t *testing.T) {
			e := newEnv(t, gdb, staleAfter(time.Minute))
			s := e.ready("u1")
			e.setSession(s.ID, map[string]any{"flow": interview.FlowEvaluating, "flow_request_id": "dead-req",
				"flow_updated_at": time.Now().UTC().Add(-time.Hour)})
			r, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "req-1"))
			if err != nil || r.RequestID != "req-1" {
				t.Fatalf("takeover = %+v %v", r, err)
			}
		})
	})
}

// Failures around storing an evaluated answer.
func TestServiceCompleteAnswer(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("store fails", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.store.failOn("CompleteAnswer", 0)
			if _, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "req-1")); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the store's", err)
			}
		})
		for _, tc := range []struct {
			name   string
			hook   func(e *env, s interview.Session)
			reread bool // fail the re-read of the turn
			want   string
		}{
			{"session moved on", func(e *env, s interview.Session) {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
			}, false, "moved on"},
			{"re-read fails", func(e *env, s interview.Session) {
				e.setSession(s.ID, map[string]any{"flow_version": gorm.Expr("flow_version + 1")})
			}, true, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, gdb)
				s := e.ready("u1")
				e.store.on("CompleteAnswer", func(int) error { tc.hook(e, s); return nil })
				if tc.reread {
					e.store.failOn("TurnByRequest", e.store.count("TurnByRequest")+1) // the re-read after the lost completion
				}
				_, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "text", "req-1"))
				if tc.reread {
					if !errors.Is(err, errInjected) {
						t.Fatalf("err = %v, want the store's", err)
					}
					return
				}
				if ae := wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState); !strings.Contains(ae.Message, tc.want) {
					t.Fatalf("message %q", ae.Message)
				}
			})
		}
	})
}

var noStrategy = regexp.MustCompile(`"followUpStrategy":"[^"]*"`)

func intPtr(n int) *int { return &n }

// The follow-up text: the model's, else the rubric's strategy, else none.
func TestServiceFollowUpFallbacks(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		t.Run("strategy", func(t *testing.T) {
			e := newEnv(t, gdb)
			s := e.ready("u1")
			e.model.Fail(interview.StageFollowUp, true)
			r, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "WEAK answer", ""))
			if err != nil || !r.IsFollowUp || r.NextQuestion != "What would you change for topic 1?" {
				t.Fatalf("follow-up from the strategy: %+v %v", r, err)
			}
		})
		t.Run("none usable", func(t *testing.T) {
			e := newEnv(t, gdb)
			e.setReply(interview.StageExtraction, func(llmtest.RecordedRequest) llmtest.Reply {
				return llmtest.Reply{Content: noStrategy.ReplaceAllString(interviewtest.Extraction(), `"followUpStrategy":""`)}
			})
			s := e.ready("u1")
			e.setReply(interview.StageFollowUp, func(llmtest.RecordedRequest) llmtest.Reply {
				return llmtest.Reply{Content: `{"followUp":"","endInterview":false}`}
			})
			r, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "WEAK answer", "req-1"))
			if err != nil || r.IsFollowUp || r.NextQuestionNumber != "2" {
				t.Fatalf("no usable follow-up: %+v %v", r, err)
			}
			if tr := e.turn(s.ID, "req-1"); tr.FollowUp == nil || tr.FollowUp.Reason != "no-usable-follow-up" {
				t.Fatalf("decision = %+v", tr.FollowUp)
			}
		})
	})
}

func TestServiceSessions(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		first := e.ready("u1")
		second := e.session("u1")
		if got := e.load("u1", first.ID); got.Status != interview.SessionAbandoned {
			t.Fatalf("a new session must abandon the active one: %s", got.Status)
		}
		got, err := e.svc.Session(ctx, "u1", second.ID)
		if err != nil || got.Status != interview.SessionDraft {
			t.Fatalf("session = %+v %v", got, err)
		}
		for _, tc := range []struct {
			f    interview.SessionFilter
			want int64
		}{
			{interview.SessionFilter{}, 2},
			{interview.SessionFilter{Status: " abandoned "}, 1},
			{interview.SessionFilter{Keyword: "backend"}, 1},
			{interview.SessionFilter{Keyword: "100%_"}, 0},
		} {
			res, err := e.svc.Page(ctx, "u1", page.Request{Current: 1, Size: 10}, tc.f)
			if err != nil || res.Total != tc.want {
				t.Fatalf("page %+v = %d %v, want %d", tc.f, res.Total, err, tc.want)
			}
		}
		_, err = e.svc.Page(ctx, "u1", page.Request{}, interview.SessionFilter{Keyword: strings.Repeat("k", 65)})
		wantKind(t, err, apperr.KindInvalid, "")
		_, _, _, err = e.svc.ResumeFile(ctx, "u1", second.ID)
		wantKind(t, err, apperr.KindNotFound, "")
		_, err = e.svc.Finish(ctx, "u1", second.ID)
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		// An unfinished session has a live report (issue 20); another
		// user's has none.
		live, err := e.svc.Record(ctx, "u1", second.ID)
		if err != nil || live.Final || live.ID != second.ID || live.InterviewStatus != interview.SessionDraft || len(live.PlaybackItems) != 0 {
			t.Fatalf("live report of a draft = %+v %v", live, err)
		}
		_, err = e.svc.Record(ctx, "u2", second.ID)
		wantKind(t, err, apperr.KindNotFound, "")
	})
}

// Concurrent finishes write one report.
func TestServiceFinishOnce(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		if _, err := e.svc.Answer(ctx, "u1", s.ID, answer("1", "A complete answer", "")); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		reps := make([]interview.Report, 3)
		errs := make([]error, 3)
		for i := range reps {
			wg.Go(func() { reps[i], errs[i] = e.svc.Finish(ctx, "u1", s.ID) })
		}
		wg.Wait()
		for i := range reps {
			if errs[i] != nil || reps[i].InterviewScore == nil || *reps[i].InterviewScore != *reps[0].InterviewScore {
				t.Fatalf("finish %d = %+v %v", i, reps[i], errs[i])
			}
		}
	})
}

// Demeanor on a model without vision: recorded as not assessed, once per
// photo.
func TestServiceDemeanorWithoutVision(t *testing.T) {
	each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := newEnv(t, gdb)
		s := e.ready("u1")
		for range 2 {
			d, err := e.svc.Demeanor(ctx, "u1", s.ID, photo(t, 10))
			if err != nil || d.Assessed || d.Message == "" || d.PhotoCount != 0 {
				t.Fatalf("demeanor = %+v %v", d, err)
			}
		}
		_, err := e.svc.Demeanor(ctx, "u1", s.ID, []byte("GIF89a"))
		wantKind(t, err, apperr.KindUnprocessable, "")
		draft := e.session("u2")
		_, err = e.svc.Demeanor(ctx, "u2", draft.ID, photo(t, 10))
		wantKind(t, err, apperr.KindConflict, apperr.CodeInvalidState)
		if e.model.Calls(interview.StageDemeanor) != 0 {
			t.Fatal("a model without vision was asked to assess a photo")
		}
	})
}
