package doctext

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/internal/pdf"
)

// The readers a PDF's text can come from (Document.Reader).
const (
	ReaderPdftotext = "pdftotext" // poppler's pdftotext, when installed
	ReaderGo        = "go"        // the pure-Go reader
)

// pdftotextPath is where pdftotext is installed, "" when it is not; looked
// up once.
var pdftotextPath = sync.OnceValue(func() string {
	p, err := exec.LookPath("pdftotext")
	if err != nil {
		return ""
	}
	return p
})

// errOutputFull stops reading pdftotext's output once it is long enough.
var errOutputFull = errors.New("doctext: pdftotext output limit reached")

// limitedBuffer keeps at most n bytes of a child process's output, so a
// runaway program cannot fill memory. Past n it fails the write, which
// makes exec close the pipe (pdftotext stops on the broken pipe), or with
// discard set it drops the rest silently (stderr, whose length must not
// fail the program). The buffer is a field, not embedded, so that io.Copy
// cannot bypass Write with ReadFrom.
type limitedBuffer struct {
	buf     bytes.Buffer
	n       int
	discard bool // past n, drop instead of failing
	full    bool // a write went past n
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.n - b.buf.Len(); len(p) > room {
		b.full = true
		b.buf.Write(p[:max(room, 0)])
		if b.discard {
			return len(p), nil
		}
		return max(room, 0), errOutputFull
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) String() string { return b.buf.String() }

// extractPoppler reads data with pdftotext (poppler-utils) in its default
// reading-order mode, at most opts.MaxPages pages and about 4×MaxChars bytes
// of output, and splits the output at the form feeds pdftotext ends each
// page with. It fails when pdftotext is not installed or fails, ctx is done,
// or the output has no text.
func extractPoppler(ctx context.Context, data []byte, opts Options) (pages []string, declared int, truncated bool, err error) {
	bin := pdftotextPath()
	if bin == "" {
		return nil, 0, false, errors.New("pdftotext is not installed")
	}
	out := &limitedBuffer{n: 4*opts.MaxChars + 1024}
	var stderr limitedBuffer
	stderr.n = 4096
	cmd := exec.CommandContext(ctx, bin, "-enc", "UTF-8", "-eol", "unix",
		"-raw", "-l", strconv.Itoa(opts.MaxPages), "-", "-")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = out
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, 0, false, ctx.Err()
	case out.full:
		// pdftotext dies of the broken pipe, or finishes first: either
		// way the output is cut.
		truncated = true
	case err != nil:
		return nil, 0, false, errors.Join(err, errors.New(strings.TrimSpace(stderr.String())))
	}
	text := strings.ToValidUTF8(out.String(), "")
	if strings.TrimSpace(strings.ReplaceAll(text, "\f", "")) == "" {
		return nil, 0, false, errors.New("pdftotext found no text")
	}
	pages = strings.Split(text, "\f")
	if !truncated && len(pages) > 1 {
		pages = pages[:len(pages)-1] // the feed after the last page
	}
	for i, p := range pages {
		pages[i] = cleanPopplerPage(p)
	}
	declared = declaredPages(data, len(pages))
	return pages, declared, truncated || declared > opts.MaxPages, nil
}

// cleanPopplerPage applies to pdftotext's page text the clean-up the Go
// reader applies to each glyph.
func cleanPopplerPage(s string) string { return cleanGlyph(s) }

// declaredPages is the page count data declares, read with the Go reader,
// or read when that fails.
func declaredPages(data []byte, read int) (n int) {
	defer func() {
		if recover() != nil {
			n = read
		}
	}()
	data = acceptPDF2(data)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return read
	}
	if n = r.NumPage(); n < read {
		n = read
	}
	return n
}
