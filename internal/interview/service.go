package interview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// Turn statuses.
const (
	TurnEvaluating = "evaluating"
	TurnDone       = "done"
	TurnFailed     = "failed"
)

// Limits of the interview API.
const (
	MaxAnswerChars   = 5000
	MaxRequestIDLen  = 64
	MaxResumeBytes   = 20 << 20
	MaxTargetChars   = 128
	DefaultQuestions = 6
	replayFor        = 24 * time.Hour
)

// Store persists interviews.
type Store interface {
	// CreateSession inserts s and abandons the user's other active
	// sessions, whose ids it returns.
	CreateSession(ctx context.Context, s Session) (abandoned []string, err error)
	Session(ctx context.Context, userID, id string) (Session, error)
	PageSessions(ctx context.Context, userID string, p page.Request, f SessionFilter) (page.Result[Session], error)
	ClaimUpload(ctx context.Context, s Session, hash string, now, staleBefore time.Time) (bool, error)
	FailUpload(ctx context.Context, id, hash string, now time.Time) error
	CompleteUpload(ctx context.Context, s Session, f File, qs []Question) (replaced []File, won bool, err error)
	Questions(ctx context.Context, sessionID string) ([]Question, error)
	StartInterview(ctx context.Context, id string, now time.Time) error
	TurnByRequest(ctx context.Context, sessionID, requestID string) (Turn, error)
	Turns(ctx context.Context, sessionID string) ([]Turn, error)
	// AnswerState loads a session's deciding columns, its questions and
	// scores and the turn of requestID in one query (see
	// GormStore.AnswerState).
	AnswerState(ctx context.Context, userID, sessionID, requestID string) (AnswerView, error)
	ClaimAnswer(ctx context.Context, s Session, t Turn, retryOf string, now, staleBefore time.Time) (bool, error)
	CompleteAnswer(ctx context.Context, sessionID string, version int64, t Turn, flow, next string, followUp *Question,
		traces []TraceEntry) (bool, error)
	FailAnswer(ctx context.Context, sessionID string, version int64, t Turn) error
	File(ctx context.Context, userID, id string) (File, error)
	PathsInUse(ctx context.Context, paths []string) (map[string]bool, error)
	AddDemeanor(ctx context.Context, sessionID, imageHash string, d DemeanorResult, now time.Time) error
	DemeanorComposites(ctx context.Context, sessionID string) ([]int, error)
	DemeanorByImage(ctx context.Context, sessionID, imageHash string) (DemeanorResult, bool, error)
	FinishSession(ctx context.Context, s Session, rep Report, now time.Time) (bool, error)
	Report(ctx context.Context, userID, sessionID string) (Report, error)
	PageReports(ctx context.Context, userID string, p page.Request, f RecordFilter) (page.Result[Report], error)
	// AnySession loads a session whoever owns it (for admins).
	AnySession(ctx context.Context, id string) (Session, error)
	AddTrace(ctx context.Context, e TraceEntry) error
	AddTraces(ctx context.Context, es []TraceEntry) error
	Traces(ctx context.Context, sessionID string) ([]TraceEntry, error)
}

// Config tunes the service.
type Config struct {
	// Files keeps the resume files, under ResumePrefix + File.Path.
	Files *blobstore.Store
	// Presign, when positive, answers a resume preview with a redirect to
	// a URL of the object store valid that long (storage.presign).
	Presign time.Duration
	// QuestionCount is how many main questions to ask (5..8).
	QuestionCount int
	// MaxFollowUp is the number of follow-ups per main question.
	MaxFollowUp int
	// StaleAfter is how long an EVALUATING or RESUME_UPLOADING phase may be
	// held before another request may take it (its instance died).
	StaleAfter time.Duration
	// Log receives failures the caller cannot be told about (a failed
	// reset after a failed upload); nil discards them.
	Log *slog.Logger
	// OCR reads photographed and scanned resumes; nil means none are read.
	OCR *doctext.OCR
	// MinChars is the fewest characters a resume must yield; zero means
	// DefaultResumeMinChars, negative turns the check off.
	MinChars int
	// Registerer receives the interview's counters; nil leaves them
	// unregistered.
	Registerer prometheus.Registerer
	// Progress keeps the progress of uploads and answers for polling
	// (RedisProgress across instances); nil keeps it in process.
	Progress ProgressStore
	// Changes, when set, lets an instance answer the current question
	// from memory while the session has not changed anywhere (see
	// SessionChanges); nil: every current question is read from the
	// database.
	Changes *SessionChanges
}

// DefaultResumeMinChars is the fewest characters read from a resume for an
// interview about it (doctext.min-chars).
const DefaultResumeMinChars = 200

// resumeKinds are the uploads read as a resume: Word (DOCX) too, the
// format most resumes are written in.
var resumeKinds = []doctext.Kind{doctext.KindPDF, doctext.KindDOCX, doctext.KindTXT, doctext.KindMD,
	doctext.KindJPEG, doctext.KindPNG, doctext.KindWEBP}

// Service implements the interview use cases.
type Service struct {
	store    Store
	inv      *Invoker
	provider llm.Provider
	cfg      Config
	prompts  map[string]Prompt
	log      *slog.Logger
	metrics  metrics
	now      func() time.Time
	progress ProgressStore
	replays  *replayCache // responses of done answers already replayed
	// changes keeps copies of current questions, used while their
	// sessions are unchanged (nil without Config.Changes).
	changes *SessionChanges
}

