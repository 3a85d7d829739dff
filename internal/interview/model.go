package interview

import "time"

// The five evaluation dimensions and their weights in the rule score.
const (
	DimCorrectness  = "correctness"
	DimCompleteness = "completeness"
	DimLogic        = "logic"
	DimDepth        = "depth"
	DimClarity      = "clarity"
)

// Dimensions lists the dimensions in weight order.
var Dimensions = []string{DimCorrectness, DimCompleteness, DimLogic, DimDepth, DimClarity}

// DimensionWeights are the weights of the rule score (sum 100).
var DimensionWeights = map[string]int{DimCorrectness: 30, DimCompleteness: 25, DimLogic: 20, DimDepth: 15, DimClarity: 10}

// Judgment statuses of a dimension or rubric anchor.
const (
	StatusMet          = "met"
	StatusPartial      = "partial"
	StatusMissing      = "missing"
	StatusContradicted = "contradicted"
)

// Score levels.
const (
	LevelExcellent = "excellent"
	LevelQualified = "qualified"
	LevelNeedsWork = "needs improvement"
)

// --- Model output contract (interview.md "Model output contract"). ---

// SkillEvidence is a skill with the resume text that shows it.
type SkillEvidence struct {
	Skill    string `json:"skill"`
	Evidence string `json:"evidence"`
}

// RoleHypothesis is a role the resume suggests.
type RoleHypothesis struct {
	Target     string  `json:"target"`
	Evidence   string  `json:"evidence"`
	Confidence float64 `json:"confidence"`
}

// Profile is the resume-profile-extraction output.
type Profile struct {
	Skills               []string         `json:"skills"`
	SkillEvidence        []SkillEvidence  `json:"skillEvidence"`
	RoleHypotheses       []RoleHypothesis `json:"roleHypotheses"`
	ResumeScore          int              `json:"resumeScore"`
	ResumeSuggestions    []string         `json:"resumeSuggestions"`
	ProjectQuestionHints []string         `json:"projectQuestionHints"`
	ResumeType           string           `json:"resumeType"`
}

// Anchor is a rubric point of a question: what a good answer states.
type Anchor struct {
	Name                 string   `json:"name"`
	Weight               int      `json:"weight"`
	Core                 bool     `json:"core"`
	AcceptableStatements []string `json:"acceptableStatements"`
}

// QuestionSpec is a main question with its scoring rubric.
type QuestionSpec struct {
	Content          string   `json:"content"`
	Anchors          []Anchor `json:"anchors"`
	CommonMistakes   []string `json:"commonMistakes"`
	FollowUpStrategy string   `json:"followUpStrategy"`
	RubricVersion    int      `json:"rubricVersion"`
	// Degraded records why the spec was replaced by the legacy anchor ("" when valid).
	Degraded string `json:"degraded,omitempty"`
}

// Questions is the interview-extraction output.
type Questions struct {
	Questions     []QuestionSpec `json:"questions"`
	Suggestions   []string       `json:"suggestions"`
	InterviewType string         `json:"interviewType"`
	ResumeScore   int            `json:"resumeScore"`
}

// DimensionJudgment is the evaluator's view of one dimension.
type DimensionJudgment struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	Evidence   string  `json:"evidence"`
	Confidence float64 `json:"confidence"`
}

// AnchorJudgment is the evaluator's view of one rubric anchor.
type AnchorJudgment struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Evidence string `json:"evidence"`
}

// Evaluation is the interview-evaluation (and interview-review) output.
type Evaluation struct {
	Dimensions    []DimensionJudgment `json:"dimensions"`
	Anchors       []AnchorJudgment    `json:"anchors"`
	Score         int                 `json:"score"`
	Feedback      string              `json:"feedback"`
	MissingPoints []string            `json:"missingPoints"`
}

// FollowUpOutput is the interview-followup output.
type FollowUpOutput struct {
	FollowUp     string `json:"followUp"`
	EndInterview bool   `json:"endInterview"`
}

