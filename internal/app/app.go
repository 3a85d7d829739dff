// Package app wires the service together: storage, Redis, model providers,
// the domains and the HTTP router, and runs the server with graceful
// shutdown. It reads no configuration itself: cmd/server hands it a Config.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/agent"
	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/airouting"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/offline"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/ratelimit"
	"github.com/xunzhi-ai/aimeeting/internal/redisx"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/users"
)

// APIPrefix is the root of every REST path (kept from the original).
const APIPrefix = "/api/xunzhi/v1"

// App is the assembled service. It keeps only what serving and shutting
// down need: every dependency is built in New and handed on as an argument.
type App struct {
	cfg    Config
	log    *slog.Logger
	reg    *prometheus.Registry
	router *gin.Engine
	// stopping is cancelled when shutdown begins, so long-lived streams
	// (SSE, WebSockets) can end instead of holding the shutdown up.
	stopping context.Context
	stop     context.CancelFunc
	// closers release the dependencies, run newest first.
	closers []func() error
}

// New assembles the service from top to bottom: it opens the stores (the
// database, running migrations, and Redis when configured), builds the
// services on them, the handlers on the services, and registers the routes.
//
// A dependency that cannot be opened ends New with an error naming the
// setting to fix ("database.dsn: dial tcp …: connection refused"), after
// what was already opened is closed.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *App, err error) {
	a := &App{cfg: cfg, log: log, reg: prometheus.NewRegistry()}
	a.stopping, a.stop = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	reg := a.reg
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	// Stores.
	gdb, err := db.Open(ctx, db.Config{Driver: cfg.Database.Driver, DSN: cfg.Database.DSN,
		MaxOpenConns: cfg.Database.MaxOpenConns, MaxIdleConns: cfg.Database.MaxIdleConns,
		QueryTimeout: cfg.Database.QueryTimeout})
	if err != nil {
		return nil, setting("database.dsn", err)
	}
	a.closers = append(a.closers, func() error { return db.Close(gdb) })
	// Every file (resumes, agent files, TTS audio) lives in one store: a
	// directory, or an object store shared by all instances. It is not
	// required to answer at start-up: the routes that need it answer 503
	// while it is down, everything else works.
	adoptLegacyFiles(log, cfg.DataDir, cfg.Storage.URL)
	files, err := blobstore.Open(ctx, cfg.Storage.URL)
	if err != nil {
		return nil, setting("storage.url", err)
	}
	a.closers = append(a.closers, files.Close)
	{
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := files.Ping(pctx); err != nil {
			log.Warn("file store not reachable at start-up: file routes answer 503 until it is", "storage", files.String(), "err", err)
		} else {
			log.Info("file store", "storage", files.String())
		}
		cancel()
	}
	rdb := openRedis(ctx, cfg.Redis, log) // nil without Redis
	var redisDown *redisx.Breaker         // nil without Redis
	if rdb != nil {
		a.closers = append(a.closers, rdb.Close)
		// One "Redis is down, skip it" switch for every user of Redis: the
		// first to see it fail spares the others, and while it is open no
		// request waits on Redis; one probe says when it is back.
		redisDown = redisx.NewBreaker(cfg.Redis.Backoff,
			redisx.WithProbe(func(ctx context.Context) error { return rdb.Ping(ctx).Err() }, cfg.Redis.Timeout),
			redisx.WithOnChange(func(up bool, err error) {
				if up {
					log.Info("redis is back")
					return
				}
				log.Warn("redis is down: skipping it (local fallbacks) until a probe answers", "err", err, "probeEvery", cfg.Redis.Backoff)
			}))
		a.closers = append(a.closers, redisDown.Close)
	}

	// Services. Closers run newest first: the TTS worker and the sockets
	// stop, then chat answers still streaming are ended and saved, then
	// the flights, Redis and the database close.
	var tokenCache users.TokenCache
	if rdb != nil {
		// Tokens are read from Redis, and kept in process for a few
		// seconds while the revocation channel is subscribed.
		local := users.NewLocalTokenCache(users.NewRedisTokenCache(rdb, cfg.Redis.KeyPrefix, redisDown, cfg.Redis.Timeout),
			rdb, cfg.Redis.KeyPrefix, users.LocalTokenTTL)
		a.closers = append(a.closers, local.Close)
		tokenCache = local
	}
	var throttle *users.Throttle // nil: logins are not throttled
	if lt := cfg.Auth.LoginThrottle; lt.Enabled {
		throttle, err = users.NewThrottle(users.ThrottleConfig{AccountFailures: lt.AccountFailures,
			AddressFailures: lt.AddressFailures, AddressRegistrations: lt.AddressRegistrations,
			BaseDelay: lt.BaseDelay, MaxDelay: lt.MaxDelay, Window: lt.Window},
			rdb, cfg.Redis.KeyPrefix, redisDown, cfg.Redis.Timeout)
		if err != nil {
			return nil, fmt.Errorf("auth.login-throttle: %w", err)
		}
	}
	accounts, err := users.NewService(users.NewGormStore(gdb), tokenCache, throttle, users.Config{
		TokenTTL: cfg.Auth.TokenTTL, TokenIdleTTL: cfg.Auth.TokenIdleTTL, BcryptCost: cfg.Auth.BcryptCost,
	})
	if err != nil {
		return nil, setting("auth", err)
	}
	model, err := defaultProvider(cfg.AI)
	if err != nil {
		return nil, err
	}
	// Routing: the database holds the routes; every instance re-reads them
	// at most every refresh. Usage is written in batches by one writer
	// (closed after the flights, so the last calls are kept).
	routeStore := airouting.NewGormStore(gdb)
	usage := airouting.NewRecorder(routeStore, airouting.RecorderConfig{Queue: cfg.Agent.Usage.Queue,
		Batch: cfg.Agent.Usage.Batch, Flush: cfg.Agent.Usage.Flush}, log.With("domain", "ai-usage"), reg)
	a.closers = append(a.closers, usage.Close)
	aiConfigs := aiconfig.NewService(aiconfig.NewGormStore(gdb), model, aiconfig.WithInUse(routeStore.StagesUsing),
		aiconfig.WithProbeWrap(usage.Recorded))
	routing := airouting.NewService(routeStore, aiConfigs, usage, airouting.Config{Refresh: cfg.Agent.Routing.Refresh,
		DefaultModel: defaultModelName(cfg.AI)})
	invoker, flights, err := newInvoker(cfg, rdb, redisDown, reg,
		interview.WithRouting(routing), interview.WithUsage(usage, defaultModelName(cfg.AI)))
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, flights.Close)
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
	var progress interview.ProgressStore  // nil: in process
	var changes *interview.SessionChanges // nil: no copies of current questions
	if rdb != nil {
		progress = interview.NewRedisProgress(rdb, cfg.Redis.KeyPrefix, redisDown, cfg.Redis.Timeout)
		changes = interview.NewSessionChanges(rdb, cfg.Redis.KeyPrefix, redisDown, cfg.Redis.Timeout)
		a.closers = append(a.closers, changes.Close)
	}
	interviews, err := interview.NewService(interview.NewGormStore(gdb), invoker, aiConfigs.Default().Provider,
		interview.Config{Files: files, Presign: cfg.Storage.Presign, Log: log, OCR: ocr, MinChars: cfg.Doctext.MinChars,
			Registerer: reg, Progress: progress, Changes: changes})
	if err != nil {
		return nil, err
	}
	// A chat naming no model uses the chat route (routing.Resolve).
	chats := chat.NewService(chat.NewGormStore(gdb), routing, chat.Config{
		MaxMessageChars: cfg.Chat.MaxMessageChars,
		ContextTokens:   cfg.Chat.ContextTokens,
		StreamTimeout:   cfg.Chat.StreamTimeout,
		IdleTimeout:     cfg.Chat.StreamIdleTimeout,
		StallNotice:     cfg.Chat.StallNotice,
	})
	a.closers = append(a.closers, chats.Close)
	agents, err := agent.NewService(agent.NewGormStore(gdb), chats, routing.Unrouted(), agent.Config{
		DefaultAgentName: cfg.Agents.DefaultAgentName,
		MaxFileBytes:     cfg.Agents.MaxFileBytes,
		FileContextChars: cfg.Agents.FileContextChars,
		Files:            files,
	})
	if err != nil {
		return nil, err
	}
	recognizer, err := speechRecognizer(cfg.Speech, log, reg)
	if err != nil {
		return nil, err // names its setting (speechRecognizer)
	}
	if c, ok := recognizer.(io.Closer); ok {
		a.closers = append(a.closers, c.Close)
	}
	log.Info("speech recogniser", "provider", recognizer.Name())
	sockets := speech.NewServer(speech.Config{
		MaxSocketsPerUser: cfg.Speech.MaxSocketsPerUser,
		IdleTimeout:       cfg.Speech.IdleTimeout,
		MaxFrameBytes:     cfg.Speech.MaxFrameBytes,
	}, recognizer, socketAuthenticator(accounts), speech.NewMetrics(reg))
	a.closers = append(a.closers, func() error {
		// Open sockets get a 1001 close frame; their recognisers drain.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return sockets.Shutdown(ctx)
	})
	transcriber := speech.NewTranscriber(recognizer)
	ttsName, synth, err := ttsProvider(cfg.TTS)
	if err != nil {
		return nil, err // names its setting (ttsProvider)
	}
	if synth == nil {
		log.Warn("no TTS provider: install espeak-ng (scripts/tts-deps.sh) or set tts.provider; TTS requests will fail with 503")
	}
	// Audio lives in the file store, shared by every instance (see
	// docs/cluster.md). The worker's closer (the first to run) releases the
	// tasks it runs so that they resume elsewhere or after a restart.
	voices, err := tts.NewService(tts.NewGormStore(gdb), synth, flights, ttsConfig(cfg, ttsName, files),
		log.With("domain", "tts"), reg)
	if err != nil {
		return nil, err
	}
	voices.Start()
	a.closers = append(a.closers, voices.Close)
	if cfg.Storage.SweepInterval > 0 {
		// Blobs that no row names (an instance died between the blob and
		// its row, or a delete of the blob failed) go after a grace period.
		owners := []blobstore.Owner{
			{Prefix: interview.ResumePrefix, Named: interviews.NamedBlobs},
			{Prefix: agent.FilePrefix, Named: agents.NamedBlobs},
			{Prefix: tts.AudioPrefix, Named: voices.NamedBlobs},
			{Prefix: tts.WorkPrefix, Named: voices.NamedBlobs},
		}
		a.closers = append(a.closers, startSweeper(files, owners, rdb, cfg.Redis.KeyPrefix,
			cfg.Storage.SweepInterval, cfg.Storage.SweepGrace, log.With("domain", "blobs")))
	}
	log.Info("tts ready", "provider", ttsName, "mp3", voices.Config().Lame != "", "maxConcurrency", voices.Config().MaxConcurrency)

	// HTTP flow limits, shared through Redis when configured.
	var limiter *ratelimit.Limiter // nil: limits off
	if cfg.Limits.Enabled {
		limiter = ratelimit.New(rdb, cfg.Redis.KeyPrefix+"rl:", redisDown, cfg.Redis.Timeout)
	}
	limits := ratelimit.NewLimits(limiter, buckets(cfg.Limits)...)

	// Handlers.
	accountHandler := users.NewHandler(accounts)
	aiConfigHandler := aiconfig.NewHandler(aiConfigs)
	routingHandler := airouting.NewHandler(routing, usage)
	interviewHandler := interview.NewHandler(interviews)
	chatHandler := chat.NewHandler(chats)
	agentHandler := agent.NewHandler(agents)
	speechHandler := speech.NewHandler(sockets, transcriber, speechMaxUpload(cfg.Speech))
	// Event streams end when shutdown starts instead of holding it up.
	ttsHandler := tts.NewHandler(voices, a.stopping)
	web, err := newWebHandler()
	if err != nil {
		return nil, fmt.Errorf("web assets: %w", err)
	}

	// Routes.
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	// The client is the socket's address unless it is a listed proxy's:
	// an X-Forwarded-For from anyone else would let a client pick its own
	// per-IP rate-limit bucket.
	if err := r.SetTrustedProxies(cfg.Server.Proxies()); err != nil {
		return nil, setting("server.trusted-proxies", err)
	}
	r.HandleMethodNotAllowed = true // 405 with Allow (gin sets the header)
	r.Use(httpx.Middleware(log, httpx.NewMetrics(reg), cfg.Server.MaxBody)...)
	r.Use(httpx.ReadTimeout(cfg.Server.ReadTimeout))
	r.Use(httpx.CORS(cfg.Server.CORS.Origins(), cfg.Server.CORS.AllowCredentials))
	r.NoRoute(func(c *gin.Context) {
		httpx.Error(c, apperr.New(apperr.KindNotFound, "route %s not found", c.Request.URL.Path))
	})
	r.NoMethod(func(c *gin.Context) {
		httpx.Error(c, apperr.New(apperr.KindMethodNotAllowed, "method %s is not allowed on %s; allowed: %s",
			c.Request.Method, c.Request.URL.Path, c.Writer.Header().Get("Allow")))
	})
	r.GET("/healthz", func(c *gin.Context) { httpx.Respond(c, gin.H{"status": "ok"}, nil) })
	r.GET("/readyz", readyz(gdb, rdb))
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	web.register(r)

	// Each route names its rate-limit bucket where it is registered
	// (limits.Bucket); a bucket counts per caller after authentication,
	// per client IP before it.
	api := r.Group(APIPrefix)
	authn := accountHandler.Required()
	accountHandler.Register(api.Group("/users"), limits.Bucket)
	aiConfigHandler.Register(api.Group("/ai-properties"), authn, limits.Bucket)
	routingHandler.Register(api, authn, limits.Bucket)
	interviewHandler.Register(api.Group("/interview"), authn, limits.Bucket)
	chatHandler.Register(api.Group("/ai"), authn, limits.Bucket)
	agentHandler.RegisterProperties(api.Group("/agent-properties"), authn, limits.Bucket)
	agentHandler.RegisterSessions(api.Group("/agents"), authn, limits.Bucket)
	speechHandler.Register(api, authn, limits.Bucket)
	ttsHandler.Register(api.Group("/xunfei/tts"), authn, limits.Bucket)

	a.router = r
	return a, nil
}

