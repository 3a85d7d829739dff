package main

import (
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// dbRoute is a route that reads or writes the database.
type dbRoute struct {
	name, method, path string
	token              bool
	body               any
}

// dbRoutes touch the database on every call: accounts, AI settings, chat,
// agents, interviews and TTS.
func dbRoutes() []dbRoute {
	return []dbRoute{
		{"login", "POST", "/users/login", false, map[string]string{"username": "frozen", "password": "password-frozen"}},
		{"register", "POST", "/users/register", false, map[string]string{"username": "newcomer", "password": "password-newcomer"}},
		{"has-username", "GET", "/users/has-username?username=frozen", false, nil},
		{"me", "GET", "/users/me", true, nil},
		{"ai settings", "GET", "/ai-properties/enabled", true, nil},
		{"chat list", "GET", "/ai/conversations", true, nil},
		{"chat create", "POST", "/ai/conversations", true, map[string]string{"title": "t"}},
		{"agent sessions", "GET", "/agents/conversations", true, nil},
		{"interviews", "GET", "/interview/conversations", true, nil},
		{"interview create", "POST", "/interview/sessions", true, map[string]string{}},
		{"tts tasks", "GET", "/xunfei/tts/tasks", true, nil},
	}
}

// A frozen database (SIGSTOP) costs each request database.query-timeout
// plus at most a second, answered 503 B000002 on every route, while
// /healthz stays fast; after SIGCONT everything works again and no
// goroutine is left behind. A killed database is a 503 as well, and a
// restarted one is used again (issue 16: every request hung > 40 s).
func TestDatabaseFaults(t *testing.T) {
	const queryTimeout = 2 * time.Second
	const bound = queryTimeout + time.Second
	m := testenv.StartMariaDB(t)
	dsn := m.CreateDatabase(t, "aimeeting")
	s := servertest.Start(t, "", "DATABASE_DRIVER=mysql", "DATABASE_DSN="+dsn,
		"DATABASE_QUERY_TIMEOUT="+queryTimeout.String(), "DATABASE_MAX_OPEN_CONNS=8")
	MustRegisterLogin(t, s.URL, "frozen")
	token := MustRegisterLogin(t, s.URL, "frozen2").Token
	routes := dbRoutes()
	call := func(r dbRoute) (servertest.Response, time.Duration) {
		tok := ""
		if r.token {
			tok = token
		}
		start := time.Now()
		resp := servertest.Do(t, r.method, s.URL+api+r.path, tok, r.body)
		return resp, time.Since(start)
	}
	// The 503s, three concurrent calls of every route (more than the pool's
	// 8 connections: some wait for one).
	wantUnavailable := func(t *testing.T) {
		t.Helper()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var worst time.Duration
		for range 3 {
			for _, r := range routes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, took := call(r)
					mu.Lock()
					defer mu.Unlock()
					worst = max(worst, took)
					if resp.Status != 503 || resp.Code != "B000002" {
						t.Errorf("%s: %d %s (%s), want 503 B000002", r.name, resp.Status, resp.Code, resp.Raw)
					}
					if took > bound {
						t.Errorf("%s: answered after %v, want within %v", r.name, took, bound)
					}
				}()
			}
		}
		// Meanwhile the process itself answers at once.
		for range 5 {
			start := time.Now()
			wantStatus(t, servertest.Do(t, "GET", s.URL+"/healthz", "", nil), 200, "0")
			if took := time.Since(start); took > 500*time.Millisecond {
				t.Errorf("/healthz took %v with the database down", took)
			}
			time.Sleep(200 * time.Millisecond)
		}
		wg.Wait()
		t.Logf("%d calls answered 503 B000002; slowest %v (bound %v)", 3*len(routes), worst, bound)
	}
	// Recovery: every route answers without a 5xx within 15 s.
	wantRecovered := func(t *testing.T) {
		t.Helper()
		start := time.Now()
		for _, r := range routes {
			for {
				resp, _ := call(r)
				if resp.Status < 500 {
					break
				}
				if time.Since(start) > 15*time.Second {
					t.Fatalf("%s still %d %s 15 s after the database came back", r.name, resp.Status, resp.Code)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		t.Logf("all routes answer again %v after the database came back", time.Since(start).Round(time.Millisecond))
	}
	for _, r := range routes { // warm up: every route works, every pooled connection is open
		if resp, _ := call(r); resp.Status >= 500 {
			t.Fatalf("%s before any fault: %d %s", r.name, resp.Status, resp.Raw)
		}
	}
	before := goroutines(t, s.URL)

	t.Run("frozen", func(t *testing.T) {
		m.Freeze(t)
		thawed := false
		defer func() {
			if !thawed {
				m.Thaw(t)
			}
		}()
		wantUnavailable(t)
		m.Thaw(t)
		thawed = true
		wantRecovered(t)
	})
	t.Run("killed", func(t *testing.T) {
		m.Kill(t)
		wantUnavailable(t)
		m.Start(t)
		wantRecovered(t)
	})
	t.Run("no goroutine growth", func(t *testing.T) {
		// Timers of abandoned queries end within the query timeout.
		deadline := time.Now().Add(2 * bound)
		for {
			after := goroutines(t, s.URL)
			if after <= before+10 {
				t.Logf("goroutines: %d before the faults, %d after", before, after)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("goroutines: %d before the faults, %d after recovery", before, after)
			}
			time.Sleep(500 * time.Millisecond)
		}
	})
}

// goroutines reads go_goroutines from /metrics.
func goroutines(t *testing.T, base string) int {
	t.Helper()
	n, ok := servertest.Metric(t, base, "go_goroutines")
	if !ok {
		t.Fatal("no go_goroutines in /metrics")
	}
	return int(n)
}
