// Package dbtest opens migrated test databases: a fresh SQLite file and a
// scratch MariaDB/MySQL database (see testenv), so store tests run against
// both dialects.
package dbtest

import (
	"context"
	"path/filepath"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// SQLite returns a migrated database in a temporary file.
func SQLite(tb testing.TB) *gorm.DB {
	tb.Helper()
	return open(tb, db.Config{Driver: "sqlite", DSN: filepath.Join(tb.TempDir(), "test.db")})
}

// MySQL returns a migrated scratch database on the test server.
func MySQL(tb testing.TB) *gorm.DB {
	tb.Helper()
	return open(tb, db.Config{Driver: "mysql", DSN: testenv.MySQL(tb)})
}

func open(tb testing.TB, cfg db.Config) *gorm.DB {
	tb.Helper()
	gdb, err := db.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("open %s: %v", cfg.Driver, err)
	}
	tb.Cleanup(func() { _ = db.Close(gdb) })
	return gdb
}

// Each runs f once per dialect, as subtests named sqlite and mysql.
func Each(t *testing.T, f func(t *testing.T, gdb *gorm.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, SQLite(t)) })
	t.Run("mysql", func(t *testing.T) { f(t, MySQL(t)) })
}
