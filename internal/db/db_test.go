package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&mysql.MySQLError{Number: 1213}, true},
		{fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: 1205}), true},
		{&mysql.MySQLError{Number: 1062}, false},
		{driver.ErrBadConn, true},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{errors.New("record not found"), false},
	}
	for _, tt := range tests {
		if got := IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestTranslate(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	known := apperr.NotFound("session")
	tests := []struct {
		name string
		err  error
		kind apperr.Kind // of the translated error; -1: returned unchanged
	}{
		{"nil", nil, -1},
		{"deadlock", fmt.Errorf("create session: %w", deadlock), apperr.KindUnavailable},
		{"bad conn", driver.ErrBadConn, apperr.KindUnavailable},
		{"refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, apperr.KindUnavailable},
		{"duplicate", &mysql.MySQLError{Number: 1062}, -1},
		{"not found", gorm.ErrRecordNotFound, -1},
		{"already classified", known, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Translate(tt.err)
			if tt.kind < 0 {
				if got != tt.err {
					t.Fatalf("Translate(%v) = %v, want it unchanged", tt.err, got)
				}
				return
			}
			e := apperr.As(got)
			if e == nil || e.Kind != tt.kind || e.Code != apperr.CodeUnavailable || !e.Retryable {
				t.Fatalf("Translate(%v) = %#v, want a retryable %v/%s", tt.err, e, tt.kind, apperr.CodeUnavailable)
			}
			if !errors.Is(got, tt.err) {
				t.Fatalf("Translate(%v) lost its cause", tt.err)
			}
		})
	}
}

// TestTranslateCallback checks that every store's queries are translated:
// a transient driver error injected into a gorm operation reaches the caller
// as a retryable unavailable error that still wraps the driver error.
func TestTranslateCallback(t *testing.T) {
	gdb, err := Open(context.Background(), Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Close(gdb) })
	inject := func(tx *gorm.DB) { _ = tx.AddError(driver.ErrBadConn) }
	if err := gdb.Callback().Query().Before(translateCallback).Register("test:inject", inject); err != nil {
		t.Fatal(err)
	}
	var n int
	err = gdb.Table("users").Select("count(*)").Find(&n).Error
	if e := apperr.As(err); e == nil || e.Kind != apperr.KindUnavailable || !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("query error = %v, want unavailable wrapping driver.ErrBadConn", err)
	}
	// A real query error that is not transient passes through untouched.
	if err := gdb.Exec("SELECT * FROM no_such_table").Error; err == nil || apperr.As(err) != nil {
		t.Fatalf("missing table error = %v, want an unclassified error", err)
	}
}

// TestTranslateLockWaitTimeoutMySQL makes a real transient failure on
// MariaDB/MySQL (a lock wait timeout, error 1205) and checks that the store
// boundary hands it over translated.
func TestTranslateLockWaitTimeoutMySQL(t *testing.T) {
	gdb := openMySQL(t)
	for _, q := range []string{"CREATE TABLE lock_probe (id INT PRIMARY KEY, v INT)", "INSERT INTO lock_probe VALUES (1, 0)"} {
		if err := gdb.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	holder := gdb.Begin()
	t.Cleanup(func() { holder.Rollback() })
	var v int
	if err := holder.Raw("SELECT v FROM lock_probe WHERE id = 1 FOR UPDATE").Scan(&v).Error; err != nil {
		t.Fatal(err)
	}
	err := gdb.Connection(func(tx *gorm.DB) error {
		if err := tx.Exec("SET SESSION innodb_lock_wait_timeout = 1").Error; err != nil {
			return err
		}
		return tx.Exec("UPDATE lock_probe SET v = 1 WHERE id = 1").Error
	})
	var me *mysql.MySQLError
	e := apperr.As(err)
	if e == nil || e.Kind != apperr.KindUnavailable || !e.Retryable || !errors.As(err, &me) || me.Number != 1205 {
		t.Fatalf("err = %v, want a retryable unavailable error wrapping MySQL error 1205", err)
	}
}

// Every MySQL connection runs its transactions at READ COMMITTED (set once
// per connection), whatever the server's default, and a transaction sends
// no SET TRANSACTION of its own.
func TestReadCommittedMySQL(t *testing.T) {
	ctx := context.Background()
	gdb := openMySQL(t)
	sqlDB, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(3)
	var server string
	if err := gdb.Raw("SELECT @@GLOBAL.tx_isolation").Scan(&server).Error; err != nil {
		if err := gdb.Raw("SELECT @@GLOBAL.transaction_isolation").Scan(&server).Error; err != nil {
			t.Fatal(err)
		}
	}
	// Three connections at once: each was set up by the connector.
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			errs <- Transaction(ctx, gdb, func(tx *gorm.DB) error {
				var level string
				if err := tx.Raw("SELECT @@SESSION.tx_isolation").Scan(&level).Error; err != nil {
					if err := tx.Raw("SELECT @@SESSION.transaction_isolation").Scan(&level).Error; err != nil {
						return err
					}
				}
				if level != "READ-COMMITTED" {
					return fmt.Errorf("transaction isolation %q, want READ-COMMITTED (server default %q)", level, server)
				}
				time.Sleep(50 * time.Millisecond) // hold the connection: the others open their own
				return nil
			})
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("server default %s, connections READ-COMMITTED", server)
}

func TestLikePattern(t *testing.T) {
	if got := LikePattern("50%_a!"); got != "%50!%!_a!!%" {
		t.Fatalf("LikePattern = %q", got)
	}
}

// TestQueryTimeoutMySQL checks database.query-timeout on a real server:
// a slow statement, a statement inside a transaction and the wait for a
// pooled connection each end within the bound as a retryable 503-kind
// error; a caller's own earlier deadline stays the caller's.
func TestQueryTimeoutMySQL(t *testing.T) {
	const bound = 300 * time.Millisecond
	gdb, err := Open(context.Background(), Config{Driver: "mysql", DSN: testenv.MySQL(t), MaxOpenConns: 1, QueryTimeout: bound})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Close(gdb) })
	wantTimeout := func(t *testing.T, start time.Time, err error) {
		t.Helper()
		if took := time.Since(start); took > bound+time.Second {
			t.Errorf("took %v, want at most %v", took, bound+time.Second)
		}
		e := apperr.As(err)
		if e == nil || e.Kind != apperr.KindUnavailable || e.Code != apperr.CodeUnavailable || !errors.Is(err, ErrQueryTimeout) {
			t.Fatalf("err = %v, want unavailable %s wrapping ErrQueryTimeout", err, apperr.CodeUnavailable)
		}
	}
	ctx := context.Background()
	t.Run("query", func(t *testing.T) {
		start := time.Now()
		var n int
		wantTimeout(t, start, gdb.WithContext(ctx).Raw("SELECT SLEEP(3)").Scan(&n).Error)
	})
	t.Run("exec", func(t *testing.T) {
		start := time.Now()
		wantTimeout(t, start, gdb.WithContext(ctx).Exec("DO SLEEP(3)").Error)
	})
	t.Run("transaction", func(t *testing.T) {
		start := time.Now()
		err := gdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			return tx.Exec("DO SLEEP(3)").Error
		})
		wantTimeout(t, start, err)
	})
	t.Run("pool wait", func(t *testing.T) {
		sqlDB, err := gdb.DB()
		if err != nil {
			t.Fatal(err)
		}
		held, err := sqlDB.Conn(ctx) // the only connection
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		start := time.Now()
		var n int
		wantTimeout(t, start, gdb.WithContext(ctx).Raw("SELECT 1").Scan(&n).Error)
	})
	t.Run("caller deadline", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		var n int
		err := gdb.WithContext(cctx).Raw("SELECT SLEEP(3)").Scan(&n).Error
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrQueryTimeout) {
			t.Fatalf("err = %v, want the caller's deadline, not the query timeout", err)
		}
	})
	t.Run("recovers", func(t *testing.T) {
		var n int
		if err := gdb.WithContext(ctx).Raw("SELECT 7").Scan(&n).Error; err != nil || n != 7 {
			t.Fatalf("SELECT 7 = %d, %v", n, err)
		}
	})
}

