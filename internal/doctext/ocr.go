package doctext

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// OCR defaults used when OCRConfig leaves them zero.
const (
	DefaultOCRMaxPages    = 5
	DefaultOCRTimeout     = 60 * time.Second
	DefaultOCRConcurrency = 2
	DefaultOCRLanguages   = "chi_sim+eng"
)

// OCR modes of OCRConfig.Mode.
const (
	OCRAuto = "auto" // on when tesseract is installed
	OCROn   = "true" // required: NewOCR fails when tesseract is missing
	OCROff  = "false"
)

// installHint is what an operator runs to get OCR on Debian or Ubuntu.
const installHint = "apt-get install tesseract-ocr tesseract-ocr-chi-sim poppler-utils"

// Page images are rendered to fit this many pixels on their long side: 300
// dpi for A4, and a bound for PDFs that declare huge pages.
const renderPixels = 3508

// maxImagePixels bounds an uploaded image (width × height) before it goes to
// tesseract: a 12-megapixel phone photo is 12e6; a tiny compressed file must
// not make tesseract allocate gigabytes.
const maxImagePixels = 50_000_000

// maxOCROutput bounds what is read from tesseract for one page, in bytes.
const maxOCROutput = 1 << 20

// OCRConfig configures NewOCR; zero fields take the defaults.
type OCRConfig struct {
	// Mode is OCRAuto (the default: on when tesseract is installed), OCROn
	// or OCROff.
	Mode string
	// MaxPages is the most pages of one upload read by OCR.
	MaxPages int
	// Timeout bounds all OCR work for one upload, including the wait for a
	// free slot.
	Timeout time.Duration
	// Concurrency is the most pages read at once by this OCR value, across
	// every upload that shares it.
	Concurrency int
	// Languages are tesseract languages joined by "+", e.g. "chi_sim+eng".
	Languages string
	// Tesseract and Pdftocairo (poppler-utils) name the programs; empty means look them up
	// on PATH.
	Tesseract, Pdftocairo string
}

// OCR reads text from images and scanned PDF pages with the tesseract
// program, rendering PDF pages with poppler's pdftocairo. One value is created
// by the application and shared: it owns the concurrency limit. A nil *OCR
// means OCR was not configured.
type OCR struct {
	cfg        OCRConfig
	tesseract  string // path; "" when OCR is off or not installed
	pdftocairo string // path; "" when not installed
	off        bool   // turned off by configuration
	sem        *semaphore.Weighted
}

// NewOCR checks which programs and languages are installed. In OCRAuto mode
// a missing tesseract (or no installed language of cfg.Languages) leaves OCR
// unavailable, and uploads that need it get a message saying what to
// install; in OCROn mode it is an error. An unknown mode is an error.
func NewOCR(cfg OCRConfig) (*OCR, error) {
	if cfg.Mode == "" {
		cfg.Mode = OCRAuto
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultOCRMaxPages
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultOCRTimeout
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultOCRConcurrency
	}
	if strings.TrimSpace(cfg.Languages) == "" {
		cfg.Languages = DefaultOCRLanguages
	}
	if cfg.Tesseract == "" {
		cfg.Tesseract = "tesseract"
	}
	if cfg.Pdftocairo == "" {
		cfg.Pdftocairo = "pdftocairo"
	}
	o := &OCR{cfg: cfg, sem: semaphore.NewWeighted(int64(cfg.Concurrency))}
	switch strings.ToLower(cfg.Mode) {
	case OCROff:
		o.off = true
		return o, nil
	case OCRAuto, OCROn:
	default:
		return nil, fmt.Errorf("doctext.ocr.enabled: %q is not auto, true or false", cfg.Mode)
	}
	required := strings.EqualFold(cfg.Mode, OCROn)
	tess, err := exec.LookPath(cfg.Tesseract)
	if err != nil {
		if required {
			return nil, fmt.Errorf("doctext.ocr.enabled is true but %s is not installed (%s)", cfg.Tesseract, installHint)
		}
		return o, nil
	}
	langs, missing, err := installedLanguages(tess, cfg.Languages)
	switch {
	case err != nil && required:
		return nil, fmt.Errorf("doctext.ocr: %w", err)
	case len(missing) > 0 && required:
		return nil, fmt.Errorf("doctext.ocr.languages: tesseract has no %s (install tesseract-ocr-%s)",
			strings.Join(missing, ", "), strings.ReplaceAll(missing[0], "_", "-"))
	case err != nil || langs == "":
		return o, nil
	}
	o.cfg.Languages = langs
	o.tesseract = tess
	if p, err := exec.LookPath(cfg.Pdftocairo); err == nil {
		o.pdftocairo = p
	}
	return o, nil
}

// installedLanguages keeps the languages of want ("a+b") that tesseract
// has, in order, and lists the missing ones.
func installedLanguages(tesseract, want string) (langs string, missing []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, tesseract, "--list-langs").CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("%s --list-langs: %w", tesseract, err)
	}
	have := strings.Fields(string(out))
	var keep []string
	for l := range strings.SplitSeq(want, "+") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case slices.Contains(have, l):
			keep = append(keep, l)
		default:
			missing = append(missing, l)
		}
	}
	return strings.Join(keep, "+"), missing, nil
}

// Available reports whether images can be read.
func (o *OCR) Available() bool { return o != nil && o.tesseract != "" }

// CanReadPDF reports whether scanned PDF pages can be read (tesseract and
// pdftocairo are installed).
func (o *OCR) CanReadPDF() bool { return o.Available() && o.pdftocairo != "" }

