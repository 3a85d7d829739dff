// Package migrations embeds the versioned SQL migrations (goose format).
//
// One set of files serves both MariaDB/MySQL 8 and SQLite: they use only
// portable SQL (string primary keys made in Go, no AUTO_INCREMENT, no
// engine clauses, TEXT/LONGTEXT columns, separate CREATE INDEX statements).
// The one difference is DATETIME(3) (millisecond times in MySQL), which the
// SQLite driver reads as a time only when declared as plain DATETIME: For
// rewrites it, and MySQL's "DROP INDEX name ON table", which SQLite writes
// without the table. Add a new file with the next number; never edit one that
// has shipped.
package migrations

import (
	"embed"
	"io/fs"
	"regexp"
	"strings"
	"testing/fstest"
)

// dropIndexOn matches MySQL's DROP INDEX name ON table.
var dropIndexOn = regexp.MustCompile(`(?i)(DROP INDEX \w+) ON \w+`)

//go:embed *.sql
var files embed.FS

// For returns the migrations for dialect ("mysql" or "sqlite3").
func For(dialect string) (fs.FS, error) {
	if dialect != "sqlite3" {
		return files, nil
	}
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := fs.ReadFile(files, e.Name())
		if err != nil {
			return nil, err
		}
		sql := strings.ReplaceAll(string(b), "DATETIME(3)", "DATETIME")
		sql = dropIndexOn.ReplaceAllString(sql, "$1")
		out[e.Name()] = &fstest.MapFile{Data: []byte(sql)}
	}
	return out, nil
}
