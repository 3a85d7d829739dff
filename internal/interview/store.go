package interview

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// errSessionMissing is the 404 of every session the caller cannot see.
var errSessionMissing = apperr.NotFound("interview session").WithCode(apperr.CodeSessionMissing)

type sessionRow struct {
	ID             string `gorm:"primaryKey"`
	UserID         string
	Status         string
	Flow           string
	FlowVersion    int64
	FlowRequestID  string
	FlowUpdatedAt  *time.Time
	UploadHash     string
	CurrentNumber  string
	InterviewType  string
	Target         string
	ResumeScore    *int
	ResumeFileID   string
	ResumeChars    int
	ResumePages    int
	ResumeSource   string
	ResumeOCRPages int `gorm:"column:resume_ocr_pages"`
	ResumeKind     string
	Suggestions    *string
	Profile        *string
	Offline        bool
	Language       string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
}

func (sessionRow) TableName() string { return "interview_sessions" }

type fileRow struct {
	ID        string `gorm:"primaryKey"`
	UserID    string
	SessionID string
	Filename  string
	MIME      string `gorm:"column:mime"`
	Size      int64
	SHA256    string `gorm:"column:sha256"`
	Path      string
	Text      *string
	CreatedAt time.Time
}

func (fileRow) TableName() string { return "interview_files" }

type questionRow struct {
	SessionID  string `gorm:"primaryKey"`
	Number     string `gorm:"primaryKey"`
	Seq        int
	Content    string
	Spec       *string
	IsFollowUp bool
	ParentNo   string
	Targets    *string
	CreatedAt  time.Time
}

func (questionRow) TableName() string { return "interview_questions" }