// NewService returns the service; provider is the model every stage uses.
func NewService(store Store, inv *Invoker, provider llm.Provider, cfg Config) (*Service, error) {
	if cfg.QuestionCount == 0 {
		cfg.QuestionCount = DefaultQuestions
	}
	if cfg.MinChars == 0 {
		cfg.MinChars = DefaultResumeMinChars
	}
	if cfg.MaxFollowUp == 0 {
		cfg.MaxFollowUp = 1
	}
	if cfg.StaleAfter == 0 {
		cfg.StaleAfter = 3 * time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Progress == nil {
		cfg.Progress = NewLocalProgress()
	}
	if cfg.Files == nil {
		return nil, errors.New("interview: Config.Files is required")
	}
	prompts := map[string]Prompt{}
	for _, stage := range []string{StageProfile, StageExtraction, StageEvaluation, StageReview, StageFollowUp, StageDemeanor} {
		p, err := LoadPrompt(stage)
		if err != nil {
			return nil, err
		}
		prompts[stage] = p
	}
	s := &Service{store: store, inv: inv, provider: provider, cfg: cfg, prompts: prompts,
		log: cfg.Log, metrics: newMetrics(cfg.Registerer), now: func() time.Time { return time.Now().UTC() }, progress: cfg.Progress,
		replays: newReplayCache(replayCacheSize)}
	if cfg.Changes != nil {
		s.changes = cfg.Changes
		s.store = &changingStore{Store: store, changes: cfg.Changes, log: cfg.Log}
	}
	return s, nil
}

// Create starts a new session in DRAFT; the user's other active sessions
// are abandoned.
func (s *Service) Create(ctx context.Context, userID string) (Session, error) {
	now := s.now()
	sess := Session{ID: ids.New(), UserID: userID, Status: SessionDraft, Offline: s.provider.Offline(), CreatedAt: now, UpdatedAt: now}
	if _, err := s.store.CreateSession(ctx, sess); err != nil {
		return Session{}, err
	}
	return sess, nil
}

// Session returns one of the user's sessions.
func (s *Service) Session(ctx context.Context, userID, id string) (Session, error) {
	return s.store.Session(ctx, userID, id)
}

// Page lists the user's sessions.
func (s *Service) Page(ctx context.Context, userID string, p page.Request, f SessionFilter) (page.Result[Session], error) {
	f.Status = normalizeStatus(f.Status)
	f.Keyword = strings.TrimSpace(f.Keyword)
	if utf8.RuneCountInString(f.Keyword) > 64 {
		return page.Result[Session]{}, apperr.Invalid("keyword must be at most 64 characters")
	}
	return s.store.PageSessions(ctx, userID, p.Normalize(), f)
}

// UploadResult is the response of a resume upload.
type UploadResult struct {
	SessionID       string            `json:"sessionId"`
	Questions       map[string]string `json:"questions"`
	Suggestions     map[string]string `json:"suggestions"`
	InterviewType   string            `json:"interviewType"`
	Target          string            `json:"target"`
	ResumeScore     *int              `json:"resumeScore"`
	QuestionCount   int               `json:"questionCount"`
	SuggestionCount int               `json:"suggestionCount"`
	ResponseTime    int64             `json:"responseTime"`
	IsSuccess       bool              `json:"isSuccess"`
	Offline         bool              `json:"offline"`
	// Read says how much text was read from the file and how.
	Read ReadSummary `json:"read"`
	// Replaced reports that this upload replaced an earlier resume of the
	// session (allowed until the first answer).
	Replaced bool `json:"replaced"`
	// Language is the session's language (LangZH or LangEN).
	Language string `json:"language"`

	suggestions []string // the deduplicated suggestions, in order, for the session row
}

// readSummary describes what doctext read from a resume.
func readSummary(doc doctext.Document) ReadSummary {
	return ReadSummary{Chars: doc.Chars, Pages: doc.Pages, Source: doc.Source, OCRPages: doc.OCRPages, Kind: string(doc.Kind)}
}

func invalidState(format string, args ...any) error {
	return apperr.Conflict(format, args...).WithCode(apperr.CodeInvalidState)
}

// Upload reads a resume (PDF, TXT or MD), extracts the profile and the
// rubric questions through the invoker and makes the session READY. A
// double-submitted upload of the same file joins the one in progress.
//
// Before the first answer (DRAFT or READY) an upload replaces the previous
// resume: file, questions, profile, target, score and suggestions are
// swapped in one transaction, and the old file is removed afterwards. If
// the new file cannot be read or its extraction fails, the old resume and
// questions stay and the session stays READY.
func (s *Service) Upload(ctx context.Context, userID, sessionID, filename string, data []byte, confirmedTarget string) (UploadResult, error) {
	return s.UploadIn(ctx, userID, sessionID, filename, data, confirmedTarget, "")
}

// UploadIn is Upload with the session's language: LangZH, LangEN, or ""
// to detect it from the resume text (see DetectLanguage). Any other value
// is a 400 naming the language field.
func (s *Service) UploadIn(ctx context.Context, userID, sessionID, filename string, data []byte, confirmedTarget,
	language string) (UploadResult, error) {
	return s.UploadTracked(ctx, userID, sessionID, "", filename, data, confirmedTarget, language)
}

// UploadTracked is UploadIn that reports its progress under requestID
// (none when ""): reading the file, building the profile, writing the
// questions (Service.Progress).
func (s *Service) UploadTracked(ctx context.Context, userID, sessionID, requestID, filename string, data []byte, confirmedTarget,
	language string) (res UploadResult, err error) {
	if len(requestID) > MaxRequestIDLen {
		return UploadResult{}, apperr.Invalid("requestId must be at most %d characters", MaxRequestIDLen)
	}
	if _, err := s.store.Session(ctx, userID, sessionID); err != nil {
		return UploadResult{}, err // another user's session: nothing is tracked
	}
	ctx, tr := s.track(ctx, sessionID, requestID, ProgressUpload, StepReading)
	defer func() { tr.finish(ctx, err, s.now()) }()
	return s.upload(ctx, userID, sessionID, filename, data, confirmedTarget, language)
}

func (s *Service) upload(ctx context.Context, userID, sessionID, filename string, data []byte, confirmedTarget,
	language string) (UploadResult, error) {
	start := time.Now()
	confirmedTarget = strings.TrimSpace(confirmedTarget)
	if utf8.RuneCountInString(confirmedTarget) > MaxTargetChars {
		return UploadResult{}, apperr.Invalid("confirmedTarget must be at most %d characters", MaxTargetChars)
	}
	language, err := ParseLanguage(language)
	if err != nil {
		return UploadResult{}, err
	}
	sess, err := s.store.Session(ctx, userID, sessionID)
	if err != nil {
		return UploadResult{}, err
	}
	if resumeLocked(sess.Status) {
		// Said before the file is read: no point making the candidate wait
		// for OCR of a resume that cannot be used.
		return UploadResult{}, invalidState(resumeLockedMessage)
	}
	doc, err := doctext.Extract(ctx, data, filename, doctext.Options{Allowed: resumeKinds,
		MinChars: max(s.cfg.MinChars, 0), OCR: s.cfg.OCR})
	if err != nil {
		return UploadResult{}, err
	}
	if language == "" {
		language = DetectLanguage(doc.Text)
	}
	hash := HashBytes(data, []byte(confirmedTarget), []byte(language))
	prevFileID := sess.ResumeFileID // the resume this upload replaces, if any
	owner, err := s.claimUpload(ctx, userID, sess, hash)
	if err != nil {
		return UploadResult{}, err
	}
	profile, questions, err := s.extract(ctx, sess.ID, doc.Text, hash, confirmedTarget, language)
	if err != nil {
		if owner {
			s.failUpload(ctx, sess.ID, hash)
		}
		return UploadResult{}, candidateError(ProgressUpload, err)
	}
	res, qs := s.uploadResult(sess.ID, doc, profile, questions, confirmedTarget)
	res.Replaced = prevFileID != ""
	res.Language = language
	res.ResponseTime = time.Since(start).Milliseconds()
	sess.UploadHash = hash
	sess.CurrentNumber = "1"
	sess.InterviewType = res.InterviewType
	sess.Target = res.Target
	sess.ResumeScore = res.ResumeScore
	sess.Suggestions = res.suggestions
	sess.Profile = &profile
	sess.Read = &res.Read
	sess.Offline = s.provider.Offline()
	sess.Language = language
	if err := s.storeUpload(ctx, userID, sess, prevFileID, owner, filename, data, doc, qs); err != nil {
		return UploadResult{}, err
	}
	return res, nil
}

// uploadResult turns the extraction into the response and the questions to
// store: at most 8 questions numbered from 1, suggestions of both stages
// deduplicated.
func (s *Service) uploadResult(sessionID string, doc doctext.Document, profile Profile, questions Questions,
	confirmedTarget string) (UploadResult, []Question) {
	target := ResolveTarget(confirmedTarget, profile)
	res := UploadResult{SessionID: sessionID, Questions: map[string]string{}, Suggestions: map[string]string{},
		InterviewType: questions.InterviewType, Target: target, IsSuccess: true, Offline: s.provider.Offline(),
		Read: readSummary(doc)}
	if res.InterviewType == "" {
		res.InterviewType = target
	}
	score := clampScore(profile.ResumeScore)
	if questions.ResumeScore > 0 {
		score = clampScore(questions.ResumeScore)
	}
	res.ResumeScore = &score
	res.suggestions = dedupe(append(append([]string{}, profile.ResumeSuggestions...), questions.Suggestions...), 8)
	now := s.now()
	qs := make([]Question, 0, min(len(questions.Questions), 8))
	for i, spec := range questions.Questions {
		if i >= 8 {
			break
		}
		no := strconv.Itoa(i + 1)
		qs = append(qs, Question{SessionID: sessionID, Number: no, Seq: (i + 1) * 100, Content: spec.Content, Spec: spec, CreatedAt: now})
		res.Questions[no] = spec.Content
	}
	for i, sg := range res.suggestions {
		res.Suggestions[strconv.Itoa(i+1)] = sg
	}
	res.QuestionCount, res.SuggestionCount = len(qs), len(res.suggestions)
	return res, qs
}

// storeUpload writes the resume file, then completes the upload in the
// store. Every copy of the upload that got here stores the result (they
// share one extraction through single-flight); the compare-and-set lets one
// win. So a copy that joined never answers 200 for a result that its owner,
// killed or failing, did not store.
func (s *Service) storeUpload(ctx context.Context, userID string, sess Session, prevFileID string, owner bool,
	filename string, data []byte, doc doctext.Document, qs []Question) error {
	file := File{ID: ids.New(), UserID: userID, SessionID: sess.ID, Filename: safeName(filename), MIME: doc.MIME,
		Size: int64(len(data)), SHA256: sha256Hex(data), Text: doc.Text, CreatedAt: s.now()}
	file.Path = userID + "/" + file.ID
	// The blob first, then the row that names it: a row never names a
	// missing blob, and a blob whose row did not come is deleted below (or
	// by the orphan sweep when this instance dies in between).
	if err := s.writeFile(ctx, file.Path, data, doc.MIME); err != nil {
		s.failUpload(ctx, sess.ID, sess.UploadHash)
		return err
	}
	sess.UpdatedAt = s.now()
	replaced, won, err := s.store.CompleteUpload(context.WithoutCancel(ctx), sess, file, qs)
	if err == nil && won {
		// The replaced resume's rows are gone with the commit; its bytes go
		// now. A failed removal leaves an orphan file, never a broken session.
		for _, old := range replaced {
			s.removeFile(ctx, old.Path)
		}
		return nil
	}
	s.removeFile(ctx, file.Path)
	if err != nil {
		if owner {
			s.failUpload(ctx, sess.ID, sess.UploadHash)
		}
		return err
	}
	// Another copy stored the same extraction first (the resume changed from
	// the one this upload started from).
	if cur, err := s.store.Session(ctx, userID, sess.ID); err == nil && (cur.Status == SessionReady || cur.Status == SessionInProgress) &&
		cur.ResumeFileID != prevFileID {
		return nil
	}
	return invalidState("the session changed while the resume was processed; reload it")
}

// resumeLockedMessage answers an upload once the interview has started.
const resumeLockedMessage = "the resume can no longer be replaced once the interview has started; start a new interview to use another resume"

// resumeLocked reports whether a session in status st keeps its resume.
func resumeLocked(st string) bool { return st == SessionInProgress || st == SessionFinished }

// claimUpload decides what an upload of hash does: claim the session
// (owner), join the same upload in progress (double click), or fail with a
// 409. A lost race re-reads the session and decides again.
func (s *Service) claimUpload(ctx context.Context, userID string, sess Session, hash string) (owner bool, err error) {
	for range 3 {
		now := s.now()
		stale := sess.FlowUpdatedAt != nil && sess.FlowUpdatedAt.Before(now.Add(-s.cfg.StaleAfter))
		switch {
		case sess.Status == SessionResumeUploading && sess.UploadHash == hash:
			return false, nil
		case sess.Status == SessionDraft || sess.Status == SessionReady || (sess.Status == SessionResumeUploading && stale):
			won, err := s.store.ClaimUpload(ctx, sess, hash, now, now.Add(-s.cfg.StaleAfter))
			if err != nil || won {
				return won, err
			}
			if sess, err = s.store.Session(ctx, userID, sess.ID); err != nil {
				return false, err
			}
		case sess.Status == SessionResumeUploading:
			return false, invalidState("another resume is being processed for this session; wait for it to finish")
		case resumeLocked(sess.Status):
			return false, invalidState(resumeLockedMessage)
		default:
			return false, invalidState("a resume can be uploaded only before the interview starts (session is %s)", sess.Status)
		}
	}
	return false, invalidState("the session is changing too fast; reload it and try again")
}

// failUpload gives a session whose upload failed back to DRAFT. The
// caller already has an error to return, so a failure here is logged: the
// session then stays RESUME_UPLOADING until StaleAfter lets a new upload
// take it.
func (s *Service) failUpload(ctx context.Context, sessionID, hash string) {
	if err := s.store.FailUpload(context.WithoutCancel(ctx), sessionID, hash, s.now()); err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "interview: reset of a failed upload failed",
			slog.String("session", sessionID), slog.Any("err", err))
	}
}

