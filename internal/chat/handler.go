package chat

import (
	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/sse"
)

// Handler serves /api/xunzhi/v1/ai.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register mounts the routes on g; every route needs a login. auth is the
// authentication middleware, limit gives the middleware of a rate-limit
// bucket: streamed answers spend the chat bucket, the rest the default one.
func (h *Handler) Register(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth)
	def := limit("default")
	g.POST("/conversations", def, h.create)
	g.GET("/conversations", def, h.list)
	g.GET("/conversations/:sessionId", def, h.get)
	g.PUT("/conversations/:sessionId", def, h.rename)
	g.PUT("/conversations/:sessionId/end", def, h.end)
	g.DELETE("/conversations/:sessionId", def, h.delete)
	g.POST("/sessions/:sessionId/chat", limit("chat"), h.chat)
	g.POST("/sessions/:sessionId/regenerate", limit("chat"), h.regenerate)
	g.GET("/config", def, h.config)
	g.GET("/history/page", def, h.historyPage)
	g.GET("/history/:sessionId", def, h.history)
}

// callerID returns the logged-in user's id; the auth middleware
// guarantees one, so a missing caller is a 401 rather than a panic.
func callerID(c *gin.Context) (string, error) {
	u, err := auth.Require(c.Request.Context())
	return u.UserID, err
}

// CallerAndSession returns the caller's id and the sessionId path parameter.
func CallerAndSession(c *gin.Context) (string, string, error) {
	uid, err := callerID(c)
	if err != nil {
		return "", "", err
	}
	sid, err := httpx.Param(c, "sessionId")
	return uid, sid, err
}

func (h *Handler) create(c *gin.Context) {
	uid, err := callerID(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in CreateInput
	if c.Request.ContentLength != 0 {
		if err := httpx.BindJSON(c, &in); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	conv, err := h.svc.Create(c.Request.Context(), uid, in)
	httpx.Respond(c, Created{SessionID: conv.ID, ConversationTitle: conv.Title}, err)
}

func (h *Handler) list(c *gin.Context) {
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
	res, err := h.svc.List(c.Request.Context(), uid, ConversationFilter{Scope: ScopeChat, AIID: c.Query("aiId"),
		Keyword: c.Query("keyword"), Status: c.Query("status")}, p)
	httpx.Respond(c, page.Map(res, ViewOfConversation), err)
}

func (h *Handler) get(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	conv, err := h.svc.Get(c.Request.Context(), uid, sid, ScopeChat)
	httpx.Respond(c, ViewOfConversation(conv), err)
}

func (h *Handler) rename(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in struct {
		Title string `json:"title"`
	}
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	conv, err := h.svc.Rename(c.Request.Context(), uid, sid, ScopeChat, in.Title)
	httpx.Respond(c, ViewOfConversation(conv), err)
}

func (h *Handler) end(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	conv, err := h.svc.End(c.Request.Context(), uid, sid, ScopeChat)
	httpx.Respond(c, ViewOfConversation(conv), err)
}

func (h *Handler) delete(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err == nil {
		err = h.svc.Delete(c.Request.Context(), uid, sid, ScopeChat)
	}
	httpx.Respond(c, nil, err)
}

func (h *Handler) chat(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in SendInput
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	turn, err := h.svc.Prepare(c.Request.Context(), uid, sid, ScopeChat, in, nil)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	Stream(c, turn)
}

// regenerate writes the last answer again, streamed as chat is.
func (h *Handler) regenerate(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var in RegenerateInput
	if c.Request.ContentLength != 0 {
		if err := httpx.BindJSON(c, &in); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	turn, err := h.svc.PrepareRegenerate(c.Request.Context(), uid, sid, ScopeChat, in, nil)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	Stream(c, turn)
}

// config answers the settings the chat page reads (the stall notice).
func (h *Handler) config(c *gin.Context) {
	httpx.Respond(c, h.svc.ClientConfig(), nil)
}

func (h *Handler) history(c *gin.Context) {
	uid, sid, err := CallerAndSession(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	msgs, err := h.svc.History(c.Request.Context(), uid, sid, ScopeChat)
	httpx.Respond(c, ViewsOfMessages(msgs), err)
}

func (h *Handler) historyPage(c *gin.Context) {
	MessagePageHandler(h.svc, ScopeChat)(c)
}

// MessagePageHandler serves a page of the caller's messages in scope,
// newest first, optionally of one conversation (query sessionId).
func MessagePageHandler(svc *Service, scope Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
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
		sid := c.Query("sessionId")
		if len(sid) > 64 {
			httpx.Error(c, apperr.Invalid("sessionId must be at most 64 characters"))
			return
		}
		res, err := svc.MessagePage(c.Request.Context(), uid, MessageFilter{Scope: scope, ConversationID: sid}, p)
		httpx.Respond(c, page.Map(res, ViewOfMessage), err)
	}
}

// chunkEvent is the data of one streamed chunk.
type chunkEvent struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// Chunk types of the SSE stream.
const (
	ChunkContent   = "content"
	ChunkReasoning = "reasoning_content"
)

// Stream runs turn and writes its answer to the client as server-sent
// events: one unnamed event per chunk ({"type":"content"|"reasoning_content",
// "content":...}), then `event: end` with the Result, or `event: error`
// with the error envelope. The request context is the turn's context, so a
// client that disconnects cancels the model call.
func Stream(c *gin.Context, turn *Turn) {
	events, err := sse.Start(c.Writer)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	send := func(event string, v any) error {
		if err := events.Send(event, v); err != nil {
			return ErrClientGone
		}
		return nil
	}
	res, err := turn.Run(c.Request.Context(), func(ch llm.Chunk) error {
		if ch.Reasoning != "" {
			if err := send("", chunkEvent{Type: ChunkReasoning, Content: ch.Reasoning}); err != nil {
				return err
			}
		}
		if ch.Content != "" {
			return send("", chunkEvent{Type: ChunkContent, Content: ch.Content})
		}
		return nil
	})
	if err == nil {
		_ = send("end", res)
		return
	}
	if c.Request.Context().Err() != nil {
		// Nobody is listening; the partial answer is saved.
		httpx.Logger(c).Info("chat client disconnected", "sessionId", turn.conv.ID, "messageSeq", res.MessageSeq)
		return
	}
	status, e := httpx.StatusOf(err)
	if status >= 500 && e.Kind == apperr.KindInternal {
		httpx.Logger(c).Error("chat stream failed", "err", err, "sessionId", turn.conv.ID)
	} else {
		httpx.Logger(c).Warn("chat stream failed", "err", err, "sessionId", turn.conv.ID)
	}
	_ = send("error", httpx.Envelope{Code: e.Code, Message: httpx.Message(c, e), Data: res, RequestID: httpx.RequestID(c)})
}