// openRedis connects to Redis when configured (nil otherwise). Redis is an
// optimisation (cache, locks, cross-instance dedup): when it is unreachable
// the service starts anyway, /readyz reports it and hybrid mode falls back.
func openRedis(ctx context.Context, cfg RedisConfig, log *slog.Logger) redis.UniversalClient {
	if !cfg.Enabled() {
		return nil
	}
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: cfg.AddrList(), IsClusterMode: cfg.Cluster,
		Username: cfg.Username, Password: cfg.Password, DB: cfg.DB,
		ContextTimeoutEnabled: true, // per-call deadlines (single-flight redis-timeout) apply without extra goroutines
	})
	pingCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := rdb.Ping(pingCtx).Err(); err != nil {
		log.Warn("redis unreachable at start-up; continuing", "addrs", cfg.Addrs, "err", err)
	}
	return rdb
}

// Handler is the HTTP handler of the whole service.
func (a *App) Handler() http.Handler { return a.router }

// Registry is the Prometheus registry of this app.
func (a *App) Registry() *prometheus.Registry { return a.reg }

// Routes lists the registered routes (for the authorization matrix test).
func (a *App) Routes() gin.RoutesInfo { return a.router.Routes() }

// readyz checks the database and, when configured, Redis.
func readyz(gdb *gorm.DB, rdb redis.UniversalClient) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		checks := gin.H{}
		ready := true
		if err := db.Ping(ctx, gdb); err != nil {
			checks["database"] = "down: " + err.Error()
			ready = false
		} else {
			checks["database"] = "up"
		}
		if rdb != nil {
			if err := rdb.Ping(ctx).Err(); err != nil {
				checks["redis"] = "down: " + err.Error()
				ready = false
			} else {
				checks["redis"] = "up"
			}
		}
		if !ready {
			// Not an error of the request: a 503 whose data says what is down.
			c.AbortWithStatusJSON(http.StatusServiceUnavailable, httpx.Envelope{Code: apperr.CodeAIUnavailable,
				Message: httpx.Text(c, "not ready"), Data: checks, RequestID: httpx.RequestID(c)})
			return
		}
		httpx.Respond(c, checks, nil)
	}
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
	// ReadTimeout bounds each request's headers and body (upload routes
	// extend it, streams and sockets lift it: httpx.UploadDeadline,
	// httpx.ReadTimeout). No WriteTimeout: streams write for minutes; a
	// client that stops reading is dropped by the streams themselves.
	srv := &http.Server{
		Handler:           a.router,
		ReadHeaderTimeout: min(a.cfg.Server.ReadHeaderTimeout, a.cfg.Server.ReadTimeout),
		ReadTimeout:       a.cfg.Server.ReadTimeout,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if a.cfg.Server.PprofAddr != "" {
		stopPprof, err := servePprof(a.cfg.Server.PprofAddr, a.log)
		if err != nil {
			_ = ln.Close()
			return setting("server.pprof-addr", err)
		}
		defer stopPprof()
	}
	a.log.Info("listening", "addr", ln.Addr().String(), "database", a.cfg.Database.Driver,
		"redis", a.cfg.Redis.Enabled(), "aiProvider", a.cfg.AI.ResolvedProvider())
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

// Close releases every dependency, newest first. Closing a nil App does
// nothing.
func (a *App) Close() {
	if a == nil {
		return
	}
	a.stop()
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil {
			a.log.Warn("close", "err", err)
		}
	}
	a.closers = nil
}

