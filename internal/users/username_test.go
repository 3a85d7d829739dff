package users

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/migrations"
)

func TestValidateUsername(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"chinese", "张伟", true},
		{"ascii", "alice", true},
		{"ascii with punctuation", "a.b_c-d", true},
		{"two characters", "ab", true},
		{"mixed scripts and digits", "王小明2024", true},
		{"cyrillic", "Иван", true},
		{"devanagari with marks", "नमस्ते", true},
		{"32 runes", strings.Repeat("张", 32), true},
		{"empty", "", false},
		{"one character", "张", false},
		{"33 runes", strings.Repeat("张", 33), false},
		{"emoji", "张伟😀", false},
		{"emoji with variation selector", "a\u2764\ufe0f", false},
		{"letter with variation selector", "ab\ufe0f", false},
		{"space", "张 伟", false},
		{"ideographic space", "张\u3000伟", false},
		{"at sign", "alice@x", false},
		{"control", "al\x00ice", false},
		{"leading mark", "\u0301ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateUsername(NormalizeUsername(tt.in))
			if tt.ok && err != nil {
				t.Fatalf("ValidateUsername(%q) = %v, want ok", tt.in, err)
			}
			if !tt.ok {
				wantKind(t, err, apperr.KindInvalid)
				if !strings.Contains(err.Error(), "2 to 32 characters") {
					t.Fatalf("error %q does not state the rule", err)
				}
			}
		})
	}
}

func TestUsernameKey(t *testing.T) {
	same := [][]string{
		{"alice", "Alice", "ALICE", "ＡＬＩＣＥ", "\u0430lice", "ali\u0441e", "\u0391LICE"},
		{"张伟", "张伟"},
		{"café", "cafe\u0301", "CAFÉ"},
		{"paypal", "р\u0430yp\u0430l", "\u0440aypal"},
	}
	for _, group := range same {
		want := UsernameKey(NormalizeUsername(group[0]))
		for _, n := range group[1:] {
			if got := UsernameKey(NormalizeUsername(n)); got != want {
				t.Errorf("UsernameKey(%q) = %q, want %q as for %q", n, got, want, group[0])
			}
		}
	}
	for _, pair := range [][2]string{{"alice", "alicf"}, {"张伟", "张伟伟"}, {"café", "cafe"}} {
		if UsernameKey(pair[0]) == UsernameKey(pair[1]) {
			t.Errorf("%q and %q share a key", pair[0], pair[1])
		}
	}
	for _, n := range []string{"alice", "Bob_1.x-Y", "ABC"} { // the migration computes LOWER(username)
		if got := UsernameKey(n); got != strings.ToLower(n) {
			t.Errorf("UsernameKey(%q) = %q, want the lower-cased ASCII name", n, got)
		}
	}
}

