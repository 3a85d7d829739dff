package aiconfig

import (
	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Handler serves /api/xunzhi/v1/ai-properties.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register mounts the routes on g; reads need a login, writes an admin.
// auth is the authentication middleware, limit gives the middleware of a
// rate-limit bucket.
func (h *Handler) Register(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	g.Use(auth, limit("default"))
	g.GET("", h.page)
	g.GET("/", h.page)
	g.GET("/enabled", h.enabled)
	g.GET("/options", h.options)
	g.GET("/:id", h.get)
	admin := g.Group("", httpx.Admin())
	admin.POST("", h.create)
	admin.POST("/", h.create)
	admin.PUT("", h.update)
	admin.PUT("/", h.update)
	admin.DELETE("/:id", h.delete)
	admin.PUT("/:id/status", h.status)
	admin.POST("/test", h.testInput)
	admin.POST("/:id/test", h.test)
}

// SavedView is a saved configuration as the API shows it, with the
// outcome of its connection check: a provider that does not answer is
// still saved, and Warning says so.
type SavedView struct {
	View
	Check   *CheckResult `json:"check,omitempty"`
	Warning string       `json:"warning,omitempty"`
}

// saved answers a create, update or status change: the configuration,
// checked when it is enabled.
func (h *Handler) saved(c *gin.Context, p Property, err error) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res := h.svc.CheckSaved(c.Request.Context(), p)
	if res.Warning != "" {
		httpx.Logger(c).Warn("ai property saved but unreachable", "id", p.ID, "reason", res.Check.Reason)
	}
	httpx.Respond(c, SavedView{View: ViewOf(p), Check: res.Check, Warning: res.Warning}, nil)
}

// test sends a tiny completion to a stored configuration.
func (h *Handler) test(c *gin.Context) {
	id, err := httpx.Param(c, "id")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Test(c.Request.Context(), id)
	httpx.Respond(c, res, err)
}

// testInput tests a configuration as the form holds it, before saving.
func (h *Handler) testInput(c *gin.Context) {
	var in Input
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.TestInput(c.Request.Context(), in)
	httpx.Respond(c, res, err)
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
	p, err := h.svc.Create(c.Request.Context(), u.UserID, in)
	h.saved(c, p, err)
}

func (h *Handler) update(c *gin.Context) {
	var in Input
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	p, err := h.svc.Update(c.Request.Context(), in)
	h.saved(c, p, err)
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
	p, err := h.svc.Get(c.Request.Context(), id)
	httpx.Respond(c, ViewOf(p), err)
}

func (h *Handler) page(c *gin.Context) {
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	enabled, err := httpx.QueryBool(c, "isEnabled")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Page(c.Request.Context(), p, Filter{Name: c.Query("aiName"), Type: c.Query("aiType"), Enabled: enabled})
	httpx.Respond(c, page.Map(res, ViewOf), err)
}

func (h *Handler) enabled(c *gin.Context) {
	ps, err := h.svc.Enabled(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	out := make([]View, len(ps))
	for i, p := range ps {
		out[i] = ViewOf(p)
	}
	httpx.Respond(c, out, nil)
}

func (h *Handler) options(c *gin.Context) {
	opts, err := h.svc.Options(c.Request.Context())
	httpx.Respond(c, opts, err)
}

func (h *Handler) status(c *gin.Context) {
	id, err := httpx.Param(c, "id")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	enabled, err := httpx.QueryBool(c, "isEnabled")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if enabled == nil {
		httpx.Error(c, apperr.Invalid("query parameter \"isEnabled\" (true or false) is required"))
		return
	}
	p, err := h.svc.SetEnabled(c.Request.Context(), id, *enabled)
	h.saved(c, p, err)
}
