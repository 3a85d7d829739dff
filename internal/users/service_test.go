package users

import (
	"context"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex // protects t
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func MustService(tb testing.TB, gdb *gorm.DB, cache TokenCache) (*Service, *clock) {
	tb.Helper()
	svc, err := NewService(NewGormStore(gdb), cache, nil, Config{TokenTTL: 30 * 24 * time.Hour, TokenIdleTTL: 7 * 24 * time.Hour, BcryptCost: 4})
	if err != nil {
		tb.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc.now = c.now
	return svc, c
}

func MustRegister(tb testing.TB, svc *Service, name string) User {
	tb.Helper()
	u, err := svc.Register(context.Background(), "192.0.2.1", RegisterInput{Username: name, Password: "password-" + name})
	if err != nil {
		tb.Fatalf("register %s: %v", name, err)
	}
	return u
}

func MustLogin(tb testing.TB, svc *Service, name string) string {
	tb.Helper()
	res, err := svc.Login(context.Background(), "192.0.2.1", name, "password-"+name)
	if err != nil {
		tb.Fatalf("login %s: %v", name, err)
	}
	return res.Token
}

func wantKind(t *testing.T, err error, kind apperr.Kind) {
	t.Helper()
	if got := apperr.KindOf(err); err == nil || got != kind {
		t.Fatalf("err = %v (kind %d), want kind %d", err, got, kind)
	}
}

func TestRegisterAndLogin(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc, _ := MustService(t, gdb, nil)
		first := MustRegister(t, svc, "alice")
		second := MustRegister(t, svc, "bob")
		if !first.IsAdmin || second.IsAdmin {
			t.Fatalf("admin flags = %v, %v; want only the first user admin", first.IsAdmin, second.IsAdmin)
		}
		if first.PasswordHash == "password-alice" || first.PasswordHash == "" {
			t.Fatalf("password stored as %q, want a bcrypt hash", first.PasswordHash)
		}
		_, err := svc.Register(ctx, "192.0.2.1", RegisterInput{Username: "alice", Password: "another-password"})
		wantKind(t, err, apperr.KindConflict)

		_, err = svc.Login(ctx, "192.0.2.1", "alice", "wrong-password")
		wantKind(t, err, apperr.KindUnauthenticated)
		_, err = svc.Login(ctx, "192.0.2.1", "nobody", "wrong-password")
		wantKind(t, err, apperr.KindUnauthenticated)

		tok := MustLogin(t, svc, "alice")
		got, err := svc.Authenticate(ctx, tok)
		if err != nil || got.ID != first.ID {
			t.Fatalf("Authenticate = %v, %v; want alice", got.Username, err)
		}
		free, err := svc.UsernameFree(ctx, "alice")
		if err != nil || free {
			t.Fatalf("UsernameFree(alice) = %v, %v; want false", free, err)
		}
		free, err = svc.UsernameFree(ctx, "carol")
		if err != nil || !free {
			t.Fatalf("UsernameFree(carol) = %v, %v; want true", free, err)
		}
		res, err := svc.Page(ctx, page.Request{Current: 1, Size: 1}, "")
		if err != nil || res.Total != 2 || len(res.Records) != 1 || res.Pages != 2 {
			t.Fatalf("Page = %+v, %v; want 2 users over 2 pages", res, err)
		}
		res, err = svc.Page(ctx, page.Request{Current: 1, Size: 10}, "bo")
		if err != nil || res.Total != 1 || res.Records[0].Username != "bob" {
			t.Fatalf("Page(keyword bo) = %+v, %v", res, err)
		}
		res, err = svc.Page(ctx, page.Request{Current: 1, Size: 10}, "%")
		if err != nil || res.Total != 0 {
			t.Fatalf("Page(keyword %%) = %d records, %v; want the wildcard matched literally", res.Total, err)
		}
	})
}