// Demeanor is the interview-demeanor output (0-100 after scale detection).
type Demeanor struct {
	PanicLevel       int `json:"panicLevel"`
	SeriousnessLevel int `json:"seriousnessLevel"`
	EmoticonHandling int `json:"emoticonHandling"`
	CompositeScore   int `json:"compositeScore"`
}

// --- Decisions made by rules (rules.go). ---

// Scored is the rule engine's verdict on one evaluation.
type Scored struct {
	// Score is the final score 0..100.
	Score int    `json:"score"`
	Level string `json:"level"`
	// RuleScore is the score computed from the dimension statuses, or -1
	// when the judgments were unusable and the model's score was used.
	RuleScore int `json:"ruleScore"`
	// Capped is true when a contradicted correctness capped the score at 40.
	Capped bool `json:"capped"`
	// Reason records how the score was reached (reason codes, e.g.
	// "rule", "model-score:missing-dimensions", "review:agree").
	Reason string `json:"reason"`
	// NeedsReview flags a score a human should look at.
	NeedsReview bool `json:"needsReview"`
	// Hidden is why the score is not shown ("" when it is): a reason code
	// such as "insufficient-evidence:2/5". A hidden score is kept for the
	// rules (follow-ups) but shown as null and left out of every total.
	Hidden string `json:"hidden,omitempty"`
}

// ReviewDecision says whether a second evaluation is needed and why.
type ReviewDecision struct {
	Review bool
	Reason string // e.g. "boundary-score:60", "low-confidence:0.55", "contradicted-correctness"
}

// FollowUpDecision says whether to ask a follow-up and about what.
type FollowUpDecision struct {
	Ask     bool
	Reason  string   // which rule decided
	Targets []string // core anchor names judged partial or contradicted
}

// --- Sessions and turns. ---

// Session states.
const (
	SessionDraft           = "DRAFT"
	SessionResumeUploading = "RESUME_UPLOADING"
	SessionReady           = "READY"
	SessionInProgress      = "IN_PROGRESS"
	SessionFinished        = "FINISHED"
	SessionAbandoned       = "ABANDONED"
)

// Flow phases inside a session.
const (
	FlowAsking     = "ASKING"
	FlowEvaluating = "EVALUATING"
	FlowFollowUp   = "FOLLOW_UP"
	FlowCompleted  = "COMPLETED"
)