func TestUnicodeUsernames(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc, _ := MustService(t, gdb, nil)
		zw := MustRegister(t, svc, "张伟")
		if zw.Username != "张伟" || zw.UsernameKey != "张伟" {
			t.Fatalf("registered %q key %q", zw.Username, zw.UsernameKey)
		}
		MustRegister(t, svc, "alice")
		for _, dup := range []string{"\u0430lice", "ＡＬＩＣＥ", "Alice", "ali\u0441e", " alice "} {
			_, err := svc.Register(ctx, "192.0.2.1", RegisterInput{Username: dup, Password: "password1"})
			wantKind(t, err, apperr.KindConflict)
			if !strings.Contains(err.Error(), "looks the same") {
				t.Fatalf("register %q: %v; want the conflict explained", dup, err)
			}
			free, err := svc.UsernameFree(ctx, dup)
			if err != nil || free {
				t.Fatalf("UsernameFree(%q) = %v, %v; want taken", dup, free, err)
			}
		}
		// NFC: é typed as e + combining acute is the same account.
		cafe := MustRegister(t, svc, "café")
		if cafe.Username != "caf\u00e9" {
			t.Fatalf("stored %q, want NFC", cafe.Username)
		}
		_, err := svc.Register(ctx, "192.0.2.1", RegisterInput{Username: "cafe\u0301", Password: "password1"})
		wantKind(t, err, apperr.KindConflict)
		res, err := svc.Login(ctx, "192.0.2.1", "cafe\u0301", "password-café")
		if err != nil || res.Username != "café" {
			t.Fatalf("login in NFD = %+v, %v; want café", res, err)
		}
		res, err = svc.Login(ctx, "192.0.2.1", "ＡＬＩＣＥ", "password-alice")
		if err != nil || res.Username != "alice" {
			t.Fatalf("login as ＡＬＩＣＥ = %+v, %v; want alice", res, err)
		}
		tok := MustLogin(t, svc, "张伟")
		if u, err := svc.Authenticate(ctx, tok); err != nil || u.ID != zw.ID {
			t.Fatalf("Authenticate 张伟 = %+v, %v", u, err)
		}
		if _, err := svc.Login(ctx, "192.0.2.1", "张伟伟", "password-张伟"); apperr.KindOf(err) != apperr.KindUnauthenticated {
			t.Fatalf("login as another name: %v", err)
		}
		// The unique index holds even if the service check is bypassed.
		_, err = svc.store.CreateUser(ctx, User{ID: "x1", Username: "ALİCE", UsernameKey: "alice",
			PasswordHash: "x", CreatedAt: time.Now(), UpdatedAt: time.Now()})
		if err != ErrDuplicate {
			t.Fatalf("store insert with a taken key: %v, want ErrDuplicate", err)
		}
	})
}

// The 00009 migration gives existing (ASCII) accounts their key; of names
// that differ only in case, the oldest gets it.
func TestUsernameKeyMigration(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		sqlDB, err := gdb.DB()
		if err != nil {
			t.Fatal(err)
		}
		dialect := goose.DialectMySQL
		if gdb.Dialector.Name() == "sqlite" {
			dialect = goose.DialectSQLite3
		}
		fsys, err := migrations.For(string(dialect))
		if err != nil {
			t.Fatal(err)
		}
		p, err := goose.NewProvider(dialect, sqlDB, fsys)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(ctx, 8); err != nil { // 00009's Down, on both dialects
			t.Fatal(err)
		}
		now := time.Now().UTC()
		rows := [][2]string{{"01a", "Bob"}, {"01b", "alice"}, {"01c", "carol.x"}}
		if dialect == goose.DialectSQLite3 { // a case-only twin, possible before on SQLite only
			rows = append(rows, [2]string{"01d", "BOB"})
		}
		for _, r := range rows {
			mustExec(t, sqlDB, "INSERT INTO users (id, username, password_hash, created_at, updated_at) VALUES (?, ?, 'x', ?, ?)",
				r[0], r[1], now, now)
		}
		if err := db.Migrate(ctx, sqlDB, dialect); err != nil {
			t.Fatal(err)
		}
		store := NewGormStore(gdb)
		for id, want := range map[string]string{"01a": "bob", "01b": "alice", "01c": "carol.x"} {
			u, err := store.UserByID(ctx, id)
			if err != nil || u.UsernameKey != want {
				t.Fatalf("user %s key = %q, %v; want %q", id, u.UsernameKey, err, want)
			}
		}
		if dialect == goose.DialectSQLite3 {
			if u, _ := store.UserByID(ctx, "01d"); u.UsernameKey != "" {
				t.Fatalf("younger case twin got key %q, want none", u.UsernameKey)
			}
		}
		svc, _ := MustService(t, gdb, nil)
		_, err = svc.Register(ctx, "192.0.2.1", RegisterInput{Username: "ＢＯＢ", Password: "password1"})
		wantKind(t, err, apperr.KindConflict)
	})
}

func mustExec(t *testing.T, sqlDB *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := sqlDB.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
