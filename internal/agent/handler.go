package agent

import (
	"mime"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Handler serves /api/xunzhi/v1/agent-properties and /api/xunzhi/v1/agents.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// RegisterProperties mounts the agent configuration routes on g: reads
// need a login, writes an admin. auth is the authentication middleware,
// limit gives the middleware of a rate-limit bucket.
func (h *Handler) RegisterProperties(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth, limit("default"))
	g.GET("", h.page)
	g.GET("/", h.page)
	g.GET("/byName", h.byName)
	g.GET("/:id", h.get)
	admin := g.Group("", httpx.Admin())
	admin.POST("", h.create)
	admin.POST("/", h.create)
	admin.PUT("", h.update)
	admin.PUT("/", h.update)
	admin.DELETE("/:id", h.delete)
}

// RegisterSessions mounts the agent session routes on g; every route needs
// a login and sees only the caller's sessions and files. Streamed answers
// spend the chat bucket, everything else the default one.
func (h *Handler) RegisterSessions(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth)
	def := limit("default")
	g.POST("/sessions", def, h.createSession)
	g.POST("/sessions/:sessionId/chat", limit("chat"), h.chat)
	g.POST("/sessions/:sessionId/regenerate", limit("chat"), h.regenerate)
	g.GET("/conversations", def, h.conversations)
	g.GET("/conversations/:sessionId", def, h.conversation)
	g.GET("/conversations/:sessionId/messages", def, h.messages)
	g.PUT("/conversations/:sessionId/end", def, h.end)
	g.DELETE("/conversations/:sessionId", def, h.deleteSession)
	g.GET("/messages/history", def, chat.MessagePageHandler(h.svc.Chats(), chat.ScopeAgent))
	g.POST("/files/upload", def, httpx.UploadDeadline(h.svc.MaxFileBytes()), h.upload)
	g.GET("/files", def, h.files)
	g.GET("/files/:id", def, h.download)
	g.DELETE("/files/:id", def, h.deleteFile)
}

// filesBase is the path files are downloaded under, derived from the
// route so that the URL follows wherever the group is mounted.
func filesBase(c *gin.Context) string {
	p := c.FullPath()
	if i := strings.LastIndex(p, "/files"); i >= 0 {
		return p[:i+len("/files")]
	}
	return p
}

