// Package app wires the service together: storage, Redis, model providers,
// the domains and the HTTP router, and runs the server with graceful
// shutdown. It reads no configuration itself: cmd/server hands it a Config.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/offline"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/ratelimit"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
	"github.com/xunzhi-ai/aimeeting/internal/users"
)

// APIPrefix is the root of every REST path (kept from the original).
const APIPrefix = "/api/xunzhi/v1"

// App is the assembled service.
type App struct {
	cfg    Config
	log    *slog.Logger
	db     *gorm.DB
	rdb    redis.UniversalClient // nil without Redis
	reg    *prometheus.Registry
	router *gin.Engine
	// stopping is cancelled when shutdown begins, so long-lived streams
	// (SSE, WebSockets) can end instead of holding the shutdown up.
	stopping context.Context
	stop     context.CancelFunc
	// offline is the built-in model; interview stages teach it their parts.
	offline   *llm.Offline
	aiConfigs *aiconfig.Service
	invoker   *interview.Invoker
	users     *users.Service
	// flights is the single-flight group (also used to share TTS audio).
	flights *singleflight.Group
	closers []func() error
}

// New connects to the database (running migrations) and Redis when
// configured, and builds the router.
func New(ctx context.Context, cfg Config, log *slog.Logger) (a *App, err error) {
	a = &App{cfg: cfg, log: log, reg: prometheus.NewRegistry()}
	a.stopping, a.stop = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	a.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	a.db, err = db.Open(ctx, db.Config{Driver: cfg.Database.Driver, DSN: cfg.Database.DSN,
		MaxOpenConns: cfg.Database.MaxOpenConns, MaxIdleConns: cfg.Database.MaxIdleConns})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() error { return db.Close(a.db) })

	if cfg.Redis.Enabled() {
		a.rdb = redis.NewUniversalClient(&redis.UniversalOptions{
			Addrs: cfg.Redis.AddrList(), IsClusterMode: cfg.Redis.Cluster,
			Username: cfg.Redis.Username, Password: cfg.Redis.Password, DB: cfg.Redis.DB,
			ContextTimeoutEnabled: true, // per-call deadlines (single-flight redis-timeout) apply without extra goroutines
		})
		a.closers = append(a.closers, a.rdb.Close)
		pingCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		perr := a.rdb.Ping(pingCtx).Err()
		cancel()
		if perr != nil {
			// Redis is an optimisation (cache, locks, cross-instance dedup):
			// start anyway, /readyz reports it and hybrid mode falls back.
			log.Warn("redis unreachable at start-up; continuing", "addrs", cfg.Redis.Addrs, "err", perr)
		}
	}

	var tokenCache users.TokenCache
	if a.rdb != nil {
		tokenCache = users.NewRedisTokenCache(a.rdb, cfg.Redis.KeyPrefix)
	}
	userSvc, err := users.NewService(users.NewGormStore(a.db), tokenCache, users.Config{
		TokenTTL: cfg.Auth.TokenTTL, TokenIdleTTL: cfg.Auth.TokenIdleTTL, BcryptCost: cfg.Auth.BcryptCost,
	})
	if err != nil {
		return nil, err
	}
	a.users = userSvc
	userHandler := users.NewHandler(userSvc)

	def, err := defaultProvider(cfg.AI)
	if err != nil {
		return nil, err
	}
	a.offline = llm.NewOffline()
	if def == nil {
		def = a.offline
	}
	a.aiConfigs = aiconfig.NewService(aiconfig.NewGormStore(a.db), def)

	a.invoker, a.flights, err = newInvoker(cfg, a.rdb, a.reg)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, a.flights.Close)

	offline.Register(a.offline)
	ocr, err := doctext.NewOCR(doctext.OCRConfig{Mode: cfg.Doctext.OCR.Mode(), MaxPages: cfg.Doctext.OCR.MaxPages,
		Timeout: cfg.Doctext.OCR.Timeout, Concurrency: cfg.Doctext.OCR.Concurrency, Languages: cfg.Doctext.OCR.Languages})
	if err != nil {
		return nil, err
	}
	if ocr.CanReadPDF() {
		log.Info("OCR on for photographed and scanned resumes", "languages", ocr.Languages())
	} else {
		log.Info("OCR off: photographed and scanned resumes get a 422 (install tesseract-ocr tesseract-ocr-chi-sim poppler-utils)")
	}
	interviews, err := interview.NewService(interview.NewGormStore(a.db), a.invoker, a.aiConfigs.Default().Provider,
		interview.Config{UploadDir: filepath.Join(cfg.DataDir, "uploads", "resumes"), OCR: ocr, MinChars: cfg.Doctext.MinChars})
	if err != nil {
		return nil, err
	}

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.Use(httpx.Middleware(log, httpx.NewMetrics(a.reg), cfg.Server.MaxBody)...)
	r.Use(httpx.CORS(cfg.Server.CORS.Origins(), cfg.Server.CORS.AllowCredentials))
	r.NoRoute(func(c *gin.Context) { httpx.Error(c, apperr.NotFound("route "+c.Request.URL.Path)) })
	r.NoMethod(func(c *gin.Context) {
		httpx.Error(c, &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeBadRequest,
			Message: "method " + c.Request.Method + " is not allowed on " + c.Request.URL.Path})
	})
	r.GET("/healthz", func(c *gin.Context) { httpx.OK(c, gin.H{"status": "ok"}) })
	r.GET("/readyz", a.readyz)
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(a.reg, promhttp.HandlerOpts{})))

	api := r.Group(APIPrefix)
	// Flow limits: per user after authentication; per IP on the account
	// routes (login and registration are where guessing happens).
	limitUser, limitIP := func(*gin.Context) {}, func(*gin.Context) {}
	if cfg.Limits.Enabled {
		limiter := ratelimit.New(a.rdb, cfg.Redis.KeyPrefix+"rl:")
		bs := buckets(cfg.Limits)
		limitUser = ratelimit.Middleware(limiter, bs, func(c *gin.Context) string {
			if u, ok := users.Current(c); ok {
				return "u:" + u.ID
			}
			return ""
		})
		limitIP = ratelimit.Middleware(limiter, bs, func(*gin.Context) string { return "" })
	}
	required := userHandler.Required()
	auth := func(c *gin.Context) {
		if required(c); !c.IsAborted() {
			limitUser(c)
		}
	}
	userHandler.Register(api.Group("/users", limitIP))
	aiconfig.NewHandler(a.aiConfigs).Register(api.Group("/ai-properties"), auth)
	interview.NewHandler(interviews).Register(api.Group("/interview"), auth)
	for _, mount := range []func(*gin.RouterGroup, gin.HandlerFunc) error{a.mountChat, a.mountSpeech, a.mountTts} {
		if err := mount(api, auth); err != nil {
			return nil, err
		}
	}
	if err := a.mountWeb(r); err != nil {
		return nil, err
	}
	a.router = r
	return a, nil
}