// A guarded script stores its statements only when its guard changed a
// row, in one transaction; a lost guard or a failing statement leaves
// nothing behind, and the connection goes back to the pool with no
// transaction open.
func TestGuardedScriptMySQL(t *testing.T) {
	ctx := context.Background()
	gdb := openMySQL(t)
	sqlDB, _ := gdb.DB()
	sqlDB.SetMaxOpenConns(1) // every call below on the same connection
	for _, q := range []string{"CREATE TABLE guard_probe (id INT PRIMARY KEY, v INT)", "INSERT INTO guard_probe VALUES (1, 0)",
		"CREATE TABLE guard_child (id INT PRIMARY KEY, note VARCHAR(20))"} {
		if err := gdb.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	cas := func(from int) Stmt {
		return Stmt{SQL: "UPDATE guard_probe SET v = v + 1 WHERE id = 1 AND v = ?", Vars: []any{from}}
	}
	child := func(id int, note string) Stmt {
		return Stmt{SQL: "INSERT INTO guard_child (id, note) VALUES (?, ?)", Vars: []any{id, note}}
	}
	count := func() (v, children int) {
		t.Helper()
		if err := gdb.Raw("SELECT v FROM guard_probe WHERE id = 1").Scan(&v).Error; err != nil {
			t.Fatal(err)
		}
		if err := gdb.Raw("SELECT COUNT(*) FROM guard_child").Scan(&children).Error; err != nil {
			t.Fatal(err)
		}
		return v, children
	}
	inTx := func() {
		t.Helper()
		var n int
		if err := gdb.Raw("SELECT @@in_transaction").Scan(&n).Error; err == nil && n != 0 {
			t.Fatal("the connection was given back inside a transaction")
		}
	}
	if won, err := GuardedScript(ctx, gdb, cas(0), child(1, "it's a quote"), child(2, "b")); err != nil || !won {
		t.Fatalf("won script: %v %v", won, err)
	}
	if v, n := count(); v != 1 || n != 2 {
		t.Fatalf("after the won script: v %d, %d children; want 1, 2", v, n)
	}
	inTx()
	if won, err := GuardedScript(ctx, gdb, cas(0), child(3, "c")); err != nil || won {
		t.Fatalf("lost guard: %v %v, want false, nil", won, err)
	}
	if v, n := count(); v != 1 || n != 2 {
		t.Fatalf("after the lost guard: v %d, %d children; want nothing changed", v, n)
	}
	inTx()
	won, err := GuardedScript(ctx, gdb, cas(1), child(4, "d"), child(1, "duplicate"))
	if won || !IsDuplicate(err) {
		t.Fatalf("duplicate key: %v %v, want a duplicate error", won, err)
	}
	if v, n := count(); v != 1 || n != 2 {
		t.Fatalf("after the failed script: v %d, %d children; want it rolled back", v, n)
	}
	inTx()
}

// openMySQL opens a fresh test database on the MariaDB/MySQL of the tests.
func openMySQL(t *testing.T) *gorm.DB {
	t.Helper()
	gdb, err := Open(context.Background(), Config{Driver: "mysql", DSN: testenv.MySQL(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Close(gdb) })
	return gdb
}