// extract runs the profile and question stages.
func (s *Service) extract(ctx context.Context, sessionID, text, hash, confirmedTarget, lang string) (Profile, Questions, error) {
	req, err := s.prompts[StageProfile].In(lang).Request(ProfileInput{ResumeText: text, ConfirmedTarget: confirmedTarget})
	if err != nil {
		return Profile{}, Questions{}, apperr.Internal(err)
	}
	profile, _, err := tracedInvoke(ctx, s, nil, Call{Stage: StageProfile, SessionID: sessionID, BusinessKey: hash,
		Provider: s.provider, Request: req}, func(r llm.Response) (Profile, error) { return ParseProfile(r.Content) })
	if err != nil {
		return Profile{}, Questions{}, err
	}
	target := ResolveTarget(confirmedTarget, profile)
	req, err = s.prompts[StageExtraction].In(lang).Request(ExtractionInput{ResumeText: text, Target: target, Profile: profile,
		QuestionCount: s.cfg.QuestionCount})
	if err != nil {
		return Profile{}, Questions{}, apperr.Internal(err)
	}
	qs, _, err := tracedInvoke(ctx, s, nil, Call{Stage: StageExtraction, SessionID: sessionID, BusinessKey: HashBytes([]byte(hash), []byte(target)),
		Provider: s.provider, Request: req}, func(r llm.Response) (Questions, error) { return ParseQuestions(r.Content) })
	if err != nil {
		return Profile{}, Questions{}, err
	}
	return profile, qs, nil
}