// Languages returns the tesseract languages in use ("" when unavailable).
func (o *OCR) Languages() string {
	if !o.Available() {
		return ""
	}
	return o.cfg.Languages
}

// MaxPages is the most pages read by OCR per upload.
func (o *OCR) MaxPages() int { return o.cfg.MaxPages }

// unavailable explains why OCR cannot read what the user uploaded (what,
// e.g. "the file is an image") and what to do instead.
func (o *OCR) unavailable(name, what string, pdf bool) error {
	switch {
	case o != nil && o.off:
		return unprocessable("%s%s, and reading scans (OCR) is turned off on this server (doctext.ocr.enabled=false): upload a PDF with selectable text, or a TXT file",
			prefix(name), apperr.Word(what))
	case pdf && o.Available():
		return unprocessable("%s%s, and this server cannot render PDF pages for OCR: the operator should install poppler-utils (pdftocairo); meanwhile upload a PDF with selectable text, or a photo or scan as JPEG or PNG",
			prefix(name), apperr.Word(what))
	default:
		return unprocessable("%s%s, and this server has no OCR installed to read it: the operator should run `%s`; meanwhile upload a PDF with selectable text, or a TXT file",
			prefix(name), apperr.Word(what), installHint)
	}
}

// timedOut is the error for an upload whose OCR ran past its deadline.
func (o *OCR) timedOut(name string, cause error) error {
	return unprocessable("%sreading the scanned pages took longer than %s: upload a PDF with selectable text, or a sharper image of fewer pages",
		prefix(name), o.cfg.Timeout).WithCause(cause)
}

// readImage returns the text tesseract reads from an image file (JPEG, PNG,
// WebP, as tesseract reads them itself).
func (o *OCR) readImage(ctx context.Context, img []byte) (string, error) {
	if err := o.sem.Acquire(ctx, 1); err != nil {
		return "", err
	}
	defer o.sem.Release(1)
	return o.tesseractRun(ctx, "stdin", img)
}

// readPDFPages renders pages (1-based numbers) of the PDF data with pdftocairo
// and reads each with tesseract, one at a time.
func (o *OCR) readPDFPages(ctx context.Context, data []byte, pages []int) ([]string, error) {
	dir, err := os.MkdirTemp("", "doctext-ocr-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, err
	}
	texts := make([]string, len(pages))
	for i, n := range pages {
		t, err := o.readPDFPage(ctx, dir, in, n)
		if err != nil {
			return nil, err
		}
		texts[i] = t
	}
	return texts, nil
}

func (o *OCR) readPDFPage(ctx context.Context, dir, in string, n int) (string, error) {
	if err := o.sem.Acquire(ctx, 1); err != nil {
		return "", err
	}
	defer o.sem.Release(1)
	root := filepath.Join(dir, "page")
	page := strconv.Itoa(n)
	// -scale-to bounds the image of a page whatever size it declares; for
	// A4 it is 300 dpi, what tesseract reads best. pdftocairo, not
	// pdftoppm: both are poppler-utils, but pdftoppm takes 5-10 times as
	// long to scale a scanned page's image.
	cmd := exec.CommandContext(ctx, o.pdftocairo, "-r", "300", "-scale-to", strconv.Itoa(renderPixels),
		"-gray", "-png", "-f", page, "-l", page, "-singlefile", in, root)
	cmd.WaitDelay = time.Second
	stderr := &limitedBuffer{n: 4096, discard: true}
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("pdftocairo page %d: %w: %s", n, err, strings.TrimSpace(stderr.String()))
	}
	defer os.Remove(root + ".png")
	return o.tesseractRun(ctx, root+".png", nil)
}

// tesseractRun reads the image at input ("stdin" with stdin set) and returns
// its cleaned text.
func (o *OCR) tesseractRun(ctx context.Context, input string, stdin []byte) (string, error) {
	cmd := exec.CommandContext(ctx, o.tesseract, input, "stdout", "-l", o.cfg.Languages, "--psm", "3")
	// One thread per page: the concurrency limit already decides how many
	// cores OCR may take.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.WaitDelay = time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &limitedBuffer{n: maxOCROutput, discard: true}
	stderr := &limitedBuffer{n: 4096, discard: true}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("tesseract: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return cleanOCR(out.String()), nil
}

// cleanOCR normalises tesseract output: the spaces it puts between Chinese
// characters go, layout spacing collapses.
func cleanOCR(s string) string {
	return normalize(removeCJKSpaces(s), true)
}

// removeCJKSpaces drops runs of spaces (not line breaks) that have a CJK
// character or CJK punctuation on both sides: Chinese is written without
// spaces, and tesseract emits one between most characters.
func removeCJKSpaces(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == ' ' || r == '\t' || r == '\u3000' {
			j := i
			for j < len(rs) && (rs[j] == ' ' || rs[j] == '\t' || rs[j] == '\u3000') {
				j++
			}
			// Between two CJK characters, or next to CJK punctuation
			// (full-width, it carries its own space).
			if i > 0 && j < len(rs) && (isCJK(rs[i-1]) && isCJK(rs[j]) || isCJKPunct(rs[i-1]) || isCJKPunct(rs[j])) {
				i = j - 1
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCJKPunct reports CJK and full-width punctuation.
func isCJKPunct(r rune) bool {
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFF0F || r >= 0xFF1A && r <= 0xFF20 ||
		r >= 0xFF3B && r <= 0xFF40 || r >= 0xFF5B && r <= 0xFF65
}