// Handler is the HTTP handler of the whole service.
func (a *App) Handler() http.Handler { return a.router }

// Registry is the Prometheus registry of this app.
func (a *App) Registry() *prometheus.Registry { return a.reg }

// Routes lists the registered routes (for the authorization matrix test).
func (a *App) Routes() gin.RoutesInfo { return a.router.Routes() }

// readyz checks the database and, when configured, Redis.
func (a *App) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	checks := gin.H{}
	ready := true
	if err := db.Ping(ctx, a.db); err != nil {
		checks["database"] = "down: " + err.Error()
		ready = false
	} else {
		checks["database"] = "up"
	}
	if a.rdb != nil {
		if err := a.rdb.Ping(ctx).Err(); err != nil {
			checks["redis"] = "down: " + err.Error()
			ready = false
		} else {
			checks["redis"] = "up"
		}
	}
	if !ready {
		c.AbortWithStatusJSON(http.StatusServiceUnavailable, httpx.Envelope{Code: apperr.CodeAIUnavailable,
			Message: "not ready", Data: checks, RequestID: httpx.RequestID(c)})
		return
	}
	httpx.OK(c, checks)
}

// Run serves until ctx is done, then shuts down gracefully: the listener
// closes, in-flight requests get server.shutdown-timeout to finish, then
// every dependency is closed. It prints the address it listens on.
func (a *App) Run(ctx context.Context, stdout io.Writer) error {
	defer a.Close()
	addr := net.JoinHostPort(a.cfg.Server.Host, strconv.Itoa(a.cfg.Server.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s (server.port): %w", addr, err)
	}
	srv := &http.Server{
		Handler:           a.router,
		ReadHeaderTimeout: a.cfg.Server.ReadHeaderTimeout,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	a.log.Info("listening", "addr", ln.Addr().String(), "database", a.cfg.Database.Driver,
		"redis", a.rdb != nil, "aiProvider", a.cfg.AI.ResolvedProvider())
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "timeout", a.cfg.Server.ShutdownTimeout)
	a.stop()
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.Server.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.log.Info("stopped")
	return nil
}

// Close releases every dependency, newest first.
func (a *App) Close() {
	a.stop()
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil {
			a.log.Warn("close", "err", err)
		}
	}
	a.closers = nil
}

// defaultProvider builds the provider of ai.provider, or nil for offline.
func defaultProvider(cfg AIConfig) (llm.Provider, error) {
	switch cfg.ResolvedProvider() {
	case "openai":
		p, err := llm.New(llm.Config{Type: "openai", BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey,
			Model: cfg.OpenAI.Model, Vision: cfg.OpenAI.Vision})
		if err != nil {
			return nil, fmt.Errorf("ai.openai: %w", err)
		}
		return p, nil
	case "ollama":
		p, err := llm.New(llm.Config{Type: "ollama", BaseURL: cfg.Ollama.BaseURL, Model: cfg.Ollama.Model, Vision: cfg.Ollama.Vision})
		if err != nil {
			return nil, fmt.Errorf("ai.ollama: %w", err)
		}
		return p, nil
	}
	return nil, nil
}

// buckets turns rate-limit.* into the limiter's buckets.
func buckets(cfg LimitsConfig) ratelimit.Buckets {
	b := func(name string, perSecond int) ratelimit.Bucket {
		return ratelimit.Bucket{Name: name, Rate: perSecond, Burst: perSecond}
	}
	return ratelimit.Buckets{Answer: b("answer", cfg.Answer), Heavy: b("heavy", cfg.Heavy),
		Read: b("read", cfg.Read), Default: b("default", cfg.Default)}
}
