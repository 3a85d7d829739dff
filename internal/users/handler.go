package users

import (
	"errors"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// View is a user as the API shows it: never the password hash.
type View struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	RealName string `json:"realName"`
	Phone    string `json:"phone"`
	Mail     string `json:"mail"`
	IsAdmin  bool   `json:"isAdmin"`
	// Language is the chosen interface language ("zh-CN", "en"), "" if none.
	Language string `json:"language"`
	// MustChangePassword: the account was imported with a plain-text
	// password that the user must replace.
	MustChangePassword bool   `json:"mustChangePassword"`
	CreateTime         string `json:"createTime"`
	UpdateTime         string `json:"updateTime"`
}

// ViewOf converts u for the API.
func ViewOf(u User) View {
	return View{ID: u.ID, Username: u.Username, RealName: u.RealName, Phone: u.Phone, Mail: u.Mail,
		IsAdmin: u.IsAdmin, Language: u.Language, MustChangePassword: u.MustChangePassword,
		CreateTime: u.CreatedAt.UTC().Format(timeFormat), UpdateTime: u.UpdatedAt.UTC().Format(timeFormat)}
}

const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// Handler serves /api/xunzhi/v1/users and provides the auth middleware.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// BearerToken extracts the token from "Authorization: Bearer <token>" (a
// bare token is accepted too, as the original's clients send it).
func BearerToken(c *gin.Context) string {
	h := strings.TrimSpace(c.GetHeader("Authorization"))
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return h
}

// CallerOf is the auth.Caller of u.
func CallerOf(u User) auth.Caller {
	return auth.Caller{UserID: u.ID, Username: u.Username, Admin: u.IsAdmin}
}

// Optional puts the caller in the request context (see package auth) when
// a valid token is present and carries on without one otherwise.
func (h *Handler) Optional() gin.HandlerFunc {
	return func(c *gin.Context) {
		if tok := BearerToken(c); tok != "" {
			if u, err := h.svc.Authenticate(c.Request.Context(), tok); err == nil {
				httpx.SetCaller(c, CallerOf(u))
			} else if !apperr.Is(err, apperr.KindUnauthenticated) {
				httpx.Error(c, err)
				return
			}
		}
	}
}

// Required is the authentication middleware: it rejects requests without
// a valid token with 401 and puts the caller in the request context (see
// package auth), where every handler finds it. Like every middleware here
// it does not call c.Next (gin moves on when it returns), so it can be
// composed with others in one handler.
func (h *Handler) Required() gin.HandlerFunc {
	return func(c *gin.Context) {
		u, err := h.svc.Authenticate(c.Request.Context(), BearerToken(c))
		if err != nil {
			httpx.Error(c, err)
			return
		}
		httpx.SetCaller(c, CallerOf(u))
	}
}

// Register mounts the routes on g (the /users group). limit gives the
// middleware of a rate-limit bucket: here it runs before authentication,
// so per client IP (login and registration are where guessing happens).
func (h *Handler) Register(g *gin.RouterGroup, limit func(bucket string) gin.HandlerFunc) {
	g.Use(limit("default"))
	g.POST("/register", h.register)
	g.POST("/login", h.login)
	g.GET("/check-login", h.Optional(), h.checkLogin)
	g.GET("/has-username", h.hasUsername)
	g.POST("/logout", h.Required(), h.logout)
	g.GET("/me", h.Required(), h.me)
	g.PUT("", h.Required(), h.update)
	g.PUT("/", h.Required(), h.update)
	g.GET("/page", h.Required(), httpx.Admin(), h.page)
	g.POST("/admin", h.Required(), httpx.Admin(), h.grantAdmin)
	g.GET("/is-admin", h.Required(), h.isAdmin)
	// Registered last among the GETs: static paths (me, page...) win.
	g.GET("/:username", h.Required(), h.byUsername)
}

// isAdmin answers whether the caller is an admin (the original's route).
func (h *Handler) isAdmin(c *gin.Context) {
	caller, err := auth.Require(c.Request.Context())
	httpx.Respond(c, caller.Admin, err)
}

// byUsername shows one account, phone masked: the caller's own, or any for
// an admin; anyone else's is a 404.
func (h *Handler) byUsername(c *gin.Context) {
	caller, err := auth.Require(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := h.svc.ByUsername(c.Request.Context(), caller.UserID, caller.Admin, c.Param("username"))
	v := ViewOf(u)
	v.Phone = MaskPhone(v.Phone)
	httpx.Respond(c, v, err)
}

func (h *Handler) register(c *gin.Context) {
	var in RegisterInput
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := h.svc.Register(c.Request.Context(), c.ClientIP(), in)
	if err != nil {
		httpx.Error(c, throttled(err))
		return
	}
	httpx.Respond(c, ViewOf(u), nil)
}

func (h *Handler) login(c *gin.Context) {
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Login(c.Request.Context(), c.ClientIP(), in.Username, in.Password)
	if err != nil {
		httpx.Error(c, throttled(err))
		return
	}
	httpx.Respond(c, res, nil)
}

// throttled turns a *ThrottledError into a 429 whose Retry-After says how
// long to wait; other errors pass through.
func throttled(err error) error {
	var te *ThrottledError
	if !errors.As(err, &te) {
		return err
	}
	secs := retryAfterSeconds(te.RetryAfter)
	return apperr.New(apperr.KindRateLimited, "too many %s: retry in %d s", apperr.Word(te.what), secs).WithData(httpx.RetryAfter{Seconds: secs})
}

func (h *Handler) checkLogin(c *gin.Context) {
	type resp struct {
		IsLogin  bool   `json:"isLogin"`
		Username string `json:"username,omitempty"`
		IsAdmin  bool   `json:"isAdmin,omitempty"`
	}
	if u, ok := auth.FromContext(c.Request.Context()); ok {
		httpx.Respond(c, resp{IsLogin: true, Username: u.Username, IsAdmin: u.Admin}, nil)
		return
	}
	httpx.Respond(c, resp{}, nil)
}

func (h *Handler) hasUsername(c *gin.Context) {
	free, err := h.svc.UsernameFree(c.Request.Context(), c.Query("username"))
	httpx.Respond(c, free, err)
}

func (h *Handler) logout(c *gin.Context) {
	httpx.Respond(c, nil, h.svc.Logout(c.Request.Context(), BearerToken(c)))
}

func (h *Handler) me(c *gin.Context) {
	caller, err := auth.Require(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := h.svc.User(c.Request.Context(), caller.UserID)
	httpx.Respond(c, ViewOf(u), err)
}

func (h *Handler) update(c *gin.Context) {
	var in UpdateInput
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	caller, err := auth.Require(c.Request.Context())
	if err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := h.svc.Update(c.Request.Context(), caller.UserID, BearerToken(c), in)
	httpx.Respond(c, ViewOf(u), err)
}

func (h *Handler) page(c *gin.Context) {
	p, err := httpx.PageRequest(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.Page(c.Request.Context(), p, c.Query("keyword"))
	httpx.Respond(c, page.Map(res, ViewOf), err)
}

func (h *Handler) grantAdmin(c *gin.Context) {
	var in struct {
		Username string `json:"username"`
	}
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	u, err := h.svc.GrantAdmin(c.Request.Context(), in.Username)
	httpx.Respond(c, ViewOf(u), err)
}