// setting names the configuration key to fix in a start-up error.
func setting(key string, err error) error { return fmt.Errorf("%s: %w", key, err) }

// defaultProvider builds the provider of ai.provider. Offline is the
// built-in model, taught every interview stage before anyone holds it.
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
	model := llm.NewOffline()
	offline.Register(model)
	return model, nil
}

// defaultModelName names the default provider's model in usage records.
func defaultModelName(cfg AIConfig) string {
	switch cfg.ResolvedProvider() {
	case "openai":
		return cfg.OpenAI.Model
	case "ollama":
		return cfg.Ollama.Model
	}
	return "offline"
}

// socketAuthenticator authenticates the transcription socket's token (the
// socket authenticates itself: its token may come in the query or the
// subprotocol, where the auth middleware does not look).
func socketAuthenticator(accounts *users.Service) speech.Authenticator {
	return speech.AuthenticatorFunc(func(ctx context.Context, token string) (speech.Principal, error) {
		u, err := accounts.Authenticate(ctx, token)
		if err != nil {
			return speech.Principal{}, err
		}
		return speech.Principal{ID: u.ID, Username: u.Username}, nil
	})
}

// buckets turns rate-limit.* into the limiter's buckets, named after their
// configuration keys: rate-limit.answer is the bucket "answer".
func buckets(cfg LimitsConfig) []ratelimit.Bucket {
	b := func(name string, perSecond int) ratelimit.Bucket {
		return ratelimit.Bucket{Name: name, Rate: perSecond, Burst: perSecond}
	}
	return []ratelimit.Bucket{b("answer", cfg.Answer), b("heavy", cfg.Heavy), b("read", cfg.Read),
		b("chat", cfg.Chat), b("tts", cfg.TTS), b("default", cfg.Default)}
}

