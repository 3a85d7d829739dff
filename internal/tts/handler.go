package tts

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/sse"
)

// Handler serves the TTS routes.
type Handler struct {
	svc *Service
	// stopping is done when the server begins to shut down; event streams
	// end then instead of holding the shutdown up.
	stopping context.Context
}

// NewHandler returns the handler of svc. stopping may be nil.
func NewHandler(svc *Service, stopping context.Context) *Handler {
	if stopping == nil {
		stopping = context.Background()
	}
	return &Handler{svc: svc, stopping: stopping}
}

// Register mounts the routes on g (the /xunfei/tts group); auth guards all.
// limit gives the middleware of a rate-limit bucket: starting a synthesis
// spends the tts bucket, everything else the default one.
func (h *Handler) Register(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth)
	def, synth := limit("default"), limit("tts")
	g.POST("/tasks", synth, h.create)
	g.GET("/tasks", def, h.list)
	g.GET("/tasks/:taskId", def, h.get)
	g.GET("/tasks/:taskId/audio", def, h.audio)
	g.GET("/tasks/:taskId/events", def, h.events)
	g.DELETE("/tasks/:taskId", def, h.delete)
	g.POST("/synthesize", synth, h.synthesize)
}

// caller returns the authenticated user's id, or answers 401.
func caller(c *gin.Context) (string, bool) {
	u, err := auth.Require(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return "", false
	}
	return u.UserID, true
}

func (h *Handler) view(t *Task) View { return ViewOf(t, h.svc.cfg.BasePath) }

// Created is the data of POST /tasks.
type Created struct {
	TaskID     string `json:"taskId"`
	TaskStatus Status `json:"taskStatus"`
	Progress   int    `json:"progress"`
}

func (h *Handler) create(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	var req CreateRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		httpx.Error(c, err)
		return
	}
	t, err := h.svc.Create(c.Request.Context(), uid, req)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Respond(c, Created{TaskID: t.ID, TaskStatus: t.Status, Progress: t.Progress()}, nil)
}

func (h *Handler) synthesize(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	var req CreateRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		httpx.Error(c, err)
		return
	}
	t, err := h.svc.Synthesize(c.Request.Context(), uid, req)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if !t.Status.Terminal() {
		// Still running: poll GET /tasks/{taskId}.
		httpx.Respond(c, httpx.Accepted{Data: h.view(t)}, nil)
		return
	}
	httpx.Respond(c, h.view(t), nil)
}

func (h *Handler) list(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	pr, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.List(c.Request.Context(), uid, pr)
	httpx.Respond(c, page.Map(res, h.view), err)
}

func (h *Handler) get(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	id, err := httpx.Param(c, "taskId")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	t, err := h.svc.Get(c.Request.Context(), id, uid)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Respond(c, h.view(t), nil)
}

// Deleted is the data of DELETE /tasks/{taskId} for a finished task.
type Deleted struct {
	TaskID  string `json:"taskId"`
	Deleted bool   `json:"deleted"`
}

func (h *Handler) delete(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	id, err := httpx.Param(c, "taskId")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	t, err := h.svc.Delete(c.Request.Context(), id, uid)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if t != nil { // cancelled
		httpx.Respond(c, h.view(t), nil)
		return
	}
	httpx.Respond(c, Deleted{TaskID: id, Deleted: true}, nil)
}

// audio streams the finished audio; http.ServeContent answers Range,
// If-Range and conditional requests.
func (h *Handler) audio(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	id, err := httpx.Param(c, "taskId")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f, err := h.svc.OpenAudio(c.Request.Context(), id, uid)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer f.Close()
	c.Header("Content-Type", f.ContentType)
	c.Header("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, f.Name))
	http.ServeContent(c.Writer, c.Request, f.Name, f.ModTime, f)
}

// events streams the task's progress as server-sent events: `progress`
// with the task view whenever it changes, then `done` or `failed` with the
// final view. It follows tasks run by any instance (see Service.Watch) and
// ends when the client goes or the server shuts down.
func (h *Handler) events(c *gin.Context) {
	uid, ok := caller(c)
	if !ok {
		return
	}
	id, err := httpx.Param(c, "taskId")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	// 404 before the stream starts, as a normal envelope.
	if _, err := h.svc.Get(c.Request.Context(), id, uid); err != nil {
		httpx.Error(c, err)
		return
	}
	ctx, cancel := context.WithCancel(c.Request.Context())
	defer cancel()
	stop := context.AfterFunc(h.stopping, cancel)
	defer stop()

	events, err := sse.Start(c.Writer)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	err = h.svc.Watch(ctx, id, uid, func(t *Task) error {
		if err := events.Send("progress", h.view(t)); err != nil {
			return err
		}
		switch t.Status {
		case StatusDone:
			return events.Send("done", h.view(t))
		case StatusFailed:
			return events.Send("failed", h.view(t))
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		_, e := httpx.StatusOf(err)
		_ = events.Send("error", httpx.Envelope{Code: e.Code, Message: httpx.Message(c, e), RequestID: httpx.RequestID(c)})
	}
}
