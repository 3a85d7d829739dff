package interview_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// resumeModel answers the profile and question stages from the resume it
// is given: the skills are the words after "Skills:", and every question
// names one of them, so a replaced resume visibly changes the questions.
// A resume containing MODEL-FAIL makes the model fail (HTTP 500); one
// containing HOLD waits for release before its profile is answered.
type resumeModel struct {
	release chan struct{}
}

func skillsOf(text string) []string {
	_, after, _ := strings.Cut(text, "Skills:")
	line, _, _ := strings.Cut(after, "\n")
	var out []string
	for _, s := range strings.Split(line, ",") {
		if s = strings.Trim(strings.TrimSpace(s), "."); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (m *resumeModel) reply(req llmtest.RecordedRequest) llmtest.Reply {
	var in struct {
		ResumeText string `json:"resumeText"`
	}
	_ = json.Unmarshal([]byte(req.LastUserMessage()), &in)
	if strings.Contains(in.ResumeText, "MODEL-FAIL") {
		return llmtest.ErrorReply(500, "upstream overloaded", "server_error")
	}
	skills := skillsOf(in.ResumeText)
	if len(skills) == 0 {
		skills = []string{"general engineering"}
	}
	switch req.Stage() {
	case interview.StageProfile:
		var hold <-chan struct{}
		if strings.Contains(in.ResumeText, "HOLD") {
			hold = m.release
		}
		b, _ := json.Marshal(skills)
		return llmtest.Reply{Hold: hold, Content: `{"skills":` + string(b) + `,"roleHypotheses":[{"target":"` + skills[0] +
			` engineer","evidence":"resume","confidence":0.9}],"resumeScore":70,"resumeSuggestions":["Quantify ` + skills[0] + ` impact."]}`}
	case interview.StageExtraction:
		var qs []string
		for i := range 5 {
			skill := skills[i%len(skills)]
			qs = append(qs, fmt.Sprintf(`{"content":"Question %d: how did you use %s?","anchors":[{"name":"core","weight":100,"core":true,
				"acceptableStatements":["uses %s"]}],"followUpStrategy":"More about %s?","rubricVersion":1}`, i+1, skill, skill, skill))
		}
		return llmtest.Reply{Content: `{"questions":[` + strings.Join(qs, ",") + `],"interviewType":"` + skills[0] + ` engineer"}`}
	}
	return llmtest.ErrorReply(400, "unexpected stage", "invalid_request_error")
}

// uploadEnv is a service on a real store with a fake model.
type uploadEnv struct {
	svc       *interview.Service
	store     *interview.GormStore
	model     *llmtest.Server
	fake      *resumeModel
	uploadDir string
}

func MustUploadEnv(t *testing.T, gdb *gorm.DB) *uploadEnv {
	t.Helper()
	fake := &resumeModel{release: make(chan struct{})}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.reply))
	cfg := singleflight.DefaultConfig()
	cfg.Mode = singleflight.ModeLocal
	cfg.Stages = interview.FlightStages()
	flights, err := singleflight.New(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flights.Close() })
	gc := aiguard.DefaultConfig()
	gc.Stages = interview.GuardStages()
	guard, err := aiguard.New(gc, nil)
	if err != nil {
		t.Fatal(err)
	}
	provider, err := llm.New(llm.Config{Type: "other", BaseURL: model.URL(), Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	store := interview.NewGormStore(gdb)
	dir := t.TempDir()
	svc, err := interview.NewService(store, interview.NewInvoker(flights, guard, nil), provider, interview.Config{Files: s3test.Files(t, dir), MinChars: -1})
	if err != nil {
		t.Fatal(err)
	}
	return &uploadEnv{svc: svc, store: store, model: model, fake: fake, uploadDir: dir}
}

// callsAbout counts the model requests whose user message contains substr.
func (e *uploadEnv) callsAbout(substr string) int {
	n := 0
	for _, r := range e.model.Requests() {
		if strings.Contains(r.LastUserMessage(), substr) {
			n++
		}
	}
	return n
}

// filesOf lists the resume files stored on disk for user.
func (e *uploadEnv) filesOf(t *testing.T, user string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.uploadDir, interview.ResumePrefix, user))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		out = append(out, en.Name())
	}
	return out
}

// snapshot is what a failed or refused replacement must leave unchanged.
type snapshot struct {
	Status    string
	FileID    string
	Target    string
	Score     *int
	Questions map[string]string
	Resume    string
	Read      *interview.ReadSummary
}