func TestRegisterValidation(t *testing.T) {
	svc, _ := MustService(t, dbtest.SQLite(t), nil)
	tests := []struct {
		name string
		in   RegisterInput
	}{
		{"empty username", RegisterInput{Password: "password1"}},
		{"short username", RegisterInput{Username: "a", Password: "password1"}},
		{"username with space", RegisterInput{Username: "a b c", Password: "password1"}},
		{"short password", RegisterInput{Username: "alice", Password: "short"}},
		{"long password", RegisterInput{Username: "alice", Password: string(make([]byte, 73))}},
		{"bad mail", RegisterInput{Username: "alice", Password: "password1", Mail: "not-a-mail"}},
		{"bad phone", RegisterInput{Username: "alice", Password: "password1", Phone: "call me"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Register(context.Background(), "192.0.2.1", tt.in)
			wantKind(t, err, apperr.KindInvalid)
		})
	}
	res, err := svc.Page(context.Background(), page.Request{Current: 1, Size: 10}, "")
	if err != nil || res.Total != 0 {
		t.Fatalf("after invalid registrations: %d users, %v; want none written", res.Total, err)
	}
}

func TestTokenLifetime(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc, clk := MustService(t, gdb, nil)
		MustRegister(t, svc, "alice")

		tok := MustLogin(t, svc, "alice")
		clk.add(6 * 24 * time.Hour) // used within the idle limit
		if _, err := svc.Authenticate(ctx, tok); err != nil {
			t.Fatalf("after 6 days: %v", err)
		}
		clk.add(6 * 24 * time.Hour) // the use above renewed it
		if _, err := svc.Authenticate(ctx, tok); err != nil {
			t.Fatalf("6 days after last use: %v", err)
		}
		clk.add(7*24*time.Hour + time.Second)
		_, err := svc.Authenticate(ctx, tok)
		wantKind(t, err, apperr.KindUnauthenticated)

		tok = MustLogin(t, svc, "alice")
		for range 4 { // keep it busy for 24 days
			clk.add(6 * 24 * time.Hour)
			if _, err := svc.Authenticate(ctx, tok); err != nil {
				t.Fatalf("active token before 30 days: %v", err)
			}
		}
		clk.add(6*24*time.Hour + time.Second) // past the absolute 30 days
		_, err = svc.Authenticate(ctx, tok)
		wantKind(t, err, apperr.KindUnauthenticated)
	})
}

func TestRevocation(t *testing.T) {
	r, prefix := testenv.Redis(t)
	caches := map[string]TokenCache{"no cache": nil, "redis cache": NewRedisTokenCache(r, prefix, nil, time.Second)}
	for name, cache := range caches {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			svc, _ := MustService(t, dbtest.SQLite(t), cache)
			MustRegister(t, svc, "alice")
			a, b := MustLogin(t, svc, "alice"), MustLogin(t, svc, "alice")
			for _, tok := range []string{a, b} { // fill the cache
				if _, err := svc.Authenticate(ctx, tok); err != nil {
					t.Fatal(err)
				}
			}
			if err := svc.Logout(ctx, a); err != nil {
				t.Fatal(err)
			}
			_, err := svc.Authenticate(ctx, a)
			wantKind(t, err, apperr.KindUnauthenticated)

			c := MustLogin(t, svc, "alice")
			if _, err := svc.Authenticate(ctx, c); err != nil {
				t.Fatal(err)
			}
			pw := "a-new-password"
			u, _ := svc.store.UserByUsername(ctx, "alice")
			if _, err := svc.Update(ctx, u.ID, b, UpdateInput{Password: &pw}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Authenticate(ctx, b); err != nil {
				t.Fatalf("the token that changed the password: %v", err)
			}
			_, err = svc.Authenticate(ctx, c)
			wantKind(t, err, apperr.KindUnauthenticated)
			if _, err := svc.Login(ctx, "192.0.2.1", "alice", pw); err != nil {
				t.Fatalf("login with the new password: %v", err)
			}
		})
	}
}