// ResumePrefix starts the key of every resume in the file store; the rest
// is File.Path (<user id>/<file id>).
const ResumePrefix = "uploads/resumes/"

func (s *Service) writeFile(ctx context.Context, rel string, data []byte, mime string) error {
	if err := s.cfg.Files.PutBytes(ctx, ResumePrefix+rel, data, mime); err != nil {
		return blobErr(err, "resume file")
	}
	return nil
}

// removeFile deletes a resume file nothing names any more. A failure leaves
// an orphan for the sweep, never an error for the user.
func (s *Service) removeFile(ctx context.Context, rel string) {
	if err := s.cfg.Files.Delete(context.WithoutCancel(ctx), ResumePrefix+rel); err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "interview: remove resume file (the orphan sweep retries)",
			slog.String("path", rel), slog.Any("err", err))
	}
}

// NamedBlobs reports which of keys (under ResumePrefix) a resume row names;
// the orphan sweep deletes the others.
func (s *Service) NamedBlobs(ctx context.Context, keys []string) (map[string]bool, error) {
	paths := make([]string, 0, len(keys))
	for _, k := range keys {
		paths = append(paths, strings.TrimPrefix(k, ResumePrefix))
	}
	inUse, err := s.store.PathsInUse(ctx, paths)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(inUse))
	for p := range inUse {
		out[ResumePrefix+p] = true
	}
	return out, nil
}

// blobErr maps a file store error: 503 while the store is down, 404 for a
// blob that is gone.
func blobErr(err error, what string) error {
	switch {
	case errors.Is(err, blobstore.ErrUnavailable):
		return apperr.FileStoreDown(err)
	case errors.Is(err, blobstore.ErrNotFound):
		return apperr.NotFound(what)
	}
	return apperr.Internal(err)
}

// ResumeFile returns the session's resume, open for reading (ranges are
// fetched as read, nothing is buffered; the caller closes it) or, when
// Config.Presign is set and the store signs URLs, a presigned URL to
// redirect to instead (obj is nil then).
func (s *Service) ResumeFile(ctx context.Context, userID, sessionID string) (f File, obj *blobstore.Object, redirect string, err error) {
	sess, err := s.store.Session(ctx, userID, sessionID)
	if err != nil {
		return File{}, nil, "", err
	}
	if sess.ResumeFileID == "" {
		return File{}, nil, "", apperr.NotFound("resume of this session")
	}
	if f, err = s.store.File(ctx, userID, sess.ResumeFileID); err != nil {
		return File{}, nil, "", err
	}
	key := ResumePrefix + f.Path
	if s.cfg.Presign > 0 {
		u, ok, err := s.cfg.Files.SignedURL(ctx, key, s.cfg.Presign)
		if err != nil {
			return File{}, nil, "", blobErr(err, "resume file")
		}
		if ok {
			return f, nil, u, nil
		}
	}
	if obj, err = s.cfg.Files.Open(ctx, key); err != nil {
		return File{}, nil, "", blobErr(err, "resume file")
	}
	return f, obj, "", nil
}

// state is a session with its questions and turns, loaded for a decision.
type state struct {
	sess      Session
	questions []Question
	// turns are every turn, in order; nil when loaded for an answer or the
	// current question (withQuestions), which need only scores.
	turns []Turn
	// scores are the final scores of the answered main questions.
	scores []int
}

func (s *Service) load(ctx context.Context, userID, sessionID string) (state, error) {
	sess, err := s.store.Session(ctx, userID, sessionID)
	if err != nil {
		return state{}, err
	}
	qs, err := s.store.Questions(ctx, sessionID)
	if err != nil {
		return state{}, err
	}
	turns, err := s.store.Turns(ctx, sessionID)
	if err != nil {
		return state{}, err
	}
	return state{sess: sess, questions: qs, turns: turns, scores: mainScoresOf(turns)}, nil
}

// stateOf is the state of an answer or the current question, as read by
// AnswerState.
func stateOf(v AnswerView) state {
	return state{sess: v.Session, questions: v.Questions, scores: v.Scores}
}

func (st state) question(no string) (Question, bool) {
	for _, q := range st.questions {
		if q.Number == no {
			return q, true
		}
	}
	return Question{}, false
}

// mainScores are the final scores of answered main questions.
func (st state) mainScores() []int { return st.scores }

// mainScoresOf are the final scores of the answered main questions of turns.
func mainScoresOf(turns []Turn) []int {
	var out []int
	for _, t := range turns {
		if t.Status == TurnDone && t.Scored != nil && t.Scored.Hidden == "" && !strings.Contains(t.QuestionNumber, "-F") {
			out = append(out, t.Scored.Score)
		}
	}
	return out
}

// followUpsAsked counts the follow-ups of main question no.
func (st state) followUpsAsked(no string) int {
	n := 0
	for _, q := range st.questions {
		if q.IsFollow && q.ParentNo == no {
			n++
		}
	}
	return n
}

// nextMain returns the main question after no, or "" at the end.
func (st state) nextMain(no string) string {
	cur, _ := st.question(mainOf(no))
	for _, q := range st.questions { // in seq order
		if !q.IsFollow && q.Seq > cur.Seq {
			return q.Number
		}
	}
	return ""
}

// mainOf returns the main question of a follow-up number ("3-F1" → "3").
func mainOf(no string) string {
	m, _, _ := strings.Cut(no, "-F")
	return m
}