func (e *uploadEnv) snapshot(t *testing.T, user, sid string) snapshot {
	t.Helper()
	ctx := context.Background()
	sess, err := e.svc.Session(ctx, user, sid)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := e.svc.MainQuestions(ctx, user, sid)
	if err != nil {
		t.Fatal(err)
	}
	_, obj, _, err := e.svc.ResumeFile(ctx, user, sid)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(obj)
	obj.Close()
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{Status: sess.Status, FileID: sess.ResumeFileID, Target: sess.Target, Score: sess.ResumeScore,
		Questions: qs, Resume: string(data), Read: sess.Read}
}

func questionsMention(qs map[string]string, word string) bool {
	for _, q := range qs {
		if strings.Contains(q, word) {
			return true
		}
	}
	return false
}

const (
	resumeA = "Ann Lee, backend engineer\nSkills: Golang, PostgreSQL, Kafka.\nBuilt a payment ledger at 5000 TPS.\n"
	resumeB = "Ann Lee, frontend engineer\nSkills: React, TypeScript, Webpack.\nShipped a design system used by 12 teams.\n"
)

func TestReplaceResumeBeforeFirstAnswer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := MustUploadEnv(t, gdb)
		const user = "u-replace"
		sess, err := e.svc.Create(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		sid := sess.ID

		a, err := e.svc.Upload(ctx, user, sid, "a.txt", []byte(resumeA), "")
		if err != nil {
			t.Fatal(err)
		}
		if want := (interview.ReadSummary{Chars: utf8.RuneCountInString(resumeA), Source: interview.ReadFromText, Kind: "txt"}); a.Read != want || a.Replaced {
			t.Fatalf("first upload read %+v replaced %v, want %+v and false", a.Read, a.Replaced, want)
		}
		if !questionsMention(a.Questions, "Kafka") {
			t.Fatalf("questions of A do not name its skills: %v", a.Questions)
		}
		before := e.snapshot(t, user, sid)
		if before.Status != interview.SessionReady || before.Read == nil || *before.Read != a.Read {
			t.Fatalf("after A: %+v", before)
		}

		// B replaces A: new questions about B, new read summary, A's file gone.
		b, err := e.svc.Upload(ctx, user, sid, "b.md", []byte(resumeB), "")
		if err != nil {
			t.Fatal(err)
		}
		if !b.Replaced || !questionsMention(b.Questions, "React") || questionsMention(b.Questions, "Kafka") {
			t.Fatalf("replacement: replaced %v questions %v", b.Replaced, b.Questions)
		}
		after := e.snapshot(t, user, sid)
		if after.Status != interview.SessionReady || after.FileID == before.FileID || after.Resume != resumeB ||
			after.Target != "React engineer" || after.Read.Chars != utf8.RuneCountInString(resumeB) {
			t.Fatalf("after B: %+v", after)
		}
		if _, err := e.store.File(ctx, user, before.FileID); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("A's file row: %v, want not found", err)
		}
		if got := e.filesOf(t, user); len(got) != 1 || got[0] != after.FileID {
			t.Fatalf("files on disk %v, want only %s", got, after.FileID)
		}
		if r, err := e.svc.Restore(ctx, user, sid); err != nil || !r.CanReplaceResume || r.Read == nil || *r.Read != b.Read {
			t.Fatalf("restore: %+v %v", r, err)
		}

		// Failing replacements change nothing and keep the session READY:
		// an unreadable file (422 before any claim), a model failure.
		_, err = e.svc.Upload(ctx, user, sid, "scan.pdf", []byte("\x89PNG\r\n\x1a\nnot a resume"), "")
		if !apperr.Is(err, apperr.KindUnprocessable) {
			t.Fatalf("unreadable replacement: %v, want 422", err)
		}
		if got := e.snapshot(t, user, sid); !sameSnapshot(got, after) {
			t.Fatalf("after an unreadable replacement:\n got %+v\nwant %+v", got, after)
		}
		_, err = e.svc.Upload(ctx, user, sid, "c.txt", []byte("Skills: Rust.\nMODEL-FAIL\n"), "")
		if err == nil || apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("replacement with a failing model: %v", err)
		}
		if got := e.snapshot(t, user, sid); !sameSnapshot(got, after) {
			t.Fatalf("after a failed extraction:\n got %+v\nwant %+v", got, after)
		}
		if got := e.filesOf(t, user); len(got) != 1 {
			t.Fatalf("files on disk after failures: %v", got)
		}

		// Serving the first question starts the interview: no more replacing.
		if _, err := e.svc.CurrentQuestion(ctx, user, sid); err != nil {
			t.Fatal(err)
		}
		started := e.snapshot(t, user, sid)
		_, err = e.svc.Upload(ctx, user, sid, "a.txt", []byte(resumeA), "")
		if ae := apperr.As(err); ae == nil || ae.Kind != apperr.KindConflict || ae.Code != apperr.CodeInvalidState ||
			!strings.Contains(ae.Message, "can no longer be replaced once the interview has started") {
			t.Fatalf("replacement after the start: %v", err)
		}
		if got := e.snapshot(t, user, sid); !sameSnapshot(got, started) || got.Status != interview.SessionInProgress {
			t.Fatalf("after a refused replacement:\n got %+v\nwant %+v", got, started)
		}
		if r, err := e.svc.Restore(ctx, user, sid); err != nil || r.CanReplaceResume {
			t.Fatalf("restore after the start: %+v %v", r, err)
		}
	})
}

