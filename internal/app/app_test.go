package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// Regression (issue 16): New failing on an unreachable database closed a
// nil *App and panicked; now it returns the cause naming the setting.
func TestNewFailsNamingTheSetting(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), Database: DatabaseConfig{Driver: "mysql", DSN: "root@tcp(127.0.0.1:1)/x"}}
	a, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if a != nil || err == nil {
		t.Fatalf("New = %v, %v; want no App and an error", a, err)
	}
	if got, want := err.Error(), "database.dsn: dial tcp 127.0.0.1:1: "; !strings.HasPrefix(got, want) {
		t.Fatalf("error %q, want it to start %q", got, want)
	}
	var none *App
	none.Close() // closing nothing does nothing
}