// legacyFileDirs are the folders under the data dir where versions from
// before storage.url kept their files; their paths below the data dir are
// the file store's keys.
var legacyFileDirs = []string{"uploads", "tts"}

// adoptLegacyFiles moves the files of a version from before storage.url
// into the default file store, <data-dir>/files, by renaming their
// folders (same disk: no copy, nothing to run by hand). A folder already
// present in the store, or another store (S3, another directory), is left
// alone with a warning naming `aimeeting blobs migrate`.
func adoptLegacyFiles(log *slog.Logger, dataDir, storageURL string) {
	if dataDir == "" {
		return
	}
	store := filepath.Join(dataDir, "files")
	abs, err := filepath.Abs(store)
	isDefault := err == nil && storageURL == "file://"+filepath.ToSlash(abs)
	for _, old := range legacyFileDirs {
		src := filepath.Join(dataDir, old)
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			continue
		}
		dst := filepath.Join(store, old)
		if isDefault {
			if _, err := os.Stat(dst); errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(store, 0o750); err == nil {
					if err := os.Rename(src, dst); err == nil {
						log.Info("files from before storage.url moved into the file store", "from", src, "to", dst)
						continue
					}
				}
			}
		}
		log.Warn("files from before storage.url found under the data dir: copy them into the file store with "+
			"`aimeeting blobs migrate --from file://<data-dir> --to <storage.url>`", "dir", src)
	}
}