// CurrentQuestion returns the question to answer now. Serving the first
// question starts the interview (READY → IN_PROGRESS).
//
// Two queries: the session's deciding columns, then its questions (no
// rubric decoded) with the main questions' scores.
//
// With Config.Changes, no query and no round trip while the session has
// not changed since this instance last loaded it.
func (s *Service) CurrentQuestion(ctx context.Context, userID, sessionID string) (AnswerResp, error) {
	r, _, err := s.currentQuestion(ctx, userID, sessionID)
	return r, err
}

// CurrentQuestionJSON is CurrentQuestion encoded as the API sends it: a
// copy from memory is not encoded again.
func (s *Service) CurrentQuestionJSON(ctx context.Context, userID, sessionID string) (json.RawMessage, error) {
	r, b, err := s.currentQuestion(ctx, userID, sessionID)
	if err != nil || b != nil {
		return b, err
	}
	return json.Marshal(r)
}

// currentQuestion is CurrentQuestion, with the encoded response when it
// was copied in memory (nil otherwise).
func (s *Service) currentQuestion(ctx context.Context, userID, sessionID string) (AnswerResp, json.RawMessage, error) {
	var stamp redisx.Stamp // when the load began: a change since ends its copy
	if s.changes != nil {
		if e, ok := s.changes.get(userID, sessionID, s.now()); ok {
			return e.resp, e.body, nil
		}
		stamp = s.changes.inv.Stamp()
	}
	v, err := s.store.AnswerState(ctx, userID, sessionID, "")
	if err != nil {
		return AnswerResp{}, nil, err
	}
	st, sess := stateOf(v), v.Session
	switch sess.Status {
	case SessionReady:
		if err := s.store.StartInterview(ctx, sess.ID, s.now()); err != nil {
			return AnswerResp{}, nil, err
		}
	case SessionInProgress, SessionFinished:
	default:
		return AnswerResp{}, nil, invalidState("the session has no questions yet (status %s): upload a resume first", sess.Status)
	}
	resp := s.currentResp(st)
	if s.changes == nil || sess.Status == SessionReady {
		return resp, nil, nil
	}
	// Loaded after stamp: a change since then ends the copy (or prevents
	// it). Starting the interview above was a change: no copy.
	body, err := json.Marshal(resp)
	if err != nil {
		return resp, nil, nil
	}
	s.changes.keep(stamp, userID, sessionID, resp, body, s.now())
	return resp, body, nil
}

// currentResp describes the session's current question.
func (s *Service) currentResp(st state) AnswerResp {
	r := AnswerResp{SessionID: st.sess.ID, Status: "done", IsSuccess: true, Offline: st.sess.Offline,
		TotalScore: SessionScore(st.mainScores()), Strengths: []string{}, Improvements: []string{}}
	if st.sess.Flow == FlowCompleted || st.sess.Status == SessionFinished {
		r.Finished = true
		return r
	}
	if q, ok := st.question(st.sess.CurrentNumber); ok {
		r.QuestionNumber, r.QuestionContent, r.IsFollowUp = q.Number, q.Content, q.IsFollow
		r.NextQuestionNumber, r.NextQuestion = q.Number, q.Content
		r.FollowUpCount = st.followUpsAsked(mainOf(q.Number))
	}
	if st.sess.Flow == FlowEvaluating {
		r.Status = "evaluating"
	}
	return r
}

// AnswerInput is one submitted answer.
type AnswerInput struct {
	QuestionNumber string `json:"questionNumber" form:"questionNumber"`
	AnswerContent  string `json:"answerContent" form:"answerContent"`
	RequestID      string `json:"requestId" form:"requestId"`
}

// AutoRequestID derives the request id of an answer sent without one, so an
// identical re-submit is the same request.
func AutoRequestID(sessionID, questionNumber, answer string) string {
	sum := sha256.Sum256([]byte(sessionID + "|" + questionNumber + "|" + NormalizeAnswer(answer)))
	return "auto-" + hex.EncodeToString(sum[:])[:32]
}

func (in *AnswerInput) validate(sessionID string) error {
	in.QuestionNumber = strings.TrimSpace(in.QuestionNumber)
	in.RequestID = strings.TrimSpace(in.RequestID)
	switch {
	case in.QuestionNumber == "":
		return apperr.Invalid("questionNumber is required")
	case len(in.QuestionNumber) > 16:
		return apperr.Invalid("questionNumber must be at most 16 characters")
	case strings.TrimSpace(in.AnswerContent) == "":
		return apperr.Invalid("answerContent is required")
	case utf8.RuneCountInString(in.AnswerContent) > MaxAnswerChars:
		return apperr.Invalid("answerContent must be at most %d characters", MaxAnswerChars)
	case len(in.RequestID) > MaxRequestIDLen:
		return apperr.Invalid("requestId must be at most %d characters", MaxRequestIDLen)
	}
	if in.RequestID == "" {
		in.RequestID = AutoRequestID(sessionID, in.QuestionNumber, in.AnswerContent)
	}
	return nil
}

// ErrStillEvaluating wraps the response of an answer whose evaluation is
// still running elsewhere (HTTP 202): re-send the same request.
type ErrStillEvaluating struct{ Resp AnswerResp }

func (e *ErrStillEvaluating) Error() string { return "the answer is still being evaluated" }

// Accepted is the 202 answer's data: the request is taken and the client
// polls (httpx.Pending).
func (e *ErrStillEvaluating) Accepted() any { return e.Resp }