// Session is one mock interview.
type Session struct {
	ID            string
	UserID        string
	Status        string
	Flow          string
	FlowVersion   int64
	CurrentNumber string // "1".."N" or "3-F1"; "" before questions exist
	// FlowRequestID is the request that holds the EVALUATING phase.
	FlowRequestID string
	FlowUpdatedAt *time.Time
	// UploadHash identifies the resume being processed while RESUME_UPLOADING.
	UploadHash    string
	Profile       *Profile
	InterviewType string
	Target        string
	ResumeScore   *int
	ResumeFileID  string
	// Read says what was read from the resume; nil before a resume is
	// stored (and for sessions stored before it was recorded).
	Read        *ReadSummary
	Suggestions []string
	Offline     bool
	// Language is LangZH or LangEN: what the candidate reads is written in
	// it. "" before a resume is stored.
	Language   string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// Sources of a resume's text (ReadSummary.Source).
const (
	ReadFromText  = "text"  // the file's text (a PDF text layer, TXT or MD)
	ReadFromOCR   = "ocr"   // every page recognised by OCR
	ReadFromMixed = "mixed" // some pages from the text layer, some by OCR
)

// ReadSummary tells the candidate what was read from the uploaded resume,
// so a badly read file is visible before the interview starts.
type ReadSummary struct {
	Chars    int    `json:"chars"`    // characters (runes) of extracted text
	Pages    int    `json:"pages"`    // pages of a PDF; 0 for TXT/MD
	Source   string `json:"source"`   // ReadFromText, ReadFromOCR or ReadFromMixed
	OCRPages int    `json:"ocrPages"` // pages read by OCR
	// Kind is the file's kind ("pdf", "docx", "txt", "md", "jpeg", ...),
	// so that a page can say "Word" rather than "plain text"; "" for
	// sessions from before it was recorded.
	Kind string `json:"kind,omitempty"`
}

// Question is a main question or a follow-up of a session.
type Question struct {
	SessionID string
	Number    string // "3" or "3-F1"
	Seq       int    // order of asking
	Content   string
	Spec      QuestionSpec
	IsFollow  bool
	ParentNo  string // for follow-ups, the main question
	Targets   []string
	CreatedAt time.Time
}

// Turn is an answered question with every judgment and the reason codes.
type Turn struct {
	ID             string
	SessionID      string
	QuestionNumber string
	RequestID      string
	Answer         string
	Status         string // "evaluating", "done", "failed"
	Scored         *Scored
	Evaluation     *Evaluation
	Review         *Evaluation
	ReviewReason   string
	Feedback       string
	FollowUp       *FollowUpDecision
	PromptVersion  string
	ErrorMessage   string
	// Response is what the request was answered with, replayed for 24 h.
	Response  *AnswerResp
	CreatedAt time.Time
	UpdatedAt time.Time
}

// File is an uploaded resume; its bytes are stored under the data dir.
type File struct {
	ID        string
	UserID    string
	SessionID string
	Filename  string
	MIME      string
	Size      int64
	SHA256    string
	Path      string // relative to the upload root
	Text      string
	CreatedAt time.Time
}

// AnswerResp is the response of the current-question and answer endpoints.
type AnswerResp struct {
	SessionID       string `json:"sessionId"`
	RequestID       string `json:"requestId,omitempty"`
	QuestionNumber  string `json:"questionNumber"`
	QuestionContent string `json:"questionContent"`
	Score           *int   `json:"score"`
	Level           string `json:"level,omitempty"`
	// LevelText is Level's display text in the session's language.
	LevelText  string `json:"levelText,omitempty"`
	TotalScore *int   `json:"totalScore"`
	// ScoreHidden says why Score is null although the answer was
	// evaluated: the evidence was insufficient ("" when it is shown).
	ScoreHidden        string `json:"scoreHidden,omitempty"`
	Feedback           string `json:"feedback"`
	NextQuestionNumber string `json:"nextQuestionNumber"`
	NextQuestion       string `json:"nextQuestion"`
	IsFollowUp         bool   `json:"isFollowUp"`
	FollowUpCount      int    `json:"followUpCount"`
	Finished           bool   `json:"finished"`
	IsSuccess          bool   `json:"isSuccess"`
	ErrorMessage       string `json:"errorMessage"`
	// Status is "done", or "evaluating" when the same answer is still being
	// scored elsewhere: re-send the same request to get the result.
	Status  string `json:"status"`
	Offline bool   `json:"offline"`

	// Strengths and Improvements are what was good in the answer and what
	// to improve, derived by rule from its judgments in the session's
	// language (AnswerPointsIn): empty when nothing applies or the score
	// is hidden, and in a response to no answer (the current question).
	Strengths    []string `json:"strengths"`
	Improvements []string `json:"improvements"`
}

// DemeanorResult is one photo's demeanor assessment. Scores are nil when
// the model cannot see images (not assessed, never a made-up number).
type DemeanorResult struct {
	Assessed         bool   `json:"assessed"`
	PanicLevel       *int   `json:"panicLevel"`
	SeriousnessLevel *int   `json:"seriousnessLevel"`
	EmoticonHandling *int   `json:"emoticonHandling"`
	CompositeScore   *int   `json:"compositeScore"`
	Message          string `json:"message,omitempty"`
	// SessionComposite is the mean composite over every assessed photo.
	SessionComposite *int `json:"sessionComposite"`
	PhotoCount       int  `json:"photoCount"`
}

// RadarDimension is one axis of the radar chart.
type RadarDimension struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Score *int   `json:"score"`
}

