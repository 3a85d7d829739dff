package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
)

// runBlobs is `aimeeting blobs migrate --from URL --to URL`: it copies the
// service's files from one store to another (a data dir to S3, typically)
// with a progress bar. It is idempotent and resumable: files already at the
// destination with the same size are skipped.
func runBlobs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "migrate" {
		fmt.Fprintln(stderr, "usage: aimeeting blobs migrate --from file:///data --to 's3://bucket?endpoint=http://host:9000&region=us-east-1&use_path_style=true'")
		return errors.New("unknown blobs command: want migrate")
	}
	fs := flag.NewFlagSet("blobs migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "source store `URL`: file://<old data-dir> (its uploads/ and tts/ are copied) or s3://…")
	to := fs.String("to", "", "destination store `URL` (the new storage.url)")
	prefixes := fs.String("prefixes", strings.Join(blobstore.DefaultPrefixes, ","), "comma-separated key prefixes to copy")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return errors.New("blobs migrate needs --from and --to")
	}
	src, err := blobstore.Open(ctx, *from)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.Close()
	dst, err := blobstore.Open(ctx, *to)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.Close()
	if err := dst.Ping(ctx); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	var p blobstore.Progress
	if !*quiet {
		p = &barProgress{w: stderr}
	}
	fmt.Fprintf(stdout, "copying from %s to %s\n", src, dst)
	res, err := blobstore.Migrate(ctx, src, dst, splitPrefixes(*prefixes), p)
	fmt.Fprintf(stdout, "%d files: %d copied (%d bytes), %d already there\n", res.Files, res.Copied, res.Bytes, res.Skipped)
	if err != nil {
		return fmt.Errorf("migration stopped (run it again to resume): %w", err)
	}
	return nil
}

func splitPrefixes(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// barProgress draws a byte progress bar.
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (b *barProgress) Start(files int, bytes int64) {
	b.bar = progressbar.NewOptions64(bytes, progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(fmt.Sprintf("%d files", files)), progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(), progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.w) }))
}

func (b *barProgress) Done(_ string, size int64, _ bool) { _ = b.bar.Add64(size) }