// Answer scores an answer to the current question. The answer is stored
// before the model is called; a repeated request replays the stored
// response; a stale question number is a 409 carrying the current question.
//
// A distinct answer costs one query (AnswerState: the session with the
// turn of the request, the questions and the scores), the claim (two
// statements, one commit) and the completion (at most four statements:
// session, turn, follow-up question, AI trace; one commit). A replay not
// in memory is the query alone.
func (s *Service) Answer(ctx context.Context, userID, sessionID string, in AnswerInput) (AnswerResp, error) {
	// Load first: another user's session is a 404 whatever the body says.
	verr := in.validate(sessionID)
	requestID := in.RequestID
	if verr != nil {
		requestID = ""
	}
	v, err := s.store.AnswerState(ctx, userID, sessionID, requestID)
	if err != nil {
		return AnswerResp{}, err
	}
	if verr != nil {
		return AnswerResp{}, verr
	}
	traces := &traceBatch{}
	defer s.storeTraces(ctx, traces)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if v, err = s.store.AnswerState(ctx, userID, sessionID, in.RequestID); err != nil {
				return AnswerResp{}, err
			}
		}
		st, sess, prev := stateOf(v), v.Session, v.Turn
		if prev.Status == TurnDone && prev.Response != nil && s.now().Sub(prev.CreatedAt) < replayFor {
			s.metrics.replays.Inc()
			s.replays.put(userID, sessionID, in.RequestID, prev.Response, prev.CreatedAt)
			return *prev.Response, nil
		}
		if sess.Status != SessionReady && sess.Status != SessionInProgress {
			return AnswerResp{}, invalidState("answers are accepted only while the interview runs (session is %s)", sess.Status)
		}
		if sess.Flow == FlowCompleted {
			return AnswerResp{}, invalidState("every question has been answered: finish the interview")
		}
		if in.QuestionNumber != sess.CurrentNumber {
			s.metrics.stale.Inc()
			return AnswerResp{}, staleQuestion(s.currentResp(st), in.QuestionNumber)
		}
		q, ok := st.question(sess.CurrentNumber)
		if !ok {
			return AnswerResp{}, apperr.Internal(fmt.Errorf("session %s: current question %s missing", sess.ID, sess.CurrentNumber))
		}
		now := s.now()
		stale := sess.Flow == FlowEvaluating && sess.FlowUpdatedAt != nil && sess.FlowUpdatedAt.Before(now.Add(-s.cfg.StaleAfter))
		if sess.Flow == FlowEvaluating && sess.FlowRequestID == in.RequestID && !stale {
			// The same request is being evaluated (another instance or a
			// double click): evaluate alongside it. Single-flight makes this
			// a follower of the same model call.
			return s.evaluate(ctx, st, q, sess.FlowVersion, in, prev, traces)
		}
		if sess.Flow == FlowEvaluating && !stale {
			s.metrics.stale.Inc()
			return AnswerResp{}, staleQuestion(s.currentResp(st), in.QuestionNumber)
		}
		turn := Turn{ID: ids.New(), SessionID: sess.ID, QuestionNumber: q.Number, RequestID: in.RequestID,
			Answer: in.AnswerContent, Status: TurnEvaluating, PromptVersion: s.prompts[StageEvaluation].Version,
			CreatedAt: now, UpdatedAt: now}
		retryOf := ""
		if prev.Status == TurnFailed {
			retryOf = prev.ID // a failed attempt of this request is retried in place
		}
		won, err := s.store.ClaimAnswer(ctx, sess, turn, retryOf, now, now.Add(-s.cfg.StaleAfter))
		if err != nil {
			return AnswerResp{}, err
		}
		if won {
			st.sess.Flow, st.sess.FlowRequestID, st.sess.FlowVersion = FlowEvaluating, in.RequestID, sess.FlowVersion+1
			return s.evaluate(ctx, st, q, st.sess.FlowVersion, in, turn, traces)
		}
		if attempt >= 2 {
			return AnswerResp{}, invalidState("the session is changing too fast; reload it and try again")
		}
		// Lost the race: reload and decide again (join, replay or 409).
	}
}

// traceBatch holds the AI trace entries of one answer until they are
// stored with its result (CompleteAnswer) or, when it has none, at the
// end of the request (storeTraces). The calls of one answer run one after
// another on the request's goroutine.
type traceBatch struct{ entries []TraceEntry }

// storeTraces stores the entries the answer's result did not take.
func (s *Service) storeTraces(ctx context.Context, b *traceBatch) {
	if len(b.entries) == 0 {
		return
	}
	if err := s.store.AddTraces(context.WithoutCancel(ctx), b.entries); err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "interview: trace not stored",
			slog.String("session", b.entries[0].SessionID), slog.Any("err", err))
	}
	b.entries = nil
}

// staleQuestion is the 409 of an answer to a question that is not current.
func staleQuestion(cur AnswerResp, sent string) error {
	e := apperr.Conflict("question %s is not the current question; answer question %s", sent, cur.QuestionNumber)
	if cur.Status == "evaluating" {
		e = apperr.Conflict("another answer to question %s is being evaluated; wait for it", cur.QuestionNumber)
	}
	if cur.Finished {
		e = apperr.Conflict("every question has been answered: finish the interview")
	}
	return e.WithCode(apperr.CodeInvalidState).WithData(cur)
}

// evaluate runs evaluation, review and follow-up for the request holding
// the EVALUATING phase at version, then stores the result (or, when another
// instance stored it first, returns what it stored).
//
// claimed is the EVALUATING turn of the request (its id and creation time
// are kept); traces collects the calls' trace entries. Its progress
// (scoring, review, follow-up) is reported under the request id
// (Service.Progress).
func (s *Service) evaluate(ctx context.Context, st state, q Question, version int64, in AnswerInput, claimed Turn,
	traces *traceBatch) (resp AnswerResp, err error) {
	ctx, tr := s.track(ctx, st.sess.ID, in.RequestID, ProgressAnswer, StepScoring)
	defer func() { tr.finish(ctx, err, s.now()) }()
	v, err := s.score(ctx, traces, st.sess, q, in.AnswerContent)
	if err != nil {
		return s.evaluationFailed(ctx, st, version, in, claimed, candidateError(ProgressAnswer, err))
	}
	lang := sessionLanguage(st.sess)
	feedback := withReviewNotice(lang, GuardFeedbackIn(lang, v.eval.Feedback, v.eval, q.Spec), v.scored.Reason)
	decision, followUp := s.followUp(ctx, traces, st, q, in.AnswerContent, v)
	flow, next := st.advance(q, followUp)
	turn, err := s.doneTurn(ctx, st.sess.ID, q, in, v, feedback, decision, claimed)
	if err != nil {
		return AnswerResp{}, err
	}
	resp = st.answerResp(q, in.RequestID, v.scored, feedback, flow, next, followUp)
	resp.Strengths, resp.Improvements = AnswerPointsIn(lang, q.Spec, v.eval, v.review, v.scored)
	turn.Response = &resp
	return s.completeAnswer(ctx, st.sess.ID, version, turn, flow, next, followUp, traces)
}

// followUp applies the follow-up rules to a scored answer and, when they
// ask for one, writes it; the question is nil when none is asked.
func (s *Service) followUp(ctx context.Context, traces *traceBatch, st state, q Question, answer string, v verdict) (FollowUpDecision, *Question) {
	decision := DecideFollowUp(FollowUpState{Completed: false, FollowUpsAsked: st.followUpsAsked(mainOf(q.Number)),
		MaxFollowUp: s.cfg.MaxFollowUp, IsFollowUp: q.IsFollow, Spec: q.Spec, Eval: v.eval, Score: v.scored.Score})
	if !decision.Ask {
		return decision, nil
	}
	text := s.followUpText(ctx, traces, st.sess.ID, sessionLanguage(st.sess), q, answer, decision.Targets, v.eval.MissingPoints)
	if text == "" {
		decision.Ask, decision.Reason = false, "no-usable-follow-up"
		return decision, nil
	}
	n := st.followUpsAsked(q.Number) + 1
	return decision, &Question{SessionID: st.sess.ID, Number: fmt.Sprintf("%s-F%d", q.Number, n), Seq: q.Seq + n,
		Content: text, Spec: q.Spec, IsFollow: true, ParentNo: q.Number, Targets: decision.Targets, CreatedAt: s.now()}
}