func sameSnapshot(a, b snapshot) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A failed first upload returns the session to DRAFT (nothing to keep).
func TestFailedFirstUploadReturnsToDraft(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := MustUploadEnv(t, gdb)
		sess, err := e.svc.Create(ctx, "u-draft")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Upload(ctx, "u-draft", sess.ID, "r.txt", []byte("Skills: Go.\nMODEL-FAIL\n"), ""); err == nil {
			t.Fatal("upload with a failing model succeeded")
		}
		got, err := e.svc.Session(ctx, "u-draft", sess.ID)
		if err != nil || got.Status != interview.SessionDraft || got.ResumeFileID != "" || got.Read != nil {
			t.Fatalf("after a failed first upload: %+v %v", got, err)
		}
		if files := e.filesOf(t, "u-draft"); len(files) != 0 {
			t.Fatalf("files on disk: %v", files)
		}
	})
}

// A double-submitted replacement joins one extraction: one model call,
// both copies answer with the same questions, one file is kept.
func TestDoubleSubmittedReplacementJoinsOneExtraction(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		e := MustUploadEnv(t, gdb)
		const user = "u-double"
		sess, err := e.svc.Create(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Upload(ctx, user, sess.ID, "a.txt", []byte(resumeA), ""); err != nil {
			t.Fatal(err)
		}
		held := []byte("Ann Lee, data engineer\nSkills: Spark, Airflow, dbt.\nHOLD\n")
		var wg sync.WaitGroup
		results := make([]interview.UploadResult, 2)
		errs := make([]error, 2)
		upload := func(i int) {
			defer wg.Done()
			results[i], errs[i] = e.svc.Upload(ctx, user, sess.ID, "c.txt", held, "")
		}
		wg.Add(1)
		go upload(0)
		// The first copy holds the session (RESUME_UPLOADING) and the model.
		waitFor(t, func() bool { return e.callsAbout("HOLD") == 1 })
		if s, _ := e.svc.Session(ctx, user, sess.ID); s.Status != interview.SessionResumeUploading {
			t.Fatalf("status while extracting: %s", s.Status)
		}
		wg.Add(1)
		go upload(1)
		// The second copy finds RESUME_UPLOADING with the same hash and
		// joins; give it a moment to reach the flight, then release. (Should
		// it come late, it replays the stored flight: the checks below hold
		// either way.)
		time.Sleep(200 * time.Millisecond)
		close(e.fake.release)
		wg.Wait()
		for i := range results {
			if errs[i] != nil || !questionsMention(results[i].Questions, "Spark") {
				t.Fatalf("copy %d: %v %v", i, errs[i], results[i].Questions)
			}
		}
		if fmt.Sprint(results[0].Questions) != fmt.Sprint(results[1].Questions) {
			t.Fatalf("copies differ: %v / %v", results[0].Questions, results[1].Questions)
		}
		if n := e.callsAbout("HOLD"); n != 2 { // one profile call + one question call
			t.Fatalf("model calls for the held resume = %d, want 2 (one extraction)", n)
		}
		got := e.snapshot(t, user, sess.ID)
		if got.Status != interview.SessionReady || !strings.Contains(got.Resume, "Spark") {
			t.Fatalf("after the double submit: %+v", got)
		}
		if files := e.filesOf(t, user); len(files) != 1 || files[0] != got.FileID {
			t.Fatalf("files on disk %v, want only %s", files, got.FileID)
		}
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
