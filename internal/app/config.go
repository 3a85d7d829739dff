package app

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

// Config is the whole configuration, decoded from application.yaml, an
// optional --config file and environment variables by cmd/server.
type Config struct {
	Server   ServerConfig   `mapstructure:"server"`
	Log      LogConfig      `mapstructure:"log"`
	DataDir  string         `mapstructure:"data-dir"`
	Database DatabaseConfig `mapstructure:"database"`
	Redis    RedisConfig    `mapstructure:"redis"`
	Auth     AuthConfig     `mapstructure:"auth"`
	Limits   LimitsConfig   `mapstructure:"rate-limit"`
	AI       AIConfig       `mapstructure:"ai"`
	Agent    AgentConfig    `mapstructure:"xunzhi-agent"`
	Chat     ChatConfig     `mapstructure:"chat"`
	Agents   AgentsConfig   `mapstructure:"agent"`
	Speech   SpeechConfig   `mapstructure:"speech"`
	TTS      TTSConfig      `mapstructure:"tts"`
	Doctext  DoctextConfig  `mapstructure:"doctext"`
	Storage  StorageConfig  `mapstructure:"storage"`
}

// StorageConfig is where files live (resumes, agent files, TTS audio).
type StorageConfig struct {
	// URL is file:///dir or s3://bucket?endpoint=…&region=…&use_path_style=true;
	// "" means file://<data-dir>/files.
	URL string `mapstructure:"url"`
	// Presign, when positive, answers resume previews and TTS audio with a
	// redirect to a presigned URL of the object store valid that long.
	Presign time.Duration `mapstructure:"presign"`
	// SweepInterval is how often one instance of the cluster deletes the
	// blobs no row names; 0 turns the sweep off.
	SweepInterval time.Duration `mapstructure:"sweep-interval"`
	// SweepGrace is the age under which a blob is never swept: its row may
	// still be on its way.
	SweepGrace time.Duration `mapstructure:"sweep-grace"`
}

// DoctextConfig tunes how uploaded resumes are read.
type DoctextConfig struct {
	// MinChars is the fewest characters a resume must yield (-1: no check).
	MinChars int       `mapstructure:"min-chars"`
	OCR      OCRConfig `mapstructure:"ocr"`
}

// OCRConfig bounds reading photos and scanned PDFs with tesseract.
type OCRConfig struct {
	Enabled     string        `mapstructure:"enabled"`
	MaxPages    int           `mapstructure:"max-pages"`
	Timeout     time.Duration `mapstructure:"timeout"`
	Concurrency int           `mapstructure:"concurrency"`
	Languages   string        `mapstructure:"languages"`
}

// Mode returns Enabled as auto, true or false ("1" and "0", as a YAML
// boolean may decode, count as true and false); "" when invalid.
func (c OCRConfig) Mode() string {
	switch strings.ToLower(strings.TrimSpace(c.Enabled)) {
	case "", "auto":
		return "auto"
	case "true", "1", "on", "yes":
		return "true"
	case "false", "0", "off", "no":
		return "false"
	}
	return ""
}

// ChatConfig tunes AI chat.
type ChatConfig struct {
	MaxMessageChars int           `mapstructure:"max-message-chars"`
	ContextTokens   int           `mapstructure:"context-tokens"`
	StreamTimeout   time.Duration `mapstructure:"stream-timeout"`
	// StreamIdleTimeout ends a streamed answer whose model sends nothing
	// for that long; StallNotice is when the page says the answer stalls.
	StreamIdleTimeout time.Duration `mapstructure:"stream-idle-timeout"`
	StallNotice       time.Duration `mapstructure:"stall-notice"`
}

// AgentsConfig tunes agent sessions.
type AgentsConfig struct {
	DefaultAgentName string `mapstructure:"default-agent-name"`
	MaxFileBytes     int64  `mapstructure:"max-file-bytes"`
	FileContextChars int    `mapstructure:"file-context-chars"`
}

