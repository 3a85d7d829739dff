package interview

import (
	"cmp"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Handler serves /api/xunzhi/v1/interview.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register mounts the routes on g; every route needs a login and the
// session must be the caller's (another user's is a 404). auth is the
// authentication middleware, limit gives the middleware of a rate-limit
// bucket (interview.md "HTTP flow limits"): answers, heavy uploads (the
// resume, the photo), reads, and the default for the rest. Uploads have
// the time to arrive that their byte limit needs (httpx.UploadDeadline).
func (h *Handler) Register(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth)
	def, read, answer, heavy := limit("default"), limit("read"), limit("answer"), limit("heavy")
	g.POST("/sessions", def, h.create)
	g.GET("/conversations", read, h.page)
	g.GET("/capabilities", read, h.capabilities)
	sid := g.Group("/sessions/:sid")
	sid.POST("/interview-questions", heavy, httpx.UploadDeadline(MaxResumeBytes), h.upload)
	sid.GET("/current-question", read, h.current)
	sid.GET("/next-question", read, h.current)
	sid.POST("/interview/answer-json", answer, h.answerJSON)
	sid.POST("/interview/answer", answer, h.answerForm)
	sid.GET("/restore", read, h.restore)
	sid.GET("/progress/:requestId", read, h.progress)
	sid.GET("/interview/questions", read, h.questions)
	sid.GET("/interview/score", read, h.score)
	sid.GET("/interview/suggestions", read, h.suggestions)
	sid.GET("/resume/score", read, h.resumeScore)
	sid.GET("/resume/preview", read, h.resumePreview)
	sid.POST("/demeanor-evaluation", heavy, httpx.UploadDeadline(MaxPhotoBytes), h.demeanor)
	sid.GET("/radar-chart", read, h.radar)
	sid.GET("/radar-chart.svg", read, h.radarSVG)
	sid.PUT("/finish", def, h.finish)
	sid.GET("/trace", read, h.trace)
	g.GET("/interview/records", read, h.records)
	g.GET("/interview/record/:sid", read, h.record)
	// The original's other names for finish, kept for its clients.
	g.PUT("/conversations/:sid/end", def, h.finish)
	g.POST("/record/save-from-redis/:sid", def, h.finish)
}

// SessionView is a session as the API shows it.
type SessionView struct {
	SessionID             string `json:"sessionId"`
	Status                string `json:"status"`
	Flow                  string `json:"flow"`
	CurrentQuestionNumber string `json:"currentQuestionNumber"`
	InterviewType         string `json:"interviewType"`
	Target                string `json:"target"`
	ResumeScore           *int   `json:"resumeScore"`
	// Read says what was read from the resume (null before one is stored).
	Read    *ReadSummary `json:"read"`
	Offline bool         `json:"offline"`
	// Language is the session's language, "" before a resume is stored.
	Language string `json:"language"`
	// ConversationTitle names the session in lists (the original's field):
	// the target role, else the interview type.
	ConversationTitle string `json:"conversationTitle"`
	// ResumeFileURL serves the stored resume to its owner; "" before one
	// is stored. Set in lists.
	ResumeFileURL string `json:"resumeFileUrl,omitempty"`
	CreateTime    string `json:"createTime"`
	UpdateTime    string `json:"updateTime"`
	StartTime     string `json:"startTime,omitempty"`
	EndTime       string `json:"endTime,omitempty"`
}

