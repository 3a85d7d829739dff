package airouting

import (
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
)

// Handler serves /api/xunzhi/v1/ai-routing and /api/xunzhi/v1/ai-usage.
type Handler struct {
	svc   *Service
	usage *Recorder
}

// NewHandler returns the handler.
func NewHandler(svc *Service, usage *Recorder) *Handler { return &Handler{svc: svc, usage: usage} }

// Register mounts the routes on g (the API root); every route is for
// admins. auth is the authentication middleware, limit gives the
// middleware of a rate-limit bucket.
func (h *Handler) Register(g *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	admin := g.Group("", auth, httpx.Admin())
	admin.GET("/ai-routing", limit("read"), h.get)
	admin.PUT("/ai-routing", limit("default"), h.put)
	admin.GET("/ai-usage", limit("read"), h.report)
}

// RoutesView is the body of GET and PUT /ai-routing: every routable stage,
// with an empty list for a stage that uses the default provider.
type RoutesView struct {
	Routes Routes   `json:"routes"`
	Stages []string `json:"stages,omitempty"`
}

func viewOf(r Routes) RoutesView {
	out := RoutesView{Routes: Routes{}, Stages: Stages}
	for _, st := range Stages {
		ids := r[st].AIIDs
		if ids == nil {
			ids = []string{}
		}
		out.Routes[st] = Route{AIIDs: ids}
	}
	return out
}

func (h *Handler) get(c *gin.Context) {
	r, err := h.svc.Routes(c.Request.Context())
	httpx.Respond(c, viewOf(r), err)
}

func (h *Handler) put(c *gin.Context) {
	var in RoutesView
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	r, err := h.svc.Put(c.Request.Context(), in.Routes)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Respond(c, viewOf(r), nil)
}

func (h *Handler) report(c *gin.Context) {
	from, err := parseTime(c.Query("from"), "from", false)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	to, err := parseTime(c.Query("to"), "to", true)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	rep, err := h.usage.Report(c.Request.Context(), UsageQuery{From: from, To: to, GroupBy: strings.TrimSpace(c.Query("groupBy"))})
	httpx.Respond(c, rep, err)
}

// parseTime reads an RFC 3339 time or a date (YYYY-MM-DD, UTC). A date
// given as the end of a period includes that day.
func parseTime(v, name string, end bool) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, apperr.Invalid("%s must be a date (2026-01-31) or an RFC 3339 time (2026-01-31T08:00:00Z), not %q", name, v)
	}
	if end {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}