// SpeechConfig selects the speech-to-text provider.
type SpeechConfig struct {
	Provider          string             `mapstructure:"provider"`
	MaxSocketsPerUser int                `mapstructure:"max-sockets-per-user"`
	IdleTimeout       time.Duration      `mapstructure:"idle-timeout"`
	MaxFrameBytes     int64              `mapstructure:"max-frame-bytes"`
	MaxUploadBytes    int64              `mapstructure:"max-upload-bytes"`
	Pocketsphinx      PocketsphinxConfig `mapstructure:"pocketsphinx"`
	OpenAI            SpeechOpenAIConfig `mapstructure:"openai"`
	Xunfei            XunfeiConfig       `mapstructure:"xunfei"`
	// XunfeiAST is iFlytek's large-model real-time transcription
	// (speech.provider xunfei-ast): api-key is its accessKeyId.
	XunfeiAST XunfeiConfig `mapstructure:"xunfei-ast"`
}

// PocketsphinxConfig locates the local recogniser's model and bounds its
// memory: each decoder holds a copy of the model.
type PocketsphinxConfig struct {
	ModelDir           string        `mapstructure:"model-dir"`
	MaxDecoders        int           `mapstructure:"max-decoders"`
	MaxDecodersPerUser int           `mapstructure:"max-decoders-per-user"`
	IdleRelease        time.Duration `mapstructure:"idle-release"`
}

// SpeechOpenAIConfig is an OpenAI-compatible audio API.
type SpeechOpenAIConfig struct {
	BaseURL string `mapstructure:"base-url"`
	APIKey  string `mapstructure:"api-key"`
	Model   string `mapstructure:"model"`
	Voice   string `mapstructure:"voice"`
}

// XunfeiConfig holds iFlytek credentials.
type XunfeiConfig struct {
	URL string `mapstructure:"url"`
	// SessionLimit is how long one IAT session may last (speech.xunfei,
	// 60 s when unset); the recogniser renews it just before.
	SessionLimit time.Duration `mapstructure:"session-limit"`
	AppID        string        `mapstructure:"app-id"`
	APIKey       string        `mapstructure:"api-key"`
	APISecret    string        `mapstructure:"api-secret"`
}

// TTSConfig selects the speech synthesis provider.
type TTSConfig struct {
	Provider        string             `mapstructure:"provider"`
	MaxConcurrency  int                `mapstructure:"max-concurrency"`
	SegmentMaxChars int                `mapstructure:"segment-max-chars"`
	SynthesizeWait  time.Duration      `mapstructure:"synthesize-wait"`
	Espeak          EspeakConfig       `mapstructure:"espeak"`
	OpenAI          SpeechOpenAIConfig `mapstructure:"openai"`
	Xunfei          XunfeiConfig       `mapstructure:"xunfei"`
}

// EspeakConfig locates espeak-ng.
type EspeakConfig struct {
	Binary string `mapstructure:"binary"`
}

// ServerConfig is the HTTP server.
type ServerConfig struct {
	Host              string        `mapstructure:"host"`
	Port              int           `mapstructure:"port"`
	ShutdownTimeout   time.Duration `mapstructure:"shutdown-timeout"`
	ReadHeaderTimeout time.Duration `mapstructure:"read-header-timeout"`
	// ReadTimeout bounds reading a request (headers and body); upload
	// routes extend it for their byte limit, streams clear it.
	ReadTimeout time.Duration `mapstructure:"read-timeout"`
	// TrustedProxies lists the proxies whose X-Forwarded-For is believed;
	// empty: the socket address is the client.
	TrustedProxies string     `mapstructure:"trusted-proxies"`
	MaxBody        int64      `mapstructure:"max-body"`
	CORS           CORSConfig `mapstructure:"cors"`
	// PprofAddr, when set, serves Go's profiler (net/http/pprof) on its
	// own listener at this loopback address, never on the API's port:
	// "" (the default) serves none.
	PprofAddr string `mapstructure:"pprof-addr"`
}

// Proxies returns the trusted proxies as a list.
func (c ServerConfig) Proxies() []string { return splitList(c.TrustedProxies) }

// CORSConfig lists allowed origins.
type CORSConfig struct {
	AllowedOrigins   string `mapstructure:"allowed-origins"`
	AllowCredentials bool   `mapstructure:"allow-credentials"`
}