func rfc3339(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// ViewOf converts s for the API.
func ViewOf(s Session) SessionView {
	return SessionView{SessionID: s.ID, Status: s.Status, Flow: s.Flow, CurrentQuestionNumber: s.CurrentNumber,
		InterviewType: s.InterviewType, Target: s.Target, ResumeScore: s.ResumeScore, Read: s.Read, Offline: s.Offline,
		Language: s.Language, ConversationTitle: cmp.Or(s.Target, s.InterviewType), CreateTime: rfc3339(&s.CreatedAt), UpdateTime: rfc3339(&s.UpdatedAt), StartTime: rfc3339(s.StartedAt), EndTime: rfc3339(s.FinishedAt)}
}

// An answer still being evaluated is answered 202 by httpx.Respond.
var _ httpx.Pending = (*ErrStillEvaluating)(nil)

// userID returns the caller's id; the auth middleware guarantees one (an
// empty id finds no session: a 404).
func userID(c *gin.Context) string {
	u, _ := auth.FromContext(c.Request.Context())
	return u.UserID
}

func (h *Handler) create(c *gin.Context) {
	s, err := h.svc.Create(c.Request.Context(), userID(c))
	httpx.Respond(c, gin.H{"sessionId": s.ID, "status": s.Status, "offline": s.Offline}, err)
}

// capabilities says what the interview page may offer (the camera only
// when demeanor can be assessed); ?language=zh-CN words the reasons in
// Chinese.
func (h *Handler) capabilities(c *gin.Context) {
	lang, err := ParseLanguage(c.Query("language"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Respond(c, h.svc.Capabilities(c.Request.Context(), lang), nil)
}

func (h *Handler) page(c *gin.Context) {
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Page(c.Request.Context(), userID(c), p, SessionFilter{Status: c.Query("status"), Keyword: c.Query("keyword")})
	base := groupBase(c)
	httpx.Respond(c, page.Map(res, func(s Session) SessionView {
		v := ViewOf(s)
		if s.ResumeFileID != "" {
			v.ResumeFileURL = base + "/sessions/" + s.ID + "/resume/preview"
		}
		return v
	}), err)
}

func (h *Handler) upload(c *gin.Context) {
	up, err := httpx.FormFile(c, "resumePdf", MaxResumeBytes)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.UploadTracked(c.Request.Context(), userID(c), c.Param("sid"), uploadRequestID(c), up.Filename, up.Data,
		c.PostForm("confirmedTarget"), c.PostForm("language"))
	httpx.Respond(c, res, err)
}

// uploadRequestID is the id an upload's progress is reported under: the
// requestId form field, else the client's own X-Request-Id header; "" (not
// tracked) when the client sent neither.
func uploadRequestID(c *gin.Context) string {
	if id := strings.TrimSpace(c.PostForm("requestId")); id != "" {
		return id
	}
	if h := c.GetHeader(httpx.HeaderRequestID); h != "" && h == httpx.RequestID(c) {
		return h
	}
	return ""
}

func (h *Handler) progress(c *gin.Context) {
	p, err := h.svc.Progress(c.Request.Context(), userID(c), c.Param("sid"), c.Param("requestId"))
	httpx.Respond(c, p, err)
}

func (h *Handler) current(c *gin.Context) {
	b, err := h.svc.CurrentQuestionJSON(c.Request.Context(), userID(c), c.Param("sid"))
	if err != nil {
		httpx.Respond(c, nil, err)
		return
	}
	httpx.OKJSON(c, b)
}

func (h *Handler) answerJSON(c *gin.Context) {
	var in AnswerInput
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	h.answer(c, in)
}

func (h *Handler) answerForm(c *gin.Context) {
	in := AnswerInput{QuestionNumber: c.PostForm("questionNumber"), AnswerContent: c.PostForm("answerContent"),
		RequestID: c.PostForm("requestId")}
	h.answer(c, in)
}

// answer answers in: an identical answer already replayed on this
// instance from memory, as stored (Service.ReplayJSON), else through
// Service.Answer.
func (h *Handler) answer(c *gin.Context, in AnswerInput) {
	if b, ok := h.svc.ReplayJSON(userID(c), c.Param("sid"), in); ok {
		httpx.OKJSON(c, b)
		return
	}
	r, err := h.svc.Answer(c.Request.Context(), userID(c), c.Param("sid"), in)
	httpx.Respond(c, r, err)
}

func (h *Handler) restore(c *gin.Context) {
	r, err := h.svc.Restore(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, r, err)
}

func (h *Handler) questions(c *gin.Context) {
	r, err := h.svc.MainQuestions(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, r, err)
}

func (h *Handler) score(c *gin.Context) {
	r, err := h.svc.Score(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, r, err)
}

func (h *Handler) suggestions(c *gin.Context) {
	r, err := h.svc.Suggestions(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, r, err)
}

func (h *Handler) resumeScore(c *gin.Context) {
	s, err := h.svc.Session(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, s.ResumeScore, err)
}

func (h *Handler) resumePreview(c *gin.Context) {
	f, obj, redirect, err := h.svc.ResumeFile(c.Request.Context(), userID(c), c.Param("sid"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if redirect != "" {
		c.Header("Cache-Control", "private, no-store")
		c.Redirect(http.StatusFound, redirect)
		return
	}
	defer obj.Close()
	c.Header("Content-Type", f.MIME)
	c.Header("Content-Disposition", "inline; filename*=UTF-8''"+url.PathEscape(f.Filename))
	c.Header("X-Content-Type-Options", "nosniff")
	// ServeContent answers Range and HEAD, reading only the bytes sent.
	http.ServeContent(c.Writer, c.Request, f.Filename, f.CreatedAt, obj)
}

func (h *Handler) demeanor(c *gin.Context) {
	up, err := httpx.FormFile(c, "userPhoto", MaxPhotoBytes)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	r, err := h.svc.Demeanor(c.Request.Context(), userID(c), c.Param("sid"), up.Data)
	httpx.Respond(c, r, err)
}

func (h *Handler) radar(c *gin.Context) {
	r, err := h.svc.RadarChart(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, r, err)
}

func (h *Handler) radarSVG(c *gin.Context) {
	r, err := h.svc.RadarChart(c.Request.Context(), userID(c), c.Param("sid"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	sess, err := h.svc.Session(c.Request.Context(), userID(c), c.Param("sid"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	// The picture is part of the page that shows it: its labels follow the
	// caller's language when it names one (the web page sends its own),
	// like the page's list of dimensions, else the interview's.
	lang := sessionLanguage(sess)
	if c.GetHeader("Accept-Language") != "" {
		lang = httpx.Lang(c)
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "image/svg+xml", RadarSVGIn(r, lang))
}

func (h *Handler) finish(c *gin.Context) {
	r, err := h.svc.Finish(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, withResumeURL(c, r), err)
}

func (h *Handler) record(c *gin.Context) {
	r, err := h.svc.Record(c.Request.Context(), userID(c), c.Param("sid"))
	httpx.Respond(c, withResumeURL(c, r), err)
}

// groupBase is the path of this handler's group (".../interview"), taken
// from the matched route so that URLs follow wherever it is mounted.
func groupBase(c *gin.Context) string {
	p := c.FullPath()
	if i := strings.Index(p, "/interview"); i >= 0 {
		return p[:i+len("/interview")]
	}
	return p
}

// withResumeURL sets the report's resumeFileUrl (a report exists only for
// a session with a resume).
func withResumeURL(c *gin.Context, r Report) Report {
	if r.SessionID != "" {
		r.ResumeFileURL = groupBase(c) + "/sessions/" + r.SessionID + "/resume/preview"
	}
	return r
}

func (h *Handler) records(c *gin.Context) {
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var f RecordFilter
	for name, dst := range map[string]**int{"minScore": &f.MinScore, "maxScore": &f.MaxScore} {
		if c.Query(name) == "" {
			continue
		}
		v, err := httpx.QueryInt(c, name, 0)
		if err != nil {
			httpx.Error(c, err)
			return
		}
		*dst = &v
	}
	f.Direction, f.SessionID = c.Query("interviewDirection"), c.Query("sessionId")
	res, err := h.svc.Records(c.Request.Context(), userID(c), p, f)
	httpx.Respond(c, page.Map(res, func(r Report) Report { return withResumeURL(c, r) }), err)
}

// trace sends the session's AI trace as a JSON Lines download: to the
// session's owner, or to an admin.
func (h *Handler) trace(c *gin.Context) {
	caller, _ := auth.FromContext(c.Request.Context())
	entries, err := h.svc.Trace(c.Request.Context(), caller.UserID, caller.Admin, c.Param("sid"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	body, err := WriteJSONL(entries)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.Header("Content-Disposition", `attachment; filename="interview-`+url.PathEscape(c.Param("sid"))+`-trace.jsonl"`)
	c.Data(http.StatusOK, "application/x-ndjson; charset=utf-8", body)
}
