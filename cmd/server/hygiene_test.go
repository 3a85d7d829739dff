package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// API answers are neither sniffed nor stored, success or error alike; the
// page keeps its own caching.
func TestAPIResponseHeaders(t *testing.T) {
	_, srv := startInProcess(t)
	token := MustRegisterLogin(t, srv.URL, "headers").Token
	for _, tt := range []struct{ name, path, token string }{
		{"success", api + "/users/me", token},
		{"error", api + "/users/me", ""},
		{"unknown route", api + "/nope", token},
		{"health", "/healthz", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := servertest.Do(t, "GET", srv.URL+tt.path, tt.token, nil)
			if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
			}
			if got := r.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("page Cache-Control = %q, want its own no-cache", got)
	}
}

// A known path asked with another method is a 405 envelope with Allow.
func TestMethodNotAllowed(t *testing.T) {
	_, srv := startInProcess(t)
	for _, tt := range []struct{ method, path, allow string }{
		{"DELETE", api + "/users/login", "GET, POST"}, // GET is /users/{username}
		{"POST", api + "/users/me", "GET"},
		{"PATCH", "/healthz", "GET"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := servertest.Do(t, tt.method, srv.URL+tt.path, "", nil)
			wantStatus(t, r, 405, "A000405")
			if got := r.Header.Get("Allow"); got != tt.allow {
				t.Fatalf("Allow = %q, want %q", got, tt.allow)
			}
			if !strings.Contains(r.Message, tt.allow) {
				t.Fatalf("message %q does not say which methods are allowed", r.Message)
			}
		})
	}
	wantStatus(t, servertest.Do(t, "GET", srv.URL+api+"/no/such/path", "", nil), 404, "A000404")
}

// A forged X-Forwarded-For does not move an anonymous client to another
// rate-limit bucket: without trusted proxies the socket address counts.
// With the proxy trusted, the header does decide (the setting works).
func TestForgedForwardedForKeepsBucket(t *testing.T) {
	spend := func(t *testing.T, base string) (limited int) {
		for i := range 6 {
			req, err := http.NewRequest("GET", base+api+"/users/has-username?username=x", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1))
			req.Header.Set("X-Real-IP", fmt.Sprintf("198.51.100.%d", i+1))
			if r := servertest.Send(t, req); r.Status == 429 {
				limited++
			}
		}
		return limited
	}
	limits := []string{"RATE_LIMIT_ENABLED=true", "RATE_LIMIT_DEFAULT=2"}
	t.Run("untrusted", func(t *testing.T) {
		_, srv := startInProcess(t, limits...)
		if got := spend(t, srv.URL); got < 3 {
			t.Fatalf("%d of 6 requests with rotating X-Forwarded-For limited, want at least 3 (one bucket of 2/s)", got)
		}
	})
	t.Run("trusted proxy", func(t *testing.T) {
		_, srv := startInProcess(t, append(limits, "SERVER_TRUSTED_PROXIES=127.0.0.1")...)
		if got := spend(t, srv.URL); got != 0 {
			t.Fatalf("%d of 6 requests limited behind a trusted proxy, want 0 (one bucket per forwarded address)", got)
		}
	})
}

// Every Redis key the service writes starts with redis.key-prefix: after
// logins (token cache) and limited requests (rate-limit buckets), any key
// that mentions the prefix starts with it.
func TestRedisKeysUnderPrefix(t *testing.T) {
	rdb, prefix := testenv.Redis(t)
	_, srv := startInProcess(t, "REDIS_ADDRS="+testenv.RedisAddr(), "REDIS_KEY_PREFIX="+prefix, "RATE_LIMIT_ENABLED=true")
	token := MustRegisterLogin(t, srv.URL, "keys").Token
	wantStatus(t, me(t, srv.URL, token), 200, "0")
	t.Cleanup(func() { // keys outside the prefix would escape testenv's cleanup
		for _, k := range scanKeys(t, rdb, "*"+prefix+"*") {
			rdb.Del(context.Background(), k)
		}
	})
	keys := scanKeys(t, rdb, "*"+prefix+"*")
	var limits, tokens int
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			t.Errorf("key %q is outside redis.key-prefix %q", k, prefix)
		}
		switch {
		case strings.HasPrefix(k, prefix+"rl:"):
			limits++
		case strings.HasPrefix(k, prefix+"auth:token:"):
			tokens++
		}
	}
	if limits == 0 || tokens == 0 {
		t.Fatalf("keys %v: want rate-limit (%srl:) and token cache (%sauth:token:) keys", keys, prefix, prefix)
	}
}

// scanKeys lists the keys matching match.
func scanKeys(t *testing.T, rdb *redis.Client, match string) []string {
	t.Helper()
	var keys []string
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, match, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}