// Origins returns the allowed origins as a list.
func (c CORSConfig) Origins() []string { return splitList(c.AllowedOrigins) }

// LogConfig selects the log format and level.
type LogConfig struct {
	Format string `mapstructure:"format"`
	Level  string `mapstructure:"level"`
}

// DatabaseConfig selects the database.
type DatabaseConfig struct {
	Driver       string `mapstructure:"driver"`
	DSN          string `mapstructure:"dsn"`
	MaxOpenConns int    `mapstructure:"max-open-conns"`
	MaxIdleConns int    `mapstructure:"max-idle-conns"`
	// QueryTimeout bounds every database call (database.query-timeout).
	QueryTimeout time.Duration `mapstructure:"query-timeout"`
}

// RedisConfig is the optional Redis (single node or cluster).
type RedisConfig struct {
	Addrs     string `mapstructure:"addrs"`
	Cluster   bool   `mapstructure:"cluster"`
	Username  string `mapstructure:"username"`
	Password  string `mapstructure:"password"`
	DB        int    `mapstructure:"db"`
	KeyPrefix string `mapstructure:"key-prefix"`
	// Timeout bounds one command of the token cache, the rate limiter and
	// the login throttle, and one probe while Redis is down.
	Timeout time.Duration `mapstructure:"timeout"`
	// Backoff is how long every user of Redis skips it after a failure; it
	// is then probed this often until it answers.
	Backoff time.Duration `mapstructure:"backoff"`
}

// AddrList returns the addresses as a list.
func (c RedisConfig) AddrList() []string { return splitList(c.Addrs) }

// Enabled reports whether Redis is configured.
func (c RedisConfig) Enabled() bool { return len(c.AddrList()) > 0 }

// LimitsConfig sets the HTTP flow limits (requests per second).
type LimitsConfig struct {
	Enabled bool `mapstructure:"enabled"`
	Answer  int  `mapstructure:"answer"`
	Heavy   int  `mapstructure:"heavy"`
	Read    int  `mapstructure:"read"`
	Chat    int  `mapstructure:"chat"`
	TTS     int  `mapstructure:"tts"`
	Default int  `mapstructure:"default"`
}

// AuthConfig tunes tokens and password hashing.
type AuthConfig struct {
	TokenTTL     time.Duration `mapstructure:"token-ttl"`
	TokenIdleTTL time.Duration `mapstructure:"token-idle-ttl"`
	BcryptCost   int           `mapstructure:"bcrypt-cost"`
	// LoginThrottle slows down password guessing and mass registration.
	LoginThrottle LoginThrottleConfig `mapstructure:"login-throttle"`
}

// LoginThrottleConfig is auth.login-throttle: failed logins per account and
// per client address, registrations per address, then doubling delays.
type LoginThrottleConfig struct {
	Enabled              bool          `mapstructure:"enabled"`
	AccountFailures      int           `mapstructure:"account-failures"`
	AddressFailures      int           `mapstructure:"address-failures"`
	AddressRegistrations int           `mapstructure:"address-registrations"`
	BaseDelay            time.Duration `mapstructure:"base-delay"`
	MaxDelay             time.Duration `mapstructure:"max-delay"`
	Window               time.Duration `mapstructure:"window"`
}

// AIConfig is the default model provider.
type AIConfig struct {
	Provider string         `mapstructure:"provider"`
	OpenAI   ProviderConfig `mapstructure:"openai"`
	Ollama   ProviderConfig `mapstructure:"ollama"`
}

// ProviderConfig is one provider's connection.
type ProviderConfig struct {
	BaseURL string `mapstructure:"base-url"`
	APIKey  string `mapstructure:"api-key"`
	Model   string `mapstructure:"model"`
	Vision  bool   `mapstructure:"vision"`
}

// ResolvedProvider returns the provider to use: "auto" becomes openai when
// an API key is configured, offline otherwise.
func (c AIConfig) ResolvedProvider() string {
	if c.Provider == "auto" || c.Provider == "" {
		if c.OpenAI.APIKey != "" {
			return "openai"
		}
		return "offline"
	}
	return c.Provider
}