// Regression guard for the first-admin race: two instances registering on
// an empty database must not both become admin.
func TestConcurrentFirstRegistration(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		svc, _ := MustService(t, gdb, nil)
		const n = 8
		var wg sync.WaitGroup
		admins := make(chan bool, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				u, err := svc.Register(context.Background(), "192.0.2.1", RegisterInput{Username: "user" + string(rune('a'+i)) + "xx", Password: "password1"})
				if err != nil {
					t.Errorf("register: %v", err)
					return
				}
				admins <- u.IsAdmin
			}()
		}
		close(start)
		wg.Wait()
		close(admins)
		count := 0
		for a := range admins {
			if a {
				count++
			}
		}
		if count != 1 {
			t.Fatalf("%d admins after %d concurrent first registrations, want 1", count, n)
		}
	})
}

func TestUpdateLanguage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc, _ := MustService(t, gdb, nil)
		u := MustRegister(t, svc, "张伟")
		if u.Language != "" {
			t.Fatalf("new user language = %q, want none", u.Language)
		}
		for _, tc := range []struct {
			name, in, want string
			kind           apperr.Kind
		}{
			{"chinese", "zh-CN", "zh-CN", 0},
			{"english", "en", "en", 0},
			{"unknown", "fr", "en", apperr.KindInvalid},
			{"lower case", "zh-cn", "en", apperr.KindInvalid},
			{"forget", "", "", 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				lang := tc.in
				_, err := svc.Update(ctx, u.ID, "", UpdateInput{Language: &lang})
				if tc.kind != 0 {
					wantKind(t, err, tc.kind)
				} else if err != nil {
					t.Fatal(err)
				}
				got, err := svc.User(ctx, u.ID)
				if err != nil || got.Language != tc.want {
					t.Fatalf("stored language = %q, %v; want %q", got.Language, err, tc.want)
				}
			})
		}
		lang := "zh-CN"
		if _, err := svc.Update(ctx, u.ID, "", UpdateInput{Language: &lang}); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Login(ctx, "192.0.2.1", "张伟", "password-张伟")
		if err != nil || res.Language != "zh-CN" {
			t.Fatalf("login language = %q, %v; want zh-CN", res.Language, err)
		}
	})
}

// countingStore counts the store calls authentication makes.
type countingStore struct {
	Store
	mu    sync.Mutex // protects calls
	calls int
}

func (s *countingStore) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.calls }
func (s *countingStore) inc()       { s.mu.Lock(); s.calls++; s.mu.Unlock() }

func (s *countingStore) TokenByHash(ctx context.Context, hash string) (Token, error) {
	s.inc()
	return s.Store.TokenByHash(ctx, hash)
}

func (s *countingStore) UserByID(ctx context.Context, id string) (User, error) {
	s.inc()
	return s.Store.UserByID(ctx, id)
}

// A cached token carries its user: authenticating is one cache read and
// no query, and a change of the user made on another instance (profile,
// admin flag) is seen at the next request (issue 21).
func TestAuthenticateFromCache(t *testing.T) {
	r, prefix := testenv.Redis(t)
	ctx := context.Background()
	gdb := dbtest.SQLite(t)
	cache := NewRedisTokenCache(r, prefix, nil, time.Second)
	other, _ := MustService(t, gdb, cache) // another instance
	svc, _ := MustService(t, gdb, cache)
	store := &countingStore{Store: svc.store}
	svc.store = store
	// The cache's lifetimes are real time.
	other.now = func() time.Time { return time.Now().UTC() }
	svc.now = other.now
	MustRegister(t, other, "root") // the first account is admin
	u := MustRegister(t, other, "bob")
	tok := MustLogin(t, other, "bob")

	if _, err := svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	before := store.count()
	got, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if n := store.count() - before; n != 0 {
		t.Errorf("a cached token made %d queries, want 0", n)
	}
	if got.ID != u.ID || got.Username != "bob" || got.PasswordHash != "" {
		t.Errorf("cached user = %+v, want bob without a password hash", got)
	}

	name := "Bob Builder"
	if _, err := other.Update(ctx, u.ID, tok, UpdateInput{RealName: &name}); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Authenticate(ctx, tok); err != nil || got.RealName != name {
		t.Fatalf("after a profile change: %+v %v, want real name %q", got, err, name)
	}
	if _, err := other.GrantAdmin(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Authenticate(ctx, tok); err != nil || !got.IsAdmin {
		t.Fatalf("after admin grant: %+v %v, want an admin", got, err)
	}
}