// advance returns the flow and current question after q is answered: the
// follow-up if one is asked, else the next main question, else COMPLETED.
func (st state) advance(q Question, followUp *Question) (flow, next string) {
	if followUp != nil {
		return FlowAsking, followUp.Number
	}
	if next = st.nextMain(q.Number); next == "" {
		return FlowCompleted, ""
	}
	return FlowAsking, next
}

// doneTurn is the evaluated turn of the request, in place of the
// EVALUATING turn stored when the answer was claimed (read again only when
// the caller did not see it).
func (s *Service) doneTurn(ctx context.Context, sessionID string, q Question, in AnswerInput, v verdict, feedback string,
	decision FollowUpDecision, existing Turn) (Turn, error) {
	if existing.ID == "" {
		var err error
		if existing, err = s.store.TurnByRequest(ctx, sessionID, in.RequestID); err != nil {
			return Turn{}, err
		}
	}
	scored, ev := v.scored, v.eval
	return Turn{ID: existing.ID, SessionID: sessionID, QuestionNumber: q.Number, RequestID: in.RequestID, Answer: in.AnswerContent,
		Status: TurnDone, Scored: &scored, Evaluation: &ev, Review: v.review, ReviewReason: v.reviewReason, Feedback: feedback,
		FollowUp: &decision, PromptVersion: s.prompts[StageEvaluation].Version, CreatedAt: existing.CreatedAt, UpdatedAt: s.now()}, nil
}

// answerResp is the response to an answer of q scored as scored.
func (st state) answerResp(q Question, requestID string, scored Scored, feedback, flow, next string, followUp *Question) AnswerResp {
	lang := sessionLanguage(st.sess)
	scores := st.mainScores()
	if !q.IsFollow && scored.Hidden == "" {
		scores = append(scores, scored.Score)
	}
	resp := AnswerResp{SessionID: st.sess.ID, RequestID: requestID, QuestionNumber: q.Number, QuestionContent: q.Content,
		TotalScore: SessionScore(scores), Feedback: feedback,
		FollowUpCount: st.followUpsAsked(mainOf(q.Number)), Finished: flow == FlowCompleted, IsSuccess: true,
		Status: "done", Offline: st.sess.Offline}
	if scored.Hidden != "" {
		resp.ScoreHidden = hiddenScoreText(lang)
	} else {
		score := scored.Score
		resp.Score, resp.Level, resp.LevelText = &score, scored.Level, LevelText(scored.Level, lang)
	}
	if followUp != nil {
		resp.NextQuestionNumber, resp.NextQuestion, resp.IsFollowUp = followUp.Number, followUp.Content, true
		resp.FollowUpCount++
	} else if nq, ok := st.question(next); ok {
		resp.NextQuestionNumber, resp.NextQuestion = nq.Number, nq.Content
	}
	return resp
}

// completeAnswer stores the evaluated turn if the session is still
// evaluating this request at version. When another instance completed the
// same request first, it answers with what that one stored, so every copy
// of the request gets the same response.
func (s *Service) completeAnswer(ctx context.Context, sessionID string, version int64, turn Turn, flow, next string,
	followUp *Question, traces *traceBatch) (AnswerResp, error) {
	won, err := s.store.CompleteAnswer(context.WithoutCancel(ctx), sessionID, version, turn, flow, next, followUp, traces.entries)
	if err != nil {
		return AnswerResp{}, err
	}
	if won {
		traces.entries = nil // stored with the result
		return *turn.Response, nil
	}
	stored, err := s.store.TurnByRequest(ctx, sessionID, turn.RequestID)
	if err != nil {
		return AnswerResp{}, err
	}
	if stored.Status == TurnDone && stored.Response != nil {
		s.metrics.replays.Inc()
		return *stored.Response, nil
	}
	return AnswerResp{}, invalidState("the answer was not stored because the session moved on; reload it")
}

// verdict is the scoring of one answer: the first evaluation, the rule
// verdict (merged with the review's when there was one), the review's
// evaluation (nil when none was run or it failed) and why a review was or
// was not asked for.
type verdict struct {
	eval         Evaluation
	scored       Scored
	review       *Evaluation
	reviewReason string
}

// score evaluates the answer and, when the rules ask for it, reviews it;
// a final verdict the evidence cannot support is hidden.
func (s *Service) score(ctx context.Context, traces *traceBatch, sess Session, q Question, answer string) (verdict, error) {
	v, err := s.judge(ctx, traces, sess.ID, sessionLanguage(sess), ResumeProfileText(sess.Profile, sess.Target), q, answer)
	if err == nil {
		v.scored.Hidden = EvidenceInsufficient(v.eval, v.review)
	}
	return v, err
}

// judge runs the evaluation and, when the rules ask for it, the review.
func (s *Service) judge(ctx context.Context, traces *traceBatch, sessionID, lang, profile string, q Question, answer string) (verdict, error) {
	req, err := s.prompts[StageEvaluation].In(lang).Request(EvaluationInput{QuestionNumber: q.Number, Question: q.Spec, Answer: answer,
		ResumeProfile: profile})
	if err != nil {
		return verdict{}, apperr.Internal(err)
	}
	parse := func(r llm.Response) (Evaluation, error) { return ParseEvaluation(r.Content) }
	ev, _, err := tracedInvoke(ctx, s, traces, Call{Stage: StageEvaluation, SessionID: sessionID, QuestionNumber: q.Number,
		Answer: answer, Provider: s.provider, Request: req}, parse)
	if err != nil {
		return verdict{}, err
	}
	scored := Score(ev)
	decision := ReviewNeeded(ev, scored)
	v := verdict{eval: ev, scored: scored, reviewReason: decision.Reason}
	if !decision.Review {
		return v, nil
	}
	req, err = s.prompts[StageReview].In(lang).Request(EvaluationInput{QuestionNumber: q.Number, Question: q.Spec, Answer: answer, Review: true,
		ResumeProfile: profile})
	if err != nil {
		return verdict{}, apperr.Internal(err)
	}
	second, _, err := tracedInvoke(ctx, s, traces, Call{Stage: StageReview, SessionID: sessionID, QuestionNumber: q.Number,
		Answer: answer, Provider: s.provider, Request: req}, parse)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return verdict{}, err
		}
		v.scored = ReviewFailed(scored) // a failed review keeps the first result
		return v, nil
	}
	v.scored, v.review = MergeReview(ev, scored, second), &second
	return v, nil
}