// AgentConfig is the xunzhi-agent tree: interview AI infrastructure.
type AgentConfig struct {
	SingleFlight SingleFlightConfig `mapstructure:"ai-singleflight"`
	Guard        GuardConfig        `mapstructure:"ai-guard"`
	Routing      RoutingConfig      `mapstructure:"ai-routing"`
	Usage        UsageConfig        `mapstructure:"ai-usage"`
}

// RoutingConfig configures per-stage model routing.
type RoutingConfig struct {
	// Refresh bounds how long a route change made on another instance
	// takes to apply here (the routes are re-read at most this often).
	Refresh time.Duration `mapstructure:"refresh"`
}

// UsageConfig configures usage accounting.
type UsageConfig struct {
	Queue int           `mapstructure:"queue"` // events waiting to be written; more are dropped
	Batch int           `mapstructure:"batch"` // events per insert
	Flush time.Duration `mapstructure:"flush"` // longest wait of a queued event
}

// SingleFlightConfig configures the hybrid single-flight.
type SingleFlightConfig struct {
	Mode            string                       `mapstructure:"mode"`
	InstanceID      string                       `mapstructure:"instance-id"`
	FollowerMaxWait time.Duration                `mapstructure:"follower-max-wait"`
	StreamBlock     time.Duration                `mapstructure:"stream-block"`
	PollFallback    time.Duration                `mapstructure:"poll-fallback"`
	L1MaxEntries    int                          `mapstructure:"l1-max-entries"`
	RedisBackoff    time.Duration                `mapstructure:"redis-backoff"`
	RedisTimeout    time.Duration                `mapstructure:"redis-timeout"`
	Stages          map[string]SingleFlightStage `mapstructure:"stages"`
}

// SingleFlightStage is one stage's single-flight policy.
type SingleFlightStage struct {
	ResultTTL      time.Duration `mapstructure:"result-ttl"`
	FailedTTL      time.Duration `mapstructure:"failed-ttl"`
	RunningLease   time.Duration `mapstructure:"running-lease"`
	Heartbeat      time.Duration `mapstructure:"heartbeat"`
	TakeoverDetect time.Duration `mapstructure:"takeover-detect"`
	L1Enabled      bool          `mapstructure:"l1-enabled"`
	L1TTL          time.Duration `mapstructure:"l1-ttl"`
	CompressOver   int           `mapstructure:"compress-over"`
}

// GuardConfig configures the AI guard.
type GuardConfig struct {
	Stages  map[string]GuardStage `mapstructure:"stages"`
	Breaker BreakerConfig         `mapstructure:"breaker"`
}

// GuardStage is one stage's guard policy.
type GuardStage struct {
	Timeout       time.Duration `mapstructure:"timeout"`
	MaxConcurrent int           `mapstructure:"max-concurrent"`
	Retries       int           `mapstructure:"retries"`
	RetryDelay    time.Duration `mapstructure:"retry-delay"`
}

// BreakerConfig is the circuit breaker shared by every stage's policy.
type BreakerConfig struct {
	FailureRatio  float64       `mapstructure:"failure-ratio"`
	Window        int           `mapstructure:"window"`
	OpenFor       time.Duration `mapstructure:"open-for"`
	HalfOpenCalls int           `mapstructure:"half-open-calls"`
}

// Normalize fills derived defaults (the SQLite path under the data dir).
func (c *Config) Normalize() {
	if c.Database.Driver == "sqlite" && c.Database.DSN == "" {
		c.Database.DSN = filepath.Join(c.DataDir, "aimeeting.db")
	}
	if c.Storage.URL == "" && c.DataDir != "" {
		dir, err := filepath.Abs(filepath.Join(c.DataDir, "files"))
		if err != nil {
			dir = filepath.Join(c.DataDir, "files")
		}
		c.Storage.URL = "file://" + filepath.ToSlash(dir)
	}
}

