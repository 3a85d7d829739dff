package doctext

// TEMPORARY adapter (branch ocr): it gives the OCR code the per-page API that
// the pdf branch adds as extractPDF(ctx, data, name, opts) (pages []string,
// declared int, truncated bool, err error). At merge: delete this file and
// rename the one call of pdfPages in doctext.go to extractPDF.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/internal/pdf"
)

// pdfPages returns the text of each of at most opts.MaxPages pages ("" for a
// page without text), the declared page count and whether pages were left
// out. Unless opts.PureGo, it uses poppler's pdftotext when installed.
func pdfPages(ctx context.Context, data []byte, name string, opts Options) (pages []string, declared int, truncated bool, reader string, err error) {
	// Until the pdf branch lands, pdftotext is opt-in (the corpus benchmark
	// sets the variable), so the Go reader's layout tests keep passing.
	if _, lookErr := exec.LookPath("pdftotext"); lookErr == nil && !opts.PureGo && os.Getenv("DOCTEXT_TMP_PDFTOTEXT") == "1" {
		if pages, err := pdftotextPages(ctx, data, opts.MaxPages); err == nil {
			// The page count comes from the Go reader, which also rejects
			// encrypted and damaged files with the usual messages.
			_, declared, truncated, err := goPages(data, name, opts)
			if err != nil {
				return nil, 0, false, "", err
			}
			return pages, declared, truncated, "pdftotext", nil
		}
	}
	pages, declared, truncated, err = goPages(data, name, opts)
	return pages, declared, truncated, "go", err
}

// extractPDF is the old whole-text API, replaced on the pdf branch.
var _ = extractPDF

func pdftotextPages(ctx context.Context, data []byte, maxPages int) ([]string, error) {
	cmd := exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", "-l", strconv.Itoa(maxPages), "-", "-")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	pages := strings.Split(string(out), "\f")
	if len(pages) > 1 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	if len(pages) == 0 {
		return nil, errors.New("pdftotext: no pages")
	}
	for i, p := range pages {
		pages[i] = normalize(p, true)
	}
	return pages, nil
}

func goPages(data []byte, name string, opts Options) (pages []string, declared int, truncated bool, err error) {
	data = acceptPDF2(data)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if isEncryptionError(err, data) {
			return nil, 0, false, encrypted(name).WithCause(err)
		}
		return nil, 0, false, unreadable(KindPDF, name).WithCause(err)
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		return nil, 0, false, encrypted(name)
	}
	list, more := collectPages(r.Trailer().Key("Root").Key("Pages"), opts.MaxPages)
	declared = r.NumPage()
	if declared < len(list) || declared > len(list) && !more {
		declared = len(list)
	}
	budget := 2*opts.MaxChars + 1
	var firstErr error
	any := false
	for _, p := range list {
		t, full, err := pageText(p, budget)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			pages = append(pages, "")
			continue
		}
		t = normalize(t, true)
		any = any || strings.TrimSpace(t) != ""
		pages = append(pages, t)
		if full {
			truncated = true
			break
		}
		budget -= utf8.RuneCountInString(t)
	}
	if !any && firstErr != nil {
		return nil, 0, false, unreadable(KindPDF, name).WithCause(firstErr)
	}
	return pages, declared, truncated || more, nil
}