func (h *Handler) create(c *gin.Context) {
	var in Input
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := auth.Require(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	a, err := h.svc.Create(c.Request.Context(), u.UserID, in)
	httpx.Respond(c, ViewOf(a), err)
}

func (h *Handler) update(c *gin.Context) {
	var in Input
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	a, err := h.svc.Update(c.Request.Context(), in)
	httpx.Respond(c, ViewOf(a), err)
}

func (h *Handler) delete(c *gin.Context) {
	id, err := httpx.Param(c, "id")
	if err == nil {
		err = h.svc.Delete(c.Request.Context(), id)
	}
	httpx.Respond(c, nil, err)
}

func (h *Handler) get(c *gin.Context) {
	id, err := httpx.Param(c, "id")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	a, err := h.svc.Get(c.Request.Context(), id)
	httpx.Respond(c, ViewOf(a), err)
}

func (h *Handler) byName(c *gin.Context) {
	a, err := h.svc.ByName(c.Request.Context(), c.Query("name"))
	httpx.Respond(c, ViewOf(a), err)
}

func (h *Handler) page(c *gin.Context) {
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	tags, err := ParseTagCodes(c.Query("tagCodes"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Page(c.Request.Context(), p, Filter{Name: c.Query("agentName"), TagCodes: tags})
	httpx.Respond(c, page.Map(res, ViewOf), err)
}

// sessionParam returns the caller's id and the sessionId path parameter.
func sessionParam(c *gin.Context) (string, string, error) { return chat.CallerAndSession(c) }

// callerID returns the logged-in user's id (401 without one).
func callerID(c *gin.Context) (string, error) {
	u, err := auth.Require(c.Request.Context())
	return u.UserID, err
}

func (h *Handler) createSession(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in SessionInput
	if c.Request.ContentLength != 0 {
		if err := httpx.BindJSON(c, &in); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	conv, err := h.svc.CreateSession(c.Request.Context(), uid, in)
	httpx.Respond(c, SessionCreated{SessionID: conv.ID, ConversationTitle: conv.Title, AgentID: conv.AgentID, AgentName: conv.AgentName}, err)
}

// SessionCreated is the answer to starting an agent session.
type SessionCreated struct {
	SessionID         string `json:"sessionId"`
	ConversationTitle string `json:"conversationTitle"`
	AgentID           string `json:"agentId"`
	AgentName         string `json:"agentName"`
}

func (h *Handler) chat(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in chat.SendInput
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	turn, err := h.svc.Prepare(c.Request.Context(), uid, sid, in)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	chat.Stream(c, turn)
}

// regenerate writes the last answer again, streamed as chat is. The agent
// decides the model: a body, if any, is ignored.
func (h *Handler) regenerate(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	turn, err := h.svc.PrepareRegenerate(c.Request.Context(), uid, sid)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	chat.Stream(c, turn)
}

func (h *Handler) conversations(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Chats().List(c.Request.Context(), uid, chat.ConversationFilter{Scope: chat.ScopeAgent,
		Keyword: c.Query("keyword"), Status: c.Query("status")}, p)
	httpx.Respond(c, page.Map(res, chat.ViewOfConversation), err)
}

func (h *Handler) conversation(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	conv, err := h.svc.Chats().Get(c.Request.Context(), uid, sid, chat.ScopeAgent)
	httpx.Respond(c, chat.ViewOfConversation(conv), err)
}

func (h *Handler) messages(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	msgs, err := h.svc.Chats().History(c.Request.Context(), uid, sid, chat.ScopeAgent)
	httpx.Respond(c, chat.ViewsOfMessages(msgs), err)
}

func (h *Handler) end(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	conv, err := h.svc.Chats().End(c.Request.Context(), uid, sid, chat.ScopeAgent)
	httpx.Respond(c, chat.ViewOfConversation(conv), err)
}

func (h *Handler) deleteSession(c *gin.Context) {
	uid, sid, err := sessionParam(c)
	if err == nil {
		err = h.svc.Chats().Delete(c.Request.Context(), uid, sid, chat.ScopeAgent)
	}
	httpx.Respond(c, nil, err)
}

func (h *Handler) upload(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	up, err := httpx.FormFile(c, "file", h.svc.MaxFileBytes())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f, err := h.svc.Upload(c.Request.Context(), uid, UploadInput{SessionID: c.PostForm("sessionId"),
		BizType: c.PostForm("bizType"), FileName: up.Filename, Data: up.Data})
	httpx.Respond(c, ViewOfFile(f, filesBase(c)), err)
}

func (h *Handler) files(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	files, err := h.svc.Files(c.Request.Context(), uid, c.Query("sessionId"))
	base := filesBase(c)
	views := make([]FileView, len(files))
	for i, f := range files {
		views[i] = ViewOfFile(f, base)
	}
	httpx.Respond(c, views, err)
}

// download serves the bytes of the caller's file with http.ServeContent:
// Range and If-Modified-Since work as for a static file. The file is
// an attachment, never rendered by the browser as a page of this site.
func (h *Handler) download(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f, data, err := h.svc.OpenFile(c.Request.Context(), uid, c.Param("id"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer data.Close()
	c.Header("Content-Type", f.MIME)
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.FileName}))
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Cache-Control", "private, no-cache")
	http.ServeContent(c.Writer, c.Request, f.FileName, f.CreatedAt, data)
}

func (h *Handler) deleteFile(c *gin.Context) {
	uid, err := callerID(c)
	if err == nil {
		err = h.svc.DeleteFile(c.Request.Context(), uid, c.Param("id"))
	}
	httpx.Respond(c, nil, err)
}
