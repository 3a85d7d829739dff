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

// run parses flags, loads the configuration and serves until ctx is done;
// "import" as the first argument runs the import command instead.
func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "import" {
		return runImport(ctx, args[1:], environ, stdout, stderr)
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

// runImport is `aimeeting import --from-mysql DSN`: it copies the users,
// provider configurations and agents of an original AI-Meeting deployment
// into the configured database, with a progress bar on stderr and a
// summary on stdout.
func runImport(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "configuration file (YAML); default ./application.yaml when present")
	from := fs.String("from-mysql", "", "`DSN` of the original's MySQL database, e.g. user:pass@tcp(host:3306)/xunzhi")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: aimeeting import --from-mysql DSN [--config FILE]")
		fmt.Fprintln(stderr, "Copies t_user, ai_properties and agent_properties of an AI-Meeting (Java) database into")
		fmt.Fprintln(stderr, "the configured one; existing names are skipped, so it can be run again.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("import: --from-mysql DSN is required, and nothing else")
	}
	cfg, _, err := loadConfig(*configPath, environ)
	if err != nil {
		return err
	}
	bar := newProgressBar(stderr, 30)
	sum, err := app.Import(ctx, cfg, *from, bar.Set)
	bar.Done()
	fmt.Fprint(stdout, sum.String())
	if err != nil {
		return fmt.Errorf("import stopped: %w", err)
	}
	return nil
}

// progressBar draws "[=====     ] 12/40" on one terminal line.
type progressBar struct {
	w     io.Writer
	width int
	drawn bool
}

func newProgressBar(w io.Writer, width int) *progressBar { return &progressBar{w: w, width: width} }

// Set redraws the bar at done of total.
func (b *progressBar) Set(done, total int) {
	filled := b.width
	if total > 0 {
		filled = b.width * done / total
	}
	fmt.Fprintf(b.w, "\rimporting [%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", b.width-filled), done, total)
	b.drawn = true
}

// Done ends the bar's line.
func (b *progressBar) Done() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
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