// Validate checks the configuration; each error names the key to fix.
func (c *Config) Validate() error {
	var errs []string
	bad := func(key, format string, args ...any) {
		errs = append(errs, key+": "+fmt.Sprintf(format, args...))
	}
	if c.Server.Port < 0 || c.Server.Port > 65535 {
		bad("server.port", "must be 0..65535, got %d", c.Server.Port)
	}
	if c.Server.ShutdownTimeout <= 0 {
		bad("server.shutdown-timeout", "must be positive")
	}
	if c.Server.ReadTimeout <= 0 {
		bad("server.read-timeout", "must be positive")
	}
	for _, p := range c.Server.Proxies() {
		if net.ParseIP(p) == nil {
			if _, _, err := net.ParseCIDR(p); err != nil {
				bad("server.trusted-proxies", "%q is neither an IP address nor a CIDR", p)
			}
		}
	}
	if a := c.Server.PprofAddr; a != "" && !loopbackAddr(a) {
		bad("server.pprof-addr", "must be a loopback host:port (127.0.0.1:6060, [::1]:6060, localhost:6060), got %q", a)
	}
	if c.Database.QueryTimeout <= 0 {
		bad("database.query-timeout", "must be positive")
	}
	if c.Server.MaxBody < 1<<20 {
		bad("server.max-body", "must be at least 1048576 bytes")
	}
	if c.Server.CORS.AllowCredentials {
		for _, o := range c.Server.CORS.Origins() {
			if o == "*" {
				bad("server.cors.allowed-origins", `"*" cannot be combined with server.cors.allow-credentials: list the origins`)
			}
		}
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		bad("log.format", "must be text or json, got %q", c.Log.Format)
	}
	switch strings.ToLower(c.Log.Level) {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "must be debug, info, warn or error, got %q", c.Log.Level)
	}
	if u, err := url.Parse(c.Storage.URL); err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
		bad("storage.url", "must be file:///dir or s3://bucket?endpoint=http://host:port&region=r&use_path_style=true, got %q",
			redact.URL(c.Storage.URL))
	}
	if c.Storage.Presign < 0 || c.Storage.SweepInterval < 0 || c.Storage.SweepGrace < 0 {
		bad("storage", "presign, sweep-interval and sweep-grace must not be negative")
	}
	if c.DataDir == "" {
		bad("data-dir", "is required")
	}
	switch c.Database.Driver {
	case "sqlite":
	case "mysql":
		if c.Database.DSN == "" {
			bad("database.dsn", "is required when database.driver is mysql")
		}
	default:
		bad("database.driver", "must be sqlite or mysql, got %q", c.Database.Driver)
	}
	if c.Auth.TokenTTL <= 0 || c.Auth.TokenIdleTTL <= 0 {
		bad("auth.token-ttl", "auth.token-ttl and auth.token-idle-ttl must be positive")
	}
	if c.Limits.Enabled && (c.Limits.Answer < 1 || c.Limits.Heavy < 1 || c.Limits.Read < 1 ||
		c.Limits.Chat < 1 || c.Limits.TTS < 1 || c.Limits.Default < 1) {
		bad("rate-limit", "answer, heavy, read, chat, tts and default must be at least 1 request per second")
	}
	if ps := c.Speech.Pocketsphinx; ps.MaxDecoders < 1 {
		bad("speech.pocketsphinx.max-decoders", "must be at least 1, got %d", ps.MaxDecoders)
	} else if ps.MaxDecodersPerUser < 1 || ps.MaxDecodersPerUser > ps.MaxDecoders {
		bad("speech.pocketsphinx.max-decoders-per-user", "must be 1..speech.pocketsphinx.max-decoders (%d), got %d", ps.MaxDecoders, ps.MaxDecodersPerUser)
	}
	if c.Speech.Pocketsphinx.IdleRelease <= 0 {
		bad("speech.pocketsphinx.idle-release", "must be positive")
	}
	if c.Redis.Enabled() && (c.Redis.Timeout <= 0 || c.Redis.Backoff <= 0) {
		bad("redis", "timeout and backoff must be positive")
	}
	if lt := c.Auth.LoginThrottle; lt.Enabled {
		if lt.AccountFailures < 1 || lt.AddressFailures < 1 || lt.AddressRegistrations < 1 {
			bad("auth.login-throttle", "account-failures, address-failures and address-registrations must be at least 1")
		}
		if lt.BaseDelay <= 0 || lt.MaxDelay < lt.BaseDelay || lt.Window <= 0 {
			bad("auth.login-throttle", "base-delay and window must be positive and max-delay at least base-delay")
		}
	}
	if c.Auth.BcryptCost < 4 || c.Auth.BcryptCost > 31 {
		bad("auth.bcrypt-cost", "must be 4..31, got %d", c.Auth.BcryptCost)
	}
	if c.Doctext.OCR.Mode() == "" {
		bad("doctext.ocr.enabled", "must be auto, true or false, got %q", c.Doctext.OCR.Enabled)
	}
	if c.Doctext.OCR.MaxPages < 1 || c.Doctext.OCR.Concurrency < 1 || c.Doctext.OCR.Timeout <= 0 {
		bad("doctext.ocr", "max-pages and concurrency must be at least 1 and timeout positive")
	}
	if c.Doctext.MinChars < -1 {
		bad("doctext.min-chars", "must be -1 (no check) or more, got %d", c.Doctext.MinChars)
	}
	if r := c.Agent.Routing.Refresh; r <= 0 || r > 2*time.Second {
		bad("xunzhi-agent.ai-routing.refresh", "must be between 1ms and 2s (route changes apply cluster-wide within it), got %s", r)
	}
	if u := c.Agent.Usage; u.Queue <= 0 || u.Batch <= 0 || u.Flush <= 0 {
		bad("xunzhi-agent.ai-usage", "queue, batch and flush must be positive")
	}
	switch c.AI.ResolvedProvider() {
	case "offline":
	case "openai":
		if c.AI.OpenAI.Model == "" {
			bad("ai.openai.model", "is required when ai.provider is openai")
		}
		if u, err := url.Parse(c.AI.OpenAI.BaseURL); err != nil || u.Host == "" {
			bad("ai.openai.base-url", "must be an http(s) URL, got %q", redact.URL(c.AI.OpenAI.BaseURL))
		}
	case "ollama":
		if c.AI.Ollama.Model == "" {
			bad("ai.ollama.model", "is required when ai.provider is ollama")
		}
	default:
		bad("ai.provider", "must be auto, offline, openai or ollama, got %q", c.AI.Provider)
	}
	sf := c.Agent.SingleFlight
	switch sf.Mode {
	case "local", "hybrid":
	case "distributed":
		if !c.Redis.Enabled() {
			bad("xunzhi-agent.ai-singleflight.mode", "distributed needs redis.addrs")
		}
	default:
		bad("xunzhi-agent.ai-singleflight.mode", "must be local, distributed or hybrid, got %q", sf.Mode)
	}
	for name, st := range sf.Stages {
		key := "xunzhi-agent.ai-singleflight.stages." + name
		if st.ResultTTL <= 0 || st.RunningLease <= 0 || st.Heartbeat <= 0 || st.TakeoverDetect <= 0 {
			bad(key, "result-ttl, running-lease, heartbeat and takeover-detect must be positive")
		}
		if st.Heartbeat >= st.RunningLease {
			bad(key+".heartbeat", "must be shorter than running-lease")
		}
	}
	for name, st := range c.Agent.Guard.Stages {
		key := "xunzhi-agent.ai-guard.stages." + name
		if st.Timeout <= 0 {
			bad(key+".timeout", "must be positive")
		}
		if st.MaxConcurrent < 0 || st.Retries < 0 {
			bad(key, "max-concurrent and retries must not be negative")
		}
	}
	br := c.Agent.Guard.Breaker
	if br.FailureRatio <= 0 || br.FailureRatio > 1 {
		bad("xunzhi-agent.ai-guard.breaker.failure-ratio", "must be in (0, 1], got %v", br.FailureRatio)
	}
	if br.Window < 1 || br.HalfOpenCalls < 1 || br.OpenFor <= 0 {
		bad("xunzhi-agent.ai-guard.breaker", "window, half-open-calls and open-for must be positive")
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// loopbackAddr reports whether addr is host:port with a loopback host: the
// profiler shows the process's memory and must not be reachable from
// elsewhere.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
