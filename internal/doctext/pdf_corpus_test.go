package doctext_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/doctext"
)

// minPDFAccuracy is the least character accuracy of a text-layer PDF
// (issue 14).
const minPDFAccuracy = 0.98

// pdftotextPoor lists the files pdftotext -raw reads below minPDFAccuracy,
// and why; for them only minPoorAccuracy is required of it. The Go reader
// has no exceptions.
var pdftotextPoor = map[string]string{
	"chrome-sans-en-2col.pdf": "Chrome draws Noto Sans CJK as Type3 fonts without space glyphs; -raw runs the words together",
}

const minPoorAccuracy = 0.85

// TestPDFCorpus reads every PDF under testdata/pdf (made by real producers,
// see testdata/pdf/gen.sh) with the pure-Go reader and, when installed, with
// pdftotext, and checks the character accuracy against the source text.
// Under CI=true a missing pdftotext is a failure.
func TestPDFCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/pdf/*.pdf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in testdata/pdf: %v", err)
	}
	readers := []struct {
		name string
		opts doctext.Options
	}{{doctext.ReaderGo, doctext.Options{PureGo: true}}}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		readers = append(readers, struct {
			name string
			opts doctext.Options
		}{doctext.ReaderPdftotext, doctext.Options{PreferPdftotext: true}})
	} else if os.Getenv("CI") == "true" {
		t.Errorf("pdftotext is not installed (scripts/pdf-deps.sh installs poppler-utils)")
	} else {
		t.Logf("pdftotext is not installed: only the Go reader is tested")
	}

	var table strings.Builder
	table.WriteString("\nfile                          reader     accuracy  s/page\n")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(strings.TrimSuffix(file, ".pdf") + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		cjk := strings.Contains(filepath.Base(file), "-zh")
		for _, r := range readers {
			t.Run(filepath.Base(file)+"/"+r.name, func(t *testing.T) {
				start := time.Now()
				doc, err := doctext.Extract(context.Background(), data, filepath.Base(file), r.opts)
				elapsed := time.Since(start)
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				if doc.Reader != r.name {
					t.Errorf("Reader = %q, want %q", doc.Reader, r.name)
				}
				acc := Accuracy(string(src), doc.Text, map[bool]string{true: "zh", false: "en"}[cjk])
				perPage := elapsed.Seconds() / float64(max(doc.Pages, 1))
				table.WriteString(padRight(filepath.Base(file), 30) + padRight(r.name, 11) +
					padRight(formatPct(acc), 10) + formatSec(perPage) + "\n")
				if reason, ok := pdftotextPoor[filepath.Base(file)]; ok && r.name == doctext.ReaderPdftotext {
					t.Logf("pdftotext is known to read this file poorly (%s)", reason)
					if acc < minPoorAccuracy {
						t.Errorf("accuracy %.4f < %.2f", acc, minPoorAccuracy)
					}
					return
				}
				if acc < minPDFAccuracy {
					t.Errorf("accuracy %.4f < %.2f; got:\n%s", acc, minPDFAccuracy, doc.Text)
				}
			})
		}
	}
	t.Log(table.String())
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-len(s))
}

func formatPct(f float64) string { return strconvFloat(f*100, 2) + "%" }
func formatSec(f float64) string { return strconvFloat(f, 3) }

func strconvFloat(f float64, prec int) string { return strconv.FormatFloat(f, 'f', prec, 64) }
