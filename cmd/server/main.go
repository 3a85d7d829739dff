// Command server runs AI-Meeting Go: the REST, SSE and WebSocket API and the
// web page, on the configuration in application.yaml.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		os.Exit(1)
	}
}

// run parses flags, loads the configuration and serves until ctx is done.
func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "blobs" {
		return runBlobs(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "configuration file (YAML); default ./application.yaml when present")
	printCfg := fs.Bool("print-config", false, "print the effective configuration (secrets masked) and exit")
	healthURL := fs.String("healthcheck", "", "GET `URL` and exit 0 when it answers 200 (container health checks)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *healthURL != "" {
		return healthcheck(ctx, *healthURL)
	}
	cfg, v, err := loadConfig(*configPath, environ)
	if err != nil {
		return err
	}
	if *printCfg {
		out, err := printConfig(v, cfg)
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	logger := newLogger(cfg.Log, stderr)
	a, err := app.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	return a.Run(ctx, stdout)
}

func newLogger(cfg app.LogConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(cfg.Level)))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// healthcheck is the image's HEALTHCHECK: the runtime image has no curl.
func healthcheck(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck %s: status %d", url, resp.StatusCode)
	}
	return nil
}