// followUpText asks the model for a follow-up, falling back to the spec's
// follow-up strategy; "" when neither is usable.
func (s *Service) followUpText(ctx context.Context, traces *traceBatch, sessionID, lang string, q Question, answer string, targets, missing []string) string {
	req, err := s.prompts[StageFollowUp].In(lang).Request(FollowUpInput{QuestionNumber: q.Number, Question: q.Spec, Answer: answer,
		Targets: targets, MissingPoints: missing})
	if err == nil {
		out, _, err := tracedInvoke(ctx, s, traces, Call{Stage: StageFollowUp, SessionID: sessionID, QuestionNumber: q.Number,
			Answer: answer, Provider: s.provider, Request: req}, func(r llm.Response) (FollowUpOutput, error) { return ParseFollowUp(r.Content) })
		if err == nil {
			if text, ok := CleanFollowUp(out.FollowUp); ok {
				return text
			}
		}
	}
	if text, ok := CleanFollowUp(q.Spec.FollowUpStrategy); ok {
		return text
	}
	return ""
}

// evaluationFailed handles a failed evaluation: still running elsewhere →
// 202; otherwise the turn is marked failed (the answer stays stored), the
// question is given back and the error returned, so the same request can be
// retried.
func (s *Service) evaluationFailed(ctx context.Context, st state, version int64, in AnswerInput, claimed Turn, err error) (AnswerResp, error) {
	if errors.Is(err, singleflight.ErrInProgress) {
		r := s.currentResp(st)
		r.RequestID, r.Status = in.RequestID, "evaluating"
		return AnswerResp{}, &ErrStillEvaluating{Resp: r}
	}
	if errors.Is(err, context.Canceled) {
		// The client left; the flight goes on for the other callers and a
		// retry of the same request will find the result.
		return AnswerResp{}, err
	}
	t, lerr := claimed, error(nil)
	if t.ID == "" {
		t, lerr = s.store.TurnByRequest(ctx, st.sess.ID, in.RequestID)
	}
	if lerr == nil {
		t.ErrorMessage = err.Error()
		if e := apperr.As(err); e != nil {
			t.ErrorMessage = e.Message
		}
		t.UpdatedAt = s.now()
		if ferr := s.store.FailAnswer(context.WithoutCancel(ctx), st.sess.ID, version, t); ferr != nil {
			return AnswerResp{}, errors.Join(err, ferr)
		}
	}
	return AnswerResp{}, err
}

// Restore describes a session for a client resuming it.
type Restore struct {
	SessionID     string            `json:"sessionId"`
	Status        string            `json:"status"`
	CanResume     bool              `json:"canResume"`
	InterviewType string            `json:"interviewType"`
	ResumeScore   *int              `json:"resumeScore"`
	Suggestions   map[string]string `json:"suggestions"`
	Current       AnswerResp        `json:"current"`
	Offline       bool              `json:"offline"`
	// Read says what was read from the resume (null before one is stored).
	Read *ReadSummary `json:"read"`
	// CanReplaceResume is true until the interview starts: an upload now
	// replaces the resume and regenerates the questions.
	CanReplaceResume bool `json:"canReplaceResume"`
	// Language is the session's language, "" before a resume is stored.
	Language string `json:"language"`
	// Demeanor says whether photos can be assessed (offer the camera only
	// then), worded in the session's language.
	Demeanor DemeanorCapability `json:"demeanor"`
	// LastFeedback is the feedback on the latest evaluated answer (null
	// before one), for a client that does not keep it itself.
	LastFeedback *LastFeedback `json:"lastFeedback"`
}

// LastFeedback is an evaluated answer with the response it was given.
type LastFeedback struct {
	// Response is the answer's stored response; its strengths and
	// improvements are derived again from the judgments, so that a
	// response stored without them has them too.
	Response      AnswerResp `json:"response"`
	AnswerContent string     `json:"answerContent"`
}

// lastFeedback is the feedback on st's latest evaluated answer, or nil.
func (st state) lastFeedback() *LastFeedback {
	for i := len(st.turns) - 1; i >= 0; i-- {
		t := st.turns[i]
		if t.Status != TurnDone || t.Response == nil {
			continue
		}
		q, _ := st.question(t.QuestionNumber)
		resp := *t.Response
		resp.Strengths, resp.Improvements = answerPoints(sessionLanguage(st.sess), q, t)
		return &LastFeedback{Response: resp, AnswerContent: t.Answer}
	}
	return nil
}

// Restore returns what a client needs to continue a session.
func (s *Service) Restore(ctx context.Context, userID, sessionID string) (Restore, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return Restore{}, err
	}
	return Restore{SessionID: st.sess.ID, Status: st.sess.Status,
		CanResume:     (st.sess.Status == SessionReady || st.sess.Status == SessionInProgress) && st.sess.Flow != FlowCompleted,
		InterviewType: st.sess.InterviewType, ResumeScore: st.sess.ResumeScore, Suggestions: numbered(st.sess.Suggestions),
		Current: s.currentResp(st), Offline: st.sess.Offline, Read: st.sess.Read,
		CanReplaceResume: st.sess.Status == SessionReady, Language: st.sess.Language,
		Demeanor: s.DemeanorCapabilityIn(ctx, sessionLanguage(st.sess)), LastFeedback: st.lastFeedback()}, nil
}

// MainQuestions returns {number: text} of the main questions.
func (s *Service) MainQuestions(ctx context.Context, userID, sessionID string) (map[string]string, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, q := range st.questions {
		if !q.IsFollow {
			out[q.Number] = q.Content
		}
	}
	return out, nil
}

// Score returns the running average of main-question scores (nil before any).
func (s *Service) Score(ctx context.Context, userID, sessionID string) (*int, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return nil, err
	}
	return SessionScore(st.mainScores()), nil
}

// Suggestions returns the resume suggestions as {number: text}.
func (s *Service) Suggestions(ctx context.Context, userID, sessionID string) (map[string]string, error) {
	sess, err := s.store.Session(ctx, userID, sessionID)
	if err != nil {
		return nil, err
	}
	return numbered(sess.Suggestions), nil
}

func numbered(items []string) map[string]string {
	out := map[string]string{}
	for i, it := range items {
		out[strconv.Itoa(i+1)] = it
	}
	return out
}

func dedupe(items []string, limit int) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		key := strings.ToLower(it)
		if it == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, it)
		if len(out) == limit {
			break
		}
	}
	return out
}

func clampScore(n int) int { return max(0, min(100, n)) }

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// safeName keeps a display name for an uploaded file; it is never a path.
func safeName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) > 100 {
		name = string([]rune(name)[:100])
	}
	if name == "." || name == "/" {
		return ""
	}
	return name
}