// PlaybackItem is one answered question in the report.
type PlaybackItem struct {
	Seq             int    `json:"seq"`
	QuestionNumber  string `json:"questionNumber"`
	QuestionContent string `json:"questionContent"`
	AnswerContent   string `json:"answerContent"`
	Score           *int   `json:"score"`
	Level           string `json:"level"`
	// LevelText is Level's display text in the session's language.
	LevelText    string `json:"levelText"`
	Feedback     string `json:"feedback"`
	IsFollowUp   bool   `json:"isFollowUp"`
	ParentNumber string `json:"parentNumber,omitempty"`
	NeedsReview  bool   `json:"needsReview"`
	ScoreReason  string `json:"scoreReason"`
	// ScoreHidden says why Score is null: the evidence was insufficient
	// to score the answer ("" when it is shown).
	ScoreHidden string `json:"scoreHidden,omitempty"`
	AnsweredAt  string `json:"answeredAt"`
	// Timestamp is AnsweredAt in Unix milliseconds, as the original had it.
	Timestamp int64 `json:"timestamp"`
	// RequestID is the answer's request id (sent or derived).
	RequestID string `json:"requestId"`
	// TotalScore is the running session score after this turn.
	TotalScore *int `json:"totalScore"`
	// FollowUpNeeded says the rules asked a follow-up after this turn.
	FollowUpNeeded bool `json:"followUpNeeded"`
	// FollowUpCount is how many follow-ups the main question had after it.
	FollowUpCount int `json:"followUpCount"`
	// NextQuestionNumber and NextQuestion are what was asked next ("" at
	// the end); Finished says this turn answered the last question.
	NextQuestionNumber string `json:"nextQuestionNumber"`
	NextQuestion       string `json:"nextQuestion"`
	Finished           bool   `json:"finished"`

	// Strengths and Improvements are the answer's lists, as its response
	// had them (AnswerPointsIn).
	Strengths    []string `json:"strengths"`
	Improvements []string `json:"improvements"`
}

// Report is the interview's report: live (Final false) while it runs,
// final once it is finished. DurationSeconds is null when no question was
// answered, and NotAssessedReason then says, in the session's language, why
// the scores and the duration are null.
type Report struct {
	// ID identifies the record; it is the session id (one record per
	// session).
	ID        string `json:"id"`
	UserID    string `json:"userId"`
	SessionID string `json:"sessionId"`
	// Final is false for a report computed while the interview runs (what
	// is known so far) and true for the stored report of a finished one.
	Final bool `json:"final"`
	// ResumeFileURL serves the session's resume to its owner (the
	// original's resumeFileUrl); set by the handler.
	ResumeFileURL      string           `json:"resumeFileUrl,omitempty"`
	CreateTime         string           `json:"createTime"`
	UpdateTime         string           `json:"updateTime"`
	InterviewScore     *int             `json:"interviewScore"`
	ResumeScore        *int             `json:"resumeScore"`
	DemeanorScore      *int             `json:"demeanorScore"`
	InterviewStatus    string           `json:"interviewStatus"`
	QuestionCount      int              `json:"questionCount"`
	AnsweredCount      int              `json:"answeredCount"`
	InterviewDirection string           `json:"interviewDirection"`
	StartTime          string           `json:"startTime"`
	EndTime            string           `json:"endTime"`
	DurationSeconds    *int64           `json:"durationSeconds"`
	RadarChart         Radar            `json:"radarChart"`
	RadarDimensions    []RadarDimension `json:"radarDimensions"`
	PlaybackItems      []PlaybackItem   `json:"playbackItems"`
	ReviewFeedback     ReviewFeedback   `json:"reviewFeedback"`
	// InterviewSuggestions are the session's suggestions, in order, and
	// Suggestions the same as {"1": ..., "2": ...}.
	InterviewSuggestions []string          `json:"interviewSuggestions"`
	Suggestions          map[string]string `json:"suggestions"`
	Offline              bool              `json:"offline"`
	NotAssessedReason    string            `json:"notAssessedReason,omitempty"`
}
