package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEnvName(t *testing.T) {
	tests := map[string]string{
		"server.port":                       "SERVER_PORT",
		"database.driver":                   "DATABASE_DRIVER",
		"ai.openai.base-url":                "AI_OPENAI_BASE_URL",
		"xunzhi-agent.ai-singleflight.mode": "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE",
	}
	for key, want := range tests {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, _, err := loadConfig("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Port != 8080 || cfg.Database.Driver != "sqlite" || cfg.Database.DSN != filepath.Join("data", "aimeeting.db") ||
		cfg.AI.ResolvedProvider() != "offline" || cfg.Agent.SingleFlight.Mode != "hybrid" {
		t.Fatalf("defaults = %+v", cfg)
	}
	if got := cfg.Agent.SingleFlight.Stages["interview-evaluation"]; got.TakeoverDetect != 10*time.Second || got.Heartbeat != 3*time.Second {
		t.Fatalf("evaluation stage defaults = %+v", got)
	}

	file := filepath.Join(t.TempDir(), "custom.yaml")
	if err := os.WriteFile(file, []byte("server:\n  port: 9090\nredis:\n  addrs: 127.0.0.1:6379\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err = loadConfig(file, []string{
		"DATABASE_DRIVER=mysql", "DATABASE_DSN=root@tcp(127.0.0.1:3306)/x",
		"XUNZHI_AGENT_AI_SINGLEFLIGHT_STAGES_INTERVIEW_EVALUATION_TAKEOVER_DETECT=4s",
		"AI_OPENAI_API_KEY=sk-test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Port != 9090 || cfg.Redis.AddrList()[0] != "127.0.0.1:6379" || cfg.Database.Driver != "mysql" {
		t.Fatalf("file and env overrides not applied: %+v", cfg)
	}
	if got := cfg.Agent.SingleFlight.Stages["interview-evaluation"].TakeoverDetect; got != 4*time.Second {
		t.Fatalf("nested env override: takeover-detect = %v", got)
	}
	if cfg.AI.ResolvedProvider() != "openai" {
		t.Fatalf("auto provider with a key = %q, want openai", cfg.AI.ResolvedProvider())
	}
}

func TestLoadConfigRejects(t *testing.T) {
	t.Chdir(t.TempDir())
	file := filepath.Join(t.TempDir(), "typo.yaml")
	if err := os.WriteFile(file, []byte("server:\n  prot: 9090\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		env        []string
		want       string
	}{
		{"unknown key in file", file, nil, "prot"},
		{"port not a number", "", []string{"SERVER_PORT=abc"}, "port"},
		{"mysql without dsn", "", []string{"DATABASE_DRIVER=mysql"}, "database.dsn"},
		{"distributed without redis", "", []string{"XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=distributed"}, "redis.addrs"},
		{"credentials with wildcard", "", []string{"SERVER_CORS_ALLOWED_ORIGINS=*", "SERVER_CORS_ALLOW_CREDENTIALS=true"}, "server.cors.allowed-origins"},
		{"heartbeat over lease", "", []string{"XUNZHI_AGENT_AI_SINGLEFLIGHT_STAGES_INTERVIEW_EVALUATION_HEARTBEAT=20s"}, "interview-evaluation.heartbeat"},
		{"no decoders", "", []string{"SPEECH_POCKETSPHINX_MAX_DECODERS=0"}, "speech.pocketsphinx.max-decoders"},
		{"user share over the total", "", []string{"SPEECH_POCKETSPHINX_MAX_DECODERS_PER_USER=3"}, "speech.pocketsphinx.max-decoders-per-user"},
		{"idle release zero", "", []string{"SPEECH_POCKETSPHINX_IDLE_RELEASE=0s"}, "speech.pocketsphinx.idle-release"},
		{"bad base URL masked", "", []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=//u:planted-pw@/?key=planted-k"}, "ai.openai.base-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadConfig(tt.file, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "planted") {
				t.Fatalf("err = %v shows a URL secret", err)
			}
		})
	}
}

// storage.url defaults to a directory under the data dir; STORAGE_URL
// takes the documented S3 form; another scheme names the key to fix.
func TestStorageConfig(t *testing.T) {
	cfg, _, err := loadConfig("", []string{"DATA_DIR=/srv/aimeeting"})
	if err != nil || cfg.Storage.URL != "file:///srv/aimeeting/files" || cfg.Storage.SweepGrace <= 0 {
		t.Fatalf("default storage = %+v, %v", cfg.Storage, err)
	}
	s3 := "s3://aimeeting?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true"
	cfg, v, err := loadConfig("", []string{"STORAGE_URL=" + s3, "STORAGE_PRESIGN=5m"})
	if err != nil || cfg.Storage.URL != s3 || cfg.Storage.Presign != 5*time.Minute {
		t.Fatalf("STORAGE_URL: %+v, %v", cfg.Storage, err)
	}
	out, err := printConfig(v, cfg)
	if err != nil || !strings.Contains(string(out), "use_path_style=true") {
		t.Fatalf("print-config: %s %v", out, err)
	}
	if _, _, err := loadConfig("", []string{"STORAGE_URL=ftp://files"}); err == nil || !strings.Contains(err.Error(), "storage.url") {
		t.Fatalf("ftp:// accepted or not named: %v", err)
	}
}