type turnRow struct {
	ID             string `gorm:"primaryKey"`
	SessionID      string
	QuestionNumber string
	RequestID      string
	Answer         string
	Status         string
	Score          *int
	Scored         *string
	Evaluation     *string
	Review         *string
	ReviewReason   string
	Feedback       *string
	FollowUp       *string
	PromptVersion  string
	ErrorMessage   *string
	Response       *string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (turnRow) TableName() string { return "interview_turns" }

// jsonText encodes v for a JSON text column (nil stays NULL).
func jsonText(v any) *string {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	s := string(b)
	return &s
}

// fromJSON decodes a JSON text column into v; NULL leaves v as it is.
func fromJSON(s *string, v any) {
	if s != nil && *s != "" {
		_ = json.Unmarshal([]byte(*s), v) // written by us; a bad value reads as empty
	}
}

func strPtr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func toSessionRow(s Session) sessionRow {
	r := sessionRow{ID: s.ID, UserID: s.UserID, Status: s.Status, Flow: s.Flow, FlowVersion: s.FlowVersion,
		FlowRequestID: s.FlowRequestID, FlowUpdatedAt: s.FlowUpdatedAt, UploadHash: s.UploadHash,
		CurrentNumber: s.CurrentNumber, InterviewType: s.InterviewType, Target: s.Target, ResumeScore: s.ResumeScore,
		ResumeFileID: s.ResumeFileID, Suggestions: jsonText(s.Suggestions), Offline: s.Offline, Language: s.Language,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, StartedAt: s.StartedAt, FinishedAt: s.FinishedAt}
	if s.Profile != nil {
		r.Profile = jsonText(s.Profile)
	}
	if s.Read != nil {
		r.ResumeChars, r.ResumePages, r.ResumeSource, r.ResumeOCRPages = s.Read.Chars, s.Read.Pages, s.Read.Source, s.Read.OCRPages
		r.ResumeKind = s.Read.Kind
	}
	return r
}

func (r sessionRow) toSession() Session {
	s := Session{ID: r.ID, UserID: r.UserID, Status: r.Status, Flow: r.Flow, FlowVersion: r.FlowVersion,
		FlowRequestID: r.FlowRequestID, FlowUpdatedAt: r.FlowUpdatedAt, UploadHash: r.UploadHash,
		CurrentNumber: r.CurrentNumber, InterviewType: r.InterviewType, Target: r.Target, ResumeScore: r.ResumeScore,
		ResumeFileID: r.ResumeFileID, Offline: r.Offline, Language: r.Language, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	fromJSON(r.Suggestions, &s.Suggestions)
	if r.ResumeSource != "" {
		s.Read = &ReadSummary{Chars: r.ResumeChars, Pages: r.ResumePages, Source: r.ResumeSource, OCRPages: r.ResumeOCRPages, Kind: r.ResumeKind}
	}
	if r.Profile != nil {
		var p Profile
		fromJSON(r.Profile, &p)
		s.Profile = &p
	}
	return s
}

func toQuestionRow(q Question) questionRow {
	return questionRow{SessionID: q.SessionID, Number: q.Number, Seq: q.Seq, Content: q.Content, Spec: jsonText(q.Spec),
		IsFollowUp: q.IsFollow, ParentNo: q.ParentNo, Targets: jsonText(q.Targets), CreatedAt: q.CreatedAt}
}

func (r questionRow) toQuestion() Question {
	q := Question{SessionID: r.SessionID, Number: r.Number, Seq: r.Seq, Content: r.Content, IsFollow: r.IsFollowUp,
		ParentNo: r.ParentNo, CreatedAt: r.CreatedAt}
	fromJSON(r.Spec, &q.Spec)
	fromJSON(r.Targets, &q.Targets)
	return q
}

func toTurnRow(t Turn) turnRow {
	r := turnRow{ID: t.ID, SessionID: t.SessionID, QuestionNumber: t.QuestionNumber, RequestID: t.RequestID,
		Answer: t.Answer, Status: t.Status, ReviewReason: t.ReviewReason, PromptVersion: t.PromptVersion,
		Feedback: strPtr(t.Feedback), ErrorMessage: strPtr(t.ErrorMessage), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if t.Scored != nil {
		score := t.Scored.Score
		r.Score = &score
		r.Scored = jsonText(t.Scored)
	}
	if t.Evaluation != nil {
		r.Evaluation = jsonText(t.Evaluation)
	}
	if t.Review != nil {
		r.Review = jsonText(t.Review)
	}
	if t.FollowUp != nil {
		r.FollowUp = jsonText(t.FollowUp)
	}
	if t.Response != nil {
		r.Response = jsonText(t.Response)
	}
	return r
}

func (r turnRow) toTurn() Turn {
	t := Turn{ID: r.ID, SessionID: r.SessionID, QuestionNumber: r.QuestionNumber, RequestID: r.RequestID,
		Answer: r.Answer, Status: r.Status, ReviewReason: r.ReviewReason, PromptVersion: r.PromptVersion,
		Feedback: deref(r.Feedback), ErrorMessage: deref(r.ErrorMessage), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.Scored != nil {
		t.Scored = &Scored{}
		fromJSON(r.Scored, t.Scored)
	}
	if r.Evaluation != nil {
		t.Evaluation = &Evaluation{}
		fromJSON(r.Evaluation, t.Evaluation)
	}
	if r.Review != nil {
		t.Review = &Evaluation{}
		fromJSON(r.Review, t.Review)
	}
	if r.FollowUp != nil {
		t.FollowUp = &FollowUpDecision{}
		fromJSON(r.FollowUp, t.FollowUp)
	}
	if r.Response != nil {
		t.Response = &AnswerResp{}
		fromJSON(r.Response, t.Response)
	}
	return t
}

// GormStore keeps interviews in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var _ Store = (*GormStore)(nil)

// activeStatuses are the states a new session abandons.
var activeStatuses = []string{SessionDraft, SessionResumeUploading, SessionReady, SessionInProgress}

// CreateSession abandons the user's active sessions and inserts s, in one
// transaction; it returns the ids of the sessions it abandoned (changed
// even when it fails: a failed commit may still have happened).
//
// The active sessions are found with a plain (non-locking) read and
// abandoned by primary key: an UPDATE ranging over the user's entries of
// an index would lock the gap after them (REPEATABLE READ), and two users
// whose ids fall in the same gap (time-ordered ids: the newest users share
// the last gap) would each wait to insert into the other's locked gap, a
// deadlock (issue 21). Two creates of the same user at the same instant may
// therefore both stay active; the next create abandons both, and nothing
// relies on a single active session.
func (st *GormStore) CreateSession(ctx context.Context, s Session) (abandoned []string, err error) {
	err = db.Transaction(ctx, st.db, func(tx *gorm.DB) error {
		var active []string
		abandoned = nil // a retried transaction starts over
		if err := tx.Model(&sessionRow{}).Where("user_id = ? AND status IN ?", s.UserID, activeStatuses).
			Pluck("id", &active).Error; err != nil {
			return fmt.Errorf("find active sessions: %w", err)
		}
		if len(active) > 0 {
			if err := tx.Model(&sessionRow{}).Where("id IN ? AND status IN ?", active, activeStatuses).
				Updates(map[string]any{"status": SessionAbandoned, "updated_at": s.CreatedAt}).Error; err != nil {
				return fmt.Errorf("abandon sessions: %w", err)
			}
			abandoned = active
		}
		r := toSessionRow(s)
		if err := tx.Create(&r).Error; err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return nil
	})
	return abandoned, err
}

// Session loads a session of userID; another user's session is missing.
func (st *GormStore) Session(ctx context.Context, userID, id string) (Session, error) {
	var r sessionRow
	err := st.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&r).Error
	if db.IsNotFound(err) {
		return Session{}, errSessionMissing
	}
	if err != nil {
		return Session{}, fmt.Errorf("load session: %w", err)
	}
	return r.toSession(), nil
}

// SessionFilter narrows a page of sessions.
type SessionFilter struct {
	Status  string
	Keyword string
}

// PageSessions lists a user's sessions, newest first.
func (st *GormStore) PageSessions(ctx context.Context, userID string, p page.Request, f SessionFilter) (page.Result[Session], error) {
	q := st.db.WithContext(ctx).Model(&sessionRow{}).Where("user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Keyword != "" {
		like := db.LikePattern(f.Keyword)
		q = q.Where("(interview_type LIKE ?"+db.LikeEscape+" OR target LIKE ?"+db.LikeEscape+")", like, like)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Session]{}, fmt.Errorf("count sessions: %w", err)
	}
	var rows []sessionRow
	if err := q.Order("created_at DESC, id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Session]{}, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]Session, len(rows))
	for i, r := range rows {
		out[i] = r.toSession()
	}
	return page.NewResult(p, out, total), nil
}

// ClaimUpload moves a DRAFT or READY session (or one stuck uploading since
// before staleBefore) to RESUME_UPLOADING for the upload with hash.
func (st *GormStore) ClaimUpload(ctx context.Context, s Session, hash string, now, staleBefore time.Time) (bool, error) {
	res := st.db.WithContext(ctx).Model(&sessionRow{}).
		Where("id = ? AND flow_version = ? AND (status IN ? OR (status = ? AND flow_updated_at < ?))",
			s.ID, s.FlowVersion, []string{SessionDraft, SessionReady}, SessionResumeUploading, staleBefore).
		Updates(map[string]any{"status": SessionResumeUploading, "upload_hash": hash, "flow_version": gorm.Expr("flow_version + 1"),
			"flow_updated_at": now, "updated_at": now})
	if res.Error != nil {
		return false, fmt.Errorf("claim upload: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// FailUpload ends an upload whose extraction failed: the session goes
// back to READY when it still has a previous resume (a failed replacement
// keeps the old resume and questions), else to DRAFT.
func (st *GormStore) FailUpload(ctx context.Context, id, hash string, now time.Time) error {
	back := gorm.Expr("CASE WHEN resume_file_id = '' THEN ? ELSE ? END", SessionDraft, SessionReady)
	return st.db.WithContext(ctx).Model(&sessionRow{}).
		Where("id = ? AND status = ? AND upload_hash = ?", id, SessionResumeUploading, hash).
		Updates(map[string]any{"status": back, "upload_hash": "", "flow_version": gorm.Expr("flow_version + 1"),
			"flow_updated_at": now, "updated_at": now}).Error
}

// CompleteUpload stores the file and questions and makes the session READY,
// if it is still uploading hash. A previous resume of the session (a
// replacement before the first answer) is replaced in the same
// transaction: its file rows are deleted and returned, so that the caller
// removes their bytes once the new ones are committed.
func (st *GormStore) CompleteUpload(ctx context.Context, s Session, f File, qs []Question) (replaced []File, won bool, err error) {
	var read ReadSummary
	if s.Read != nil {
		read = *s.Read
	}
	err = db.Transaction(ctx, st.db, func(tx *gorm.DB) error {
		replaced, won = nil, false // a retried transaction starts over
		now := s.UpdatedAt
		res := tx.Model(&sessionRow{}).
			Where("id = ? AND status = ? AND upload_hash = ?", s.ID, SessionResumeUploading, s.UploadHash).
			Updates(map[string]any{"status": SessionReady, "flow": FlowAsking, "flow_version": gorm.Expr("flow_version + 1"),
				"flow_request_id": "", "flow_updated_at": now, "upload_hash": "", "current_number": s.CurrentNumber,
				"interview_type": s.InterviewType, "target": s.Target, "resume_score": s.ResumeScore,
				"resume_file_id": f.ID, "resume_chars": read.Chars, "resume_pages": read.Pages, "resume_source": read.Source,
				"resume_ocr_pages": read.OCRPages, "resume_kind": read.Kind, "suggestions": jsonText(s.Suggestions), "profile": jsonText(s.Profile),
				"offline": s.Offline, "language": sessionLanguage(s), "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return nil // someone else completed or reset it
		}
		var old []fileRow
		if err := tx.Where("session_id = ?", s.ID).Find(&old).Error; err != nil {
			return err
		}
		// Rows are deleted by key, found with plain reads: a locking
		// DELETE by session would lock the index gap the next sessions
		// insert into (see ClaimAnswer).
		if len(old) > 0 {
			oldIDs := make([]string, len(old))
			for i, r := range old {
				oldIDs[i] = r.ID
			}
			if err := tx.Where("id IN ?", oldIDs).Delete(&fileRow{}).Error; err != nil {
				return err
			}
		}
		for _, r := range old {
			replaced = append(replaced, r.toFile())
		}
		fr := fileRow{ID: f.ID, UserID: f.UserID, SessionID: f.SessionID, Filename: f.Filename, MIME: f.MIME, Size: f.Size,
			SHA256: f.SHA256, Path: f.Path, Text: strPtr(f.Text), CreatedAt: f.CreatedAt}
		if err := tx.Create(&fr).Error; err != nil {
			return err
		}
		var oldNumbers []string
		if err := tx.Model(&questionRow{}).Where("session_id = ?", s.ID).Pluck("number", &oldNumbers).Error; err != nil {
			return err
		}
		if len(oldNumbers) > 0 {
			if err := tx.Where("session_id = ? AND number IN ?", s.ID, oldNumbers).Delete(&questionRow{}).Error; err != nil {
				return err
			}
		}
		rows := make([]questionRow, len(qs))
		for i, q := range qs {
			rows[i] = toQuestionRow(q)
		}
		if err := tx.Create(&rows).Error; err != nil {
			return err
		}
		won = true
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("complete upload: %w", err)
	}
	return replaced, won, nil
}

// Questions lists a session's questions in asking order.
func (st *GormStore) Questions(ctx context.Context, sessionID string) ([]Question, error) {
	var rows []questionRow
	if err := st.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("seq").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list questions: %w", err)
	}
	out := make([]Question, len(rows))
	for i, r := range rows {
		out[i] = r.toQuestion()
	}
	return out, nil
}

// StartInterview moves a READY session to IN_PROGRESS (first question served).
func (st *GormStore) StartInterview(ctx context.Context, id string, now time.Time) error {
	return st.db.WithContext(ctx).Model(&sessionRow{}).Where("id = ? AND status = ?", id, SessionReady).
		Updates(map[string]any{"status": SessionInProgress, "started_at": now, "updated_at": now}).Error
}

// TurnByRequest loads the turn of a request.
func (st *GormStore) TurnByRequest(ctx context.Context, sessionID, requestID string) (Turn, error) {
	var r turnRow
	err := st.db.WithContext(ctx).Where("session_id = ? AND request_id = ?", sessionID, requestID).Take(&r).Error
	if db.IsNotFound(err) {
		return Turn{}, apperr.NotFound("turn")
	}
	if err != nil {
		return Turn{}, fmt.Errorf("load turn: %w", err)
	}
	return r.toTurn(), nil
}

// Turns lists a session's turns in order.
func (st *GormStore) Turns(ctx context.Context, sessionID string) ([]Turn, error) {
	var rows []turnRow
	if err := st.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list turns: %w", err)
	}
	out := make([]Turn, len(rows))
	for i, r := range rows {
		out[i] = r.toTurn()
	}
	return out, nil
}

// The compare-and-sets of ClaimAnswer and CompleteAnswer on the session
// row, written out: gorm building them (db.Dry) was 4 % of the server's CPU
// on a distinct answer (issue 21).
const (
	claimGuardSQL = "UPDATE interview_sessions SET flow = ?, flow_version = flow_version + 1, flow_request_id = ?, " +
		"flow_updated_at = ?, status = ?, updated_at = ? " +
		"WHERE id = ? AND flow_version = ? AND current_number = ? AND status IN (?, ?) " +
		"AND (flow = ? OR (flow = ? AND flow_updated_at < ?))"
	completeGuardSQL = "UPDATE interview_sessions SET flow = ?, flow_version = flow_version + 1, flow_request_id = '', " +
		"flow_updated_at = ?, current_number = ?, updated_at = ? " +
		"WHERE id = ? AND flow_version = ? AND flow = ? AND flow_request_id = ?"
)

// ClaimAnswer takes the EVALUATING phase for t's request and stores the
// answer, in one transaction of two statements. It succeeds when the
// session is still at the version s was read at, asking t's question (or
// stuck evaluating since before staleBefore). The answer is stored before
// any model call.
//
// retryOf is the id of a failed earlier attempt of the same request, ""
// when the caller saw none: that turn is retried in place (deleted by
// primary key, then the new one inserted). The caller found it with a
// plain read; a failed turn it missed makes the insert a duplicate, and
// the claim is then lost (false) so that the caller reads again. No turn
// is looked up or deleted by session and request here: a locking read or
// DELETE of an (usually absent) turn locks the index gap where it would
// be, the gap every session created about the same time inserts its turns
// into, and two claims then deadlock on each other's gap (issue 21).
func (st *GormStore) ClaimAnswer(ctx context.Context, s Session, t Turn, retryOf string, now, staleBefore time.Time) (bool, error) {
	// The session row's compare-and-set serializes the claims of a session
	// (on MySQL at READ COMMITTED, as every transaction, db.Open:
	// REPEATABLE READ's gap locks on the turns' indexes only made claims of
	// different sessions deadlock, issue 21). One round trip on MySQL
	// (db.GuardedScript).
	guard := db.Stmt{SQL: claimGuardSQL, Vars: []any{FlowEvaluating, t.RequestID, now, SessionInProgress, now,
		s.ID, s.FlowVersion, t.QuestionNumber, SessionReady, SessionInProgress, FlowAsking, FlowEvaluating, staleBefore}}
	var then []db.Stmt
	if retryOf != "" {
		// The session row locked by the guard serializes every write to
		// this session's turns: the failed turn is still failed.
		del, err := db.Dry(st.db, func(tx *gorm.DB) *gorm.DB {
			return tx.Where("id = ? AND status = ?", retryOf, TurnFailed).Delete(&turnRow{})
		})
		if err != nil {
			return false, fmt.Errorf("claim answer: %w", err)
		}
		then = append(then, del)
	}
	r := toTurnRow(t)
	ins, err := db.Dry(st.db, func(tx *gorm.DB) *gorm.DB { return tx.Create(&r) })
	if err != nil {
		return false, fmt.Errorf("claim answer: %w", err)
	}
	won, err := db.GuardedScript(ctx, st.db, guard, append(then, ins)...)
	if db.IsDuplicate(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim answer: %w", err)
	}
	return won, nil
}

// evaluatedTurnCols are the columns of a turn its evaluation sets.
var evaluatedTurnCols = []string{"status", "score", "scored", "evaluation", "review", "review_reason", "feedback",
	"follow_up", "prompt_version", "error_message", "response", "updated_at"}

// CompleteAnswer stores the evaluated turn, the follow-up question if any
// and the AI trace entries of the evaluation, and moves the flow on, if
// the session is still evaluating requestID at version: one transaction of
// at most four statements. It reports whether this call did it (when not,
// nothing is stored, traces included).
func (st *GormStore) CompleteAnswer(ctx context.Context, sessionID string, version int64, t Turn, flow, next string,
	followUp *Question, traces []TraceEntry) (bool, error) {
	guard := db.Stmt{SQL: completeGuardSQL, Vars: []any{flow, t.UpdatedAt, next, t.UpdatedAt,
		sessionID, version, FlowEvaluating, t.RequestID}}
	var err error
	r := toTurnRow(t)
	// The claim stored the answer, its request and question: only the
	// evaluation's columns change.
	builds := []func(tx *gorm.DB) *gorm.DB{func(tx *gorm.DB) *gorm.DB {
		return tx.Model(&turnRow{}).Where("id = ?", t.ID).Select(evaluatedTurnCols).Updates(&r)
	}}
	if followUp != nil {
		q := toQuestionRow(*followUp)
		builds = append(builds, func(tx *gorm.DB) *gorm.DB { return tx.Create(&q) })
	}
	if len(traces) > 0 {
		rows := traceRows(traces)
		builds = append(builds, func(tx *gorm.DB) *gorm.DB { return tx.Create(&rows) })
	}
	then := make([]db.Stmt, len(builds))
	for i, build := range builds {
		if then[i], err = db.Dry(st.db, build); err != nil {
			return false, fmt.Errorf("complete answer: %w", err)
		}
	}
	won, err := db.GuardedScript(ctx, st.db, guard, then...)
	if err != nil {
		return false, fmt.Errorf("complete answer: %w", err)
	}
	return won, nil
}

// FailAnswer records a failed evaluation and gives the question back
// (ASKING), so the same request can be retried; the answer stays stored.
func (st *GormStore) FailAnswer(ctx context.Context, sessionID string, version int64, t Turn) error {
	return db.Transaction(ctx, st.db, func(tx *gorm.DB) error {
		res := tx.Model(&sessionRow{}).
			Where("id = ? AND flow_version = ? AND flow = ? AND flow_request_id = ?", sessionID, version, FlowEvaluating, t.RequestID).
			Updates(map[string]any{"flow": FlowAsking, "flow_version": gorm.Expr("flow_version + 1"), "flow_request_id": "",
				"flow_updated_at": t.UpdatedAt, "updated_at": t.UpdatedAt})
		if res.Error != nil || res.RowsAffected != 1 {
			return res.Error
		}
		return tx.Model(&turnRow{}).Where("id = ?", t.ID).
			Updates(map[string]any{"status": TurnFailed, "error_message": t.ErrorMessage, "updated_at": t.UpdatedAt}).Error
	})
}

// File loads a user's uploaded file.
func (st *GormStore) File(ctx context.Context, userID, id string) (File, error) {
	var r fileRow
	err := st.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&r).Error
	if db.IsNotFound(err) {
		return File{}, apperr.NotFound("resume file")
	}
	if err != nil {
		return File{}, fmt.Errorf("load file: %w", err)
	}
	return r.toFile(), nil
}

// PathsInUse reports which of paths a resume file row names.
func (st *GormStore) PathsInUse(ctx context.Context, paths []string) (map[string]bool, error) {
	var found []string
	if err := st.db.WithContext(ctx).Model(&fileRow{}).Where("path IN ?", paths).Pluck("path", &found).Error; err != nil {
		return nil, fmt.Errorf("resume files by path: %w", err)
	}
	out := make(map[string]bool, len(found))
	for _, p := range found {
		out[p] = true
	}
	return out, nil
}

func (r fileRow) toFile() File {
	return File{ID: r.ID, UserID: r.UserID, SessionID: r.SessionID, Filename: r.Filename, MIME: r.MIME, Size: r.Size,
		SHA256: r.SHA256, Path: r.Path, Text: deref(r.Text), CreatedAt: r.CreatedAt}
}

// normalizeStatus upper-cases a status filter.
func normalizeStatus(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

type demeanorRow struct {
	ID          string `gorm:"primaryKey"`
	SessionID   string
	ImageSHA256 string `gorm:"column:image_sha256"`
	Assessed    bool
	Panic       *int
	Seriousness *int
	Emoticon    *int
	Composite   *int
	CreatedAt   time.Time
}

func (demeanorRow) TableName() string { return "interview_demeanor" }

type reportRow struct {
	SessionID       string `gorm:"primaryKey"`
	UserID          string
	InterviewScore  *int
	ResumeScore     *int
	Direction       string
	QuestionCount   int
	DurationSeconds int64
	Report          string
	CreatedAt       time.Time
}

func (reportRow) TableName() string { return "interview_reports" }

// AddDemeanor stores one photo's result; the same photo of a session is
// stored once (a repeat is ignored).
func (st *GormStore) AddDemeanor(ctx context.Context, sessionID, imageHash string, d DemeanorResult, now time.Time) error {
	r := demeanorRow{ID: ids.New(), SessionID: sessionID, ImageSHA256: imageHash, Assessed: d.Assessed,
		Panic: d.PanicLevel, Seriousness: d.SeriousnessLevel, Emoticon: d.EmoticonHandling, Composite: d.CompositeScore, CreatedAt: now}
	err := st.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&r).Error
	if err != nil && !db.IsDuplicate(err) {
		return fmt.Errorf("store demeanor: %w", err)
	}
	return nil
}

// DemeanorComposites lists the composite scores of a session's assessed photos.
func (st *GormStore) DemeanorComposites(ctx context.Context, sessionID string) ([]int, error) {
	var out []int
	err := st.db.WithContext(ctx).Model(&demeanorRow{}).Where("session_id = ? AND assessed = ?", sessionID, true).
		Order("created_at").Pluck("composite", &out).Error
	if err != nil {
		return nil, fmt.Errorf("list demeanor: %w", err)
	}
	return out, nil
}

// FinishSession marks the session FINISHED and stores its report, once. It
// reports whether this call finished it.
func (st *GormStore) FinishSession(ctx context.Context, s Session, rep Report, now time.Time) (bool, error) {
	won := false
	err := db.Transaction(ctx, st.db, func(tx *gorm.DB) error {
		res := tx.Model(&sessionRow{}).Where("id = ? AND status IN ?", s.ID, []string{SessionReady, SessionInProgress}).
			Updates(map[string]any{"status": SessionFinished, "flow": FlowCompleted, "flow_version": gorm.Expr("flow_version + 1"),
				"flow_request_id": "", "finished_at": now, "updated_at": now})
		if res.Error != nil || res.RowsAffected != 1 {
			return res.Error
		}
		body, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		var duration int64
		if rep.DurationSeconds != nil {
			duration = *rep.DurationSeconds
		}
		r := reportRow{SessionID: s.ID, UserID: s.UserID, InterviewScore: rep.InterviewScore, ResumeScore: rep.ResumeScore,
			Direction: rep.InterviewDirection, QuestionCount: rep.QuestionCount, DurationSeconds: duration,
			Report: string(body), CreatedAt: now}
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
		won = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("finish session: %w", err)
	}
	return won, nil
}

// Report loads a user's report.
func (st *GormStore) Report(ctx context.Context, userID, sessionID string) (Report, error) {
	var r reportRow
	err := st.db.WithContext(ctx).Where("session_id = ? AND user_id = ?", sessionID, userID).Take(&r).Error
	if db.IsNotFound(err) {
		return Report{}, apperr.NotFound("interview record")
	}
	if err != nil {
		return Report{}, fmt.Errorf("load report: %w", err)
	}
	return r.toReport()
}

// toReport decodes the stored report. Reports stored before they carried
// their id, owner, times and finality get them from the row.
func (r reportRow) toReport() (Report, error) {
	var rep Report
	if err := json.Unmarshal([]byte(r.Report), &rep); err != nil {
		return Report{}, fmt.Errorf("decode report: %w", err)
	}
	rep.ID, rep.UserID, rep.SessionID, rep.Final = r.SessionID, r.UserID, r.SessionID, true
	if rep.UpdateTime == "" {
		rep.UpdateTime = r.CreatedAt.UTC().Format(time.RFC3339)
	}
	if rep.CreateTime == "" {
		rep.CreateTime = cmp.Or(rep.StartTime, rep.UpdateTime)
	}
	if rep.InterviewSuggestions == nil {
		rep.InterviewSuggestions = []string{}
	}
	if rep.Suggestions == nil {
		rep.Suggestions = numbered(rep.InterviewSuggestions)
	}
	return rep, nil
}

// RecordFilter narrows the list of reports.
type RecordFilter struct {
	MinScore, MaxScore *int
	Direction          string
	SessionID          string
}

// PageReports lists a user's reports, newest first.
func (st *GormStore) PageReports(ctx context.Context, userID string, p page.Request, f RecordFilter) (page.Result[Report], error) {
	q := st.db.WithContext(ctx).Model(&reportRow{}).Where("user_id = ?", userID)
	if f.MinScore != nil {
		q = q.Where("interview_score >= ?", *f.MinScore)
	}
	if f.MaxScore != nil {
		q = q.Where("interview_score <= ?", *f.MaxScore)
	}
	if f.Direction != "" {
		q = q.Where("direction LIKE ?"+db.LikeEscape, db.LikePattern(f.Direction))
	}
	if f.SessionID != "" {
		q = q.Where("session_id = ?", f.SessionID)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Report]{}, fmt.Errorf("count reports: %w", err)
	}
	var rows []reportRow
	if err := q.Order("created_at DESC, session_id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Report]{}, fmt.Errorf("list reports: %w", err)
	}
	out := make([]Report, 0, len(rows))
	for _, r := range rows {
		rep, err := r.toReport()
		if err != nil {
			return page.Result[Report]{}, err
		}
		rep.PlaybackItems = nil // the list shows summaries; the detail has the playback
		out = append(out, rep)
	}
	return page.NewResult(p, out, total), nil
}

// DemeanorByImage returns the stored result of a photo of the session.
func (st *GormStore) DemeanorByImage(ctx context.Context, sessionID, imageHash string) (DemeanorResult, bool, error) {
	var r demeanorRow
	err := st.db.WithContext(ctx).Where("session_id = ? AND image_sha256 = ?", sessionID, imageHash).Take(&r).Error
	if db.IsNotFound(err) {
		return DemeanorResult{}, false, nil
	}
	if err != nil {
		return DemeanorResult{}, false, fmt.Errorf("load demeanor: %w", err)
	}
	return DemeanorResult{Assessed: r.Assessed, PanicLevel: r.Panic, SeriousnessLevel: r.Seriousness,
		EmoticonHandling: r.Emoticon, CompositeScore: r.Composite}, true, nil
}

type traceRow struct {
	ID               string `gorm:"primaryKey"`
	SessionID        string
	Stage            string
	QuestionNumber   string
	Provider         string
	Model            string
	PromptVersion    string
	LatencyMs        int64
	PromptTokens     int
	CompletionTokens int
	Outcome          string
	Error            *string
	Parsed           *string
	Raw              *string
	RawTruncated     bool
	CreatedAt        time.Time
}

func (traceRow) TableName() string { return "interview_traces" }

// AnySession loads a session whoever owns it.
func (st *GormStore) AnySession(ctx context.Context, id string) (Session, error) {
	var r sessionRow
	err := st.db.WithContext(ctx).Where("id = ?", id).Take(&r).Error
	if db.IsNotFound(err) {
		return Session{}, errSessionMissing
	}
	if err != nil {
		return Session{}, fmt.Errorf("load session: %w", err)
	}
	return r.toSession(), nil
}

// AddTrace appends an entry to a session's AI trace.
func (st *GormStore) AddTrace(ctx context.Context, e TraceEntry) error {
	return st.AddTraces(ctx, []TraceEntry{e})
}

// Traces lists a session's AI trace, oldest first.
func (st *GormStore) Traces(ctx context.Context, sessionID string) ([]TraceEntry, error) {
	var rows []traceRow
	if err := st.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list trace: %w", err)
	}
	out := make([]TraceEntry, len(rows))
	for i, r := range rows {
		out[i] = TraceEntry{At: r.CreatedAt.UTC(), SessionID: r.SessionID, Stage: r.Stage, QuestionNumber: r.QuestionNumber,
			Provider: r.Provider, Model: r.Model, PromptVersion: r.PromptVersion, LatencyMs: r.LatencyMs,
			PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, Outcome: r.Outcome,
			Error: deref(r.Error), Raw: deref(r.Raw), RawTruncated: r.RawTruncated}
		if r.Parsed != nil {
			out[i].Parsed = json.RawMessage(*r.Parsed)
		}
	}
	return out, nil
}

// AnswerView is what an answer or the current question is decided on: the
// session, the turn of the request, the questions and the scores, read by
// AnswerState in one query.
type AnswerView struct {
	Session Session
	// Turn is the turn stored for the request (ID "" when there is none).
	Turn Turn
	// Questions are the session's questions in asking order. Only the
	// current question's rubric is decoded, and only for an answer: the
	// others are listed by number and text.
	Questions []Question
	// Scores are the final scores of the answered main questions (hidden
	// scores left out).
	Scores []int
}

// answerStateCols are the session columns an answer or the current question
// needs; the resume's read summary, file and suggestions are not read.
const answerStateCols = "s.id, s.user_id, s.status, s.flow, s.flow_version, s.flow_request_id, s.flow_updated_at, " +
	"s.current_number, s.interview_type, s.target, s.offline, s.language, s.created_at, s.updated_at, s.started_at, s.finished_at"

// answerStateSQL is AnswerState's query for the current question ([0]) and
// for an answer ([1]). Each row is the session (kind "s", with the
// request's turn joined for an answer), a question ("q") or the scored
// column of a done turn ("t"); every kind has its own columns, the others
// NULL. The parts are a UNION ALL, each read through its own index, not a
// join of the questions and turns, whose plan MariaDB picks badly on small
// tables (a scan of the turns and a filesort).
var answerStateSQL = [2]string{answerStateQuery(false), answerStateQuery(true)}

func answerStateQuery(forAnswer bool) string {
	// The session part: kind, the session's 16 columns, its profile and the
	// request's turn (5), then the other parts' 8 columns.
	session := "SELECT 's' AS kind, " + answerStateCols + ", NULL, NULL, NULL, NULL, NULL, NULL, " + strings.Repeat("NULL, ", 7) + "NULL" +
		" FROM interview_sessions s WHERE s.id = ? AND s.user_id = ?"
	spec, targets := "NULL", "NULL"
	if forAnswer {
		session = "SELECT 's' AS kind, " + answerStateCols + ", s.profile, t.id, t.question_number, t.status, t.response, t.created_at, " +
			strings.Repeat("NULL, ", 7) + "NULL" +
			" FROM interview_sessions s LEFT JOIN interview_turns t ON t.session_id = s.id AND t.request_id = ?" +
			" WHERE s.id = ? AND s.user_id = ?"
		current := "(SELECT current_number FROM interview_sessions WHERE id = ?)"
		spec, targets = "CASE WHEN number = "+current+" THEN spec END", "CASE WHEN number = "+current+" THEN targets END"
	}
	skip := strings.Repeat("NULL, ", 22) // the session part's columns
	return session +
		" UNION ALL SELECT 'q', " + skip + "number, seq, content, is_follow_up, parent_no, " + spec + ", " + targets + ", NULL" +
		" FROM interview_questions WHERE session_id = ?" +
		" UNION ALL SELECT 't', " + skip + "question_number, NULL, NULL, NULL, NULL, NULL, NULL, scored" +
		" FROM interview_turns WHERE session_id = ? AND status = ?"
}

// AnswerState loads, in one query, the columns of a session of userID that
// decide an answer (or show the current question), its questions and the
// scores of its answered main questions, and, when requestID is not "",
// the turn stored for that request (Turn.ID "" when there is none).
// Another user's session is missing.
//
// Only what the caller uses is decoded: the turn carries its id, question,
// status, creation time and, when done, its stored response (a replay is
// answered from it); the session's profile and the current question's
// rubric are read only when an answer may be evaluated (requestID set),
// and the profile decoded only when the request has no done turn.
// Suggestions, resume file and read summary are not loaded. Rows are
// scanned by hand, not by gorm's reflection: this is the query of every
// answer and current question (issue 21's profile).
func (st *GormStore) AnswerState(ctx context.Context, userID, sessionID, requestID string) (AnswerView, error) {
	var rows *sql.Rows
	var err error
	if requestID == "" {
		rows, err = st.db.WithContext(ctx).Raw(answerStateSQL[0], sessionID, userID, sessionID, sessionID, TurnDone).Rows()
	} else {
		rows, err = st.db.WithContext(ctx).Raw(answerStateSQL[1], requestID, sessionID, userID, sessionID, sessionID,
			sessionID, sessionID, TurnDone).Rows()
	}
	if err != nil {
		return AnswerView{}, fmt.Errorf("load session: %w", err)
	}
	defer rows.Close()
	var (
		v                                      AnswerView
		found                                  bool
		profile                                sql.NullString
		kind                                   string
		id, user, status, flow, flowReq, cur   sql.NullString
		itype, target, lang                    sql.NullString
		version, seq                           sql.NullInt64
		offline, follow                        sql.NullBool
		flowUpdated, created, updated          sql.NullTime
		started, finished, turnCreated         sql.NullTime
		prof, turnID, turnQuestion, turnStatus sql.NullString
		turnResponse                           sql.RawBytes
		number, content, parent, spec, targets sql.NullString
		scored                                 sql.NullString
	)
	for rows.Next() {
		if err := rows.Scan(&kind, &id, &user, &status, &flow, &version, &flowReq, &flowUpdated, &cur, &itype, &target,
			&offline, &lang, &created, &updated, &started, &finished, &prof, &turnID, &turnQuestion, &turnStatus,
			&turnResponse, &turnCreated, &number, &seq, &content, &follow, &parent, &spec, &targets, &scored); err != nil {
			return AnswerView{}, fmt.Errorf("load session: %w", err)
		}
		switch kind {
		case "s":
			found = true
			v.Session = Session{ID: id.String, UserID: user.String, Status: status.String, Flow: flow.String,
				FlowVersion: version.Int64, FlowRequestID: flowReq.String, FlowUpdatedAt: timePtr(flowUpdated),
				CurrentNumber: cur.String, InterviewType: itype.String, Target: target.String, Offline: offline.Bool,
				Language: lang.String, CreatedAt: created.Time, UpdatedAt: updated.Time, StartedAt: timePtr(started),
				FinishedAt: timePtr(finished)}
			profile = prof
			if turnID.Valid {
				v.Turn = Turn{ID: turnID.String, SessionID: sessionID, QuestionNumber: turnQuestion.String, RequestID: requestID,
					Status: turnStatus.String, CreatedAt: turnCreated.Time}
				if v.Turn.Status == TurnDone && turnResponse != nil {
					v.Turn.Response = &AnswerResp{}
					if len(turnResponse) > 0 {
						_ = json.Unmarshal(turnResponse, v.Turn.Response) // written by us; a bad value reads as empty
					}
				}
			}
		case "q":
			q := Question{SessionID: sessionID, Number: number.String, Seq: int(seq.Int64), Content: content.String,
				IsFollow: follow.Bool, ParentNo: parent.String}
			if spec.Valid {
				fromJSON(&spec.String, &q.Spec)
			}
			if targets.Valid {
				fromJSON(&targets.String, &q.Targets)
			}
			v.Questions = append(v.Questions, q)
		case "t":
			if !scored.Valid || strings.Contains(number.String, "-F") {
				continue // follow-ups are shown, not averaged
			}
			var sc struct {
				Score  int    `json:"score"`
				Hidden string `json:"hidden"`
			}
			fromJSON(&scored.String, &sc)
			if sc.Hidden == "" {
				v.Scores = append(v.Scores, sc.Score)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return AnswerView{}, fmt.Errorf("load session: %w", err)
	}
	if !found {
		return AnswerView{}, errSessionMissing
	}
	// A replay, or (older than its 24 h) a 409: a request with a done turn
	// is never claimed again (the turn's unique key), so the profile is
	// not needed then.
	if profile.Valid && v.Turn.Response == nil {
		var p Profile
		fromJSON(&profile.String, &p)
		v.Session.Profile = &p
	}
	slices.SortStableFunc(v.Questions, func(a, b Question) int { return cmp.Compare(a.Seq, b.Seq) })
	return v, rows.Close()
}

// timePtr is t's time, nil when NULL.
func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

// AddTraces appends entries to their sessions' AI traces in one statement.
func (st *GormStore) AddTraces(ctx context.Context, es []TraceEntry) error {
	if len(es) == 0 {
		return nil
	}
	if err := st.db.WithContext(ctx).Create(traceRows(es)).Error; err != nil {
		return fmt.Errorf("store trace: %w", err)
	}
	return nil
}

// traceRows are the rows of es.
func traceRows(es []TraceEntry) []traceRow {
	rows := make([]traceRow, len(es))
	for i, e := range es {
		rows[i] = traceRow{ID: ids.New(), SessionID: e.SessionID, Stage: e.Stage, QuestionNumber: e.QuestionNumber, Provider: e.Provider,
			Model: e.Model, PromptVersion: e.PromptVersion, LatencyMs: e.LatencyMs, PromptTokens: e.PromptTokens,
			CompletionTokens: e.CompletionTokens, Outcome: e.Outcome, RawTruncated: e.RawTruncated, CreatedAt: e.At}
		if e.Error != "" {
			rows[i].Error = strPtr(e.Error)
		}
		if len(e.Parsed) > 0 {
			rows[i].Parsed = strPtr(string(e.Parsed))
		}
		if e.Raw != "" {
			rows[i].Raw = strPtr(e.Raw)
		}
	}
	return rows
}
