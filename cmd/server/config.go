package main

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/xunzhi-ai/aimeeting"
	"github.com/xunzhi-ai/aimeeting/internal/app"
	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

// loadConfig reads the embedded defaults (application.yaml), then the file
// at path (when path is ""; ./application.yaml if present), then environment
// variables named after each key (server.port -> SERVER_PORT).
func loadConfig(path string, environ []string) (app.Config, *viper.Viper, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(aimeeting.DefaultConfig)); err != nil {
		return app.Config{}, nil, fmt.Errorf("embedded application.yaml: %w", err)
	}
	if path == "" {
		if _, err := os.Stat("application.yaml"); err == nil {
			path = "application.yaml"
		}
	}
	if path != "" {
		f, err := os.ReadFile(path)
		if err != nil {
			return app.Config{}, nil, fmt.Errorf("read config file: %w", err)
		}
		if err := v.MergeConfig(bytes.NewReader(f)); err != nil {
			return app.Config{}, nil, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	// Environment overrides: every known key, looked up under its variable
	// name. Done by hand rather than AutomaticEnv so the variables come from
	// environ (testable) and nested map keys (stages) work.
	env := map[string]string{}
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok {
			env[k] = val
		}
	}
	for _, key := range v.AllKeys() {
		if val, ok := env[EnvName(key)]; ok {
			v.Set(key, val)
		}
	}
	var cfg app.Config
	err := v.UnmarshalExact(&cfg, viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)))
	if err != nil {
		return app.Config{}, nil, fmt.Errorf("invalid configuration: %w", err)
	}
	cfg.Normalize()
	if err := cfg.Validate(); err != nil {
		return app.Config{}, nil, err
	}
	return cfg, v, nil
}

// EnvName is the environment variable that overrides key.
func EnvName(key string) string {
	return strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// secretKeys are masked wherever configuration is printed.
var secretKeys = []string{"password", "api-key", "api-secret", "secret"}

// isSecret reports whether key holds a secret.
func isSecret(key string) bool {
	last := key[strings.LastIndex(key, ".")+1:]
	for _, s := range secretKeys {
		if last == s {
			return true
		}
	}
	return false
}

// mask hides all but a hint of a secret.
func mask(s string) string {
	if s == "" {
		return ""
	}
	return "******"
}

// printConfig writes the effective configuration as YAML, secrets masked:
// secret keys, the DSN's password and the secrets inside URLs.
func printConfig(v *viper.Viper, cfg app.Config) ([]byte, error) {
	settings := map[string]any{}
	keys := v.AllKeys()
	sort.Strings(keys)
	for _, key := range keys {
		val := v.Get(key)
		if isSecret(key) {
			val = mask(fmt.Sprint(val))
		}
		if str, ok := val.(string); ok && strings.Contains(str, "://") {
			// Provider URLs may carry user:password@ or ?key=.
			val = redact.URL(str)
		}
		if key == "database.dsn" {
			val = cfg.Database.DSN
			if cfg.Database.Driver == "mysql" {
				val = maskDSN(cfg.Database.DSN)
			}
		}
		setPath(settings, strings.Split(key, "."), val)
	}
	return yaml.Marshal(settings)
}

// maskDSN hides the password of a MySQL DSN.
func maskDSN(dsn string) string {
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "******"
	}
	if mc.Passwd != "" {
		mc.Passwd = "******"
	}
	return mc.FormatDSN()
}

func setPath(m map[string]any, path []string, val any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = val
}
