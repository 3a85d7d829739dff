// Package doctext extracts plain text from uploaded documents: PDF, DOCX,
// plain text and Markdown, and (with an OCR value) photos and scans as JPEG,
// PNG or WebP and the scanned pages of PDFs. It is used by resume upload and
// by the agent's file upload.
//
// The type of a file is decided by its content, never by its name alone: a PNG
// renamed to resume.pdf is rejected. The file name only tells Markdown from
// plain text and appears (sanitised) in error messages; it is never used as a
// path.
//
// Every error is an *apperr.Error of kind apperr.KindUnprocessable whose
// message says what the user should change. Extraction is bounded (characters,
// PDF pages, uncompressed DOCX size, XML depth) and a malformed file gives an
// error, never a panic.
package doctext

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Kind is the type of a document, decided by its content.
type Kind string

// The supported kinds.
const (
	KindPDF  Kind = "pdf"
	KindDOCX Kind = "docx"
	KindTXT  Kind = "txt"
	KindMD   Kind = "md"
	KindJPEG Kind = "jpeg"
	KindPNG  Kind = "png"
	KindWEBP Kind = "webp"
)

// MIME types reported for each kind.
const (
	MIMEPDF  = "application/pdf"
	MIMEDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	MIMETXT  = "text/plain; charset=utf-8"
	MIMEMD   = "text/markdown; charset=utf-8"
	MIMEJPEG = "image/jpeg"
	MIMEPNG  = "image/png"
	MIMEWEBP = "image/webp"
)

// Default limits used when Options leaves them zero.
const (
	DefaultMaxChars = 200_000
	DefaultMaxPages = 100
	// DefaultTimeout bounds one extraction when Options.Timeout is zero,
	// whatever deadline ctx has: a pathological file must not hold a
	// request (and its memory) for long.
	DefaultTimeout = 2 * time.Minute
)

// maxNameLen bounds the file name quoted in error messages, in runes.
const maxNameLen = 100

// AllKinds lists the document kinds; it is the default of Options.Allowed.
// Images are not in it: a caller that reads them by OCR opts in with
// ImageKinds (and Options.OCR).
var AllKinds = []Kind{KindPDF, KindDOCX, KindTXT, KindMD}

// ImageKinds lists the image kinds, read by OCR.
var ImageKinds = []Kind{KindJPEG, KindPNG, KindWEBP}

// Document is the text extracted from an uploaded file.
type Document struct {
	Kind Kind
	MIME string
	// Text is the extracted text: UTF-8, LF line endings, paragraphs
	// separated by a blank line where the format marks them.
	Text string
	// Pages is the page count of a PDF (as declared by the file); zero for
	// other kinds.
	Pages int
	// Truncated reports that Text stops early because the document exceeded
	// Options.MaxChars, Options.MaxPages or the OCR page limit.
	Truncated bool
	// Source says where Text came from: SourceText, SourceOCR or
	// SourceMixed.
	Source string
	// OCRPages is how many pages (or images) were read by OCR.
	OCRPages int
	// Chars is the length of Text in runes.
	Chars int
	// Reader names the PDF text-layer reader used: "pdftotext" or "go";
	// empty for other kinds.
	Reader string
}

// Options bounds and restricts extraction. The zero value allows every kind
// with the default limits.
type Options struct {
	// Allowed lists the kinds the caller accepts; nil or empty means AllKinds.
	Allowed []Kind
	// MaxChars is the most characters (runes) of text kept; zero means
	// DefaultMaxChars.
	MaxChars int
	// MaxPages is the most PDF pages read; zero means DefaultMaxPages.
	MaxPages int
	// Timeout bounds the whole extraction, OCR included; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MinChars rejects text shorter than this many runes, and text that is
	// mostly not letters or digits, as unreadable; zero turns the length
	// check off (the garbage check still applies to PDFs and images).
	MinChars int
	// OCR reads images and the scanned pages of PDFs; nil means no OCR.
	OCR *OCR
	// PureGo reads PDFs with the Go reader only, even when pdftotext is
	// installed.
	PureGo bool
	// PreferPdftotext reads PDFs with pdftotext first when it is installed,
	// and with the Go reader only when pdftotext fails (for comparisons;
	// the Go reader reads better, see extractPDF).
	PreferPdftotext bool
}

func (o Options) withDefaults() Options {
	if len(o.Allowed) == 0 {
		o.Allowed = AllKinds
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	return o
}

func (o Options) allows(k Kind) bool { return slices.Contains(o.Allowed, k) }

var (
	pdfMagic = []byte("%PDF-")
	zipMagic = []byte("PK\x03\x04")
	utf8BOM  = []byte("\xEF\xBB\xBF")
)

// Sniff decides the kind and MIME type of data by its content: the "%PDF-"
// magic is a PDF; a zip archive holding word/document.xml is a DOCX; valid
// UTF-8 (a byte order mark allowed) without NUL bytes is Markdown when
// filename ends in .md or .markdown and plain text otherwise. Anything else is
// an *apperr.Error of kind apperr.KindUnprocessable.
func Sniff(data []byte, filename string) (Kind, string, error) {
	kind, mime, r := sniff(data, filename)
	if r != sniffOK {
		return "", "", r.err(SanitizeName(filename), AllKinds)
	}
	return kind, mime, nil
}

// sniffResult says why sniff did not recognise a file.
type sniffResult int

const (
	sniffOK sniffResult = iota
	sniffEmpty
	sniffUnsupported
	sniffNotUTF8
)

// err is the error for r, naming the kinds the caller accepts.
func (r sniffResult) err(name string, allowed []Kind) *apperr.Error {
	switch r {
	case sniffEmpty:
		return unprocessable("%sthe file is empty: upload a document with text in it", prefix(name))
	case sniffNotUTF8:
		if slices.Contains(allowed, KindTXT) || slices.Contains(allowed, KindMD) {
			return notUTF8(name)
		}
	}
	if strings.HasSuffix(strings.ToLower(name), ".pdf") {
		return notPDF(name, "", allowed)
	}
	return unsupported(name, allowed)
}

func sniff(data []byte, filename string) (Kind, string, sniffResult) {
	switch {
	case len(data) == 0:
		return "", "", sniffEmpty
	case isImageData(data):
		kind, mime, _ := sniffImage(data)
		return kind, mime, sniffOK
	case bytes.HasPrefix(data, pdfMagic):
		return KindPDF, MIMEPDF, sniffOK
	case bytes.HasPrefix(data, zipMagic):
		if isDOCX(data) {
			return KindDOCX, MIMEDOCX, sniffOK
		}
		return "", "", sniffUnsupported
	case bytes.IndexByte(data, 0) >= 0:
		// NUL bytes mean binary (or UTF-16), whatever the name says.
		return "", "", sniffUnsupported
	case !utf8.Valid(data):
		return "", "", sniffNotUTF8
	case isMarkdownName(filename):
		return KindMD, MIMEMD, sniffOK
	default:
		return KindTXT, MIMETXT, sniffOK
	}
}

// Extract sniffs data (see Sniff), checks that its kind is in opts.Allowed and
// returns its text, bounded by opts and ctx. A PDF is read with the pure-Go
// reader, and with poppler's pdftotext, when installed, if that finds no
// text; images and the scanned pages of PDFs are read by opts.OCR. Every
// error is an *apperr.Error of kind apperr.KindUnprocessable, including a
// document with no text or too little (see Options.MinChars) and a document
// still being read when ctx is done (that error wraps ctx.Err()).
func Extract(ctx context.Context, data []byte, filename string, opts Options) (doc Document, err error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	name := SanitizeName(filename)
	kind, mime, r := sniff(data, filename)
	if r != sniffOK {
		return Document{}, r.err(name, opts.Allowed)
	}
	if !opts.allows(kind) {
		if kind != KindPDF && strings.HasSuffix(strings.ToLower(name), ".pdf") {
			return Document{}, notPDF(name, kind, opts.Allowed)
		}
		return Document{}, unsupported(name, opts.Allowed)
	}

	// The parsers are written not to panic, but a corrupt upload must never
	// take the server down, whatever a third-party library does with it.
	defer func() {
		if r := recover(); r != nil {
			doc = Document{}
			err = unreadable(kind, name).WithCause(fmt.Errorf("panic: %v", r))
		}
	}()

	doc = Document{Kind: kind, MIME: mime, Source: SourceText}
	switch kind {
	case KindPDF:
		err = readPDF(ctx, data, name, opts, &doc)
	case KindJPEG, KindPNG, KindWEBP:
		err = readImage(ctx, data, name, opts, &doc)
	case KindDOCX:
		doc.Text, err = extractDOCX(data, name)
		doc.Text = normalize(doc.Text, false)
	default:
		doc.Text = normalizeNewlines(string(bytes.TrimPrefix(data, utf8BOM)))
	}
	if err != nil {
		return Document{}, err
	}
	if strings.TrimSpace(doc.Text) == "" {
		return Document{}, noText(kind, name)
	}
	var cut bool
	doc.Text, cut = truncate(doc.Text, opts.MaxChars)
	doc.Truncated = doc.Truncated || cut
	doc.Chars = utf8.RuneCountInString(doc.Text)
	if err := checkQuality(doc, name, filename, opts.MinChars); err != nil {
		return Document{}, err
	}
	return doc, nil
}

// SanitizeName reduces an uploaded file name to something safe to quote in a
// message: the base name (after either kind of slash), without control
// characters, at most 100 runes.
func SanitizeName(filename string) string {
	if i := strings.LastIndexAny(filename, `/\`); i >= 0 {
		filename = filename[i+1:]
	}
	filename = strings.ToValidUTF8(filename, "")
	var b strings.Builder
	n := 0
	for _, r := range filename {
		if unicode.IsControl(r) || r == utf8.RuneError {
			continue
		}
		if n == maxNameLen {
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

func isMarkdownName(filename string) bool {
	ext := strings.ToLower(path.Ext(SanitizeName(filename)))
	return ext == ".md" || ext == ".markdown"
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// normalize cleans extracted text: newlines become LF, control characters
// and invalid UTF-8 are dropped, trailing spaces are trimmed, and runs of
// blank lines shrink to one so paragraph breaks survive. With collapse set
// (PDF), runs of spaces and tabs inside a line also become one space and
// leading spaces go, since PDF spacing is layout, not content.
func normalize(s string, collapse bool) string {
	s = strings.ToValidUTF8(normalizeNewlines(s), "")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0 // blank lines seen since the last text line
	wrote := false
	for line := range strings.SplitSeq(s, "\n") {
		line = cleanLine(line, collapse)
		if line == "" {
			blank++
			continue
		}
		if wrote {
			b.WriteByte('\n')
			if blank > 0 {
				b.WriteByte('\n')
			}
		}
		b.WriteString(line)
		wrote = true
		blank = 0
	}
	return b.String()
}

// symbolBullet are the private-use characters that the Symbol and
// Wingdings fonts' list bullets come out as: a PDF saved from Word or
// LibreOffice has "\uF0B7 Rebuilt the portal…" where the document showed
// "• Rebuilt the portal…". They read as the bullet they show, so a list
// item is still seen as one (the offline questions look for them) and the
// text is not taken for garbled.
var symbolBullet = map[rune]bool{
	'\uF0B7': true, // Symbol •
	'\uF06C': true, // Wingdings ● (l)
	'\uF06E': true, // Wingdings ■ (n)
	'\uF071': true, // Wingdings ❑ (q)
	'\uF075': true, // Wingdings ◆ (u)
	'\uF076': true, // Wingdings ❖ (v)
	'\uF0A7': true, // Wingdings ▪ (§)
	'\uF0A8': true, // Wingdings ◻
	'\uF0D8': true, // Wingdings ➢
	'\uF0E8': true, // Wingdings ➔
	'\uF0FC': true, // Wingdings ✓
}

func cleanLine(line string, collapse bool) string {
	var b strings.Builder
	space := false
	for _, r := range line {
		switch {
		case r == '\t' && !collapse:
			b.WriteRune(r)
			continue
		case unicode.IsSpace(r):
			if !collapse {
				b.WriteRune(' ')
				continue
			}
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == utf8.RuneError, r == '\uFEFF':
			continue
		case symbolBullet[r]:
			r = '•'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace)
}

// truncate keeps at most max runes of s and reports whether it cut.
func truncate(s string, max int) (string, bool) {
	if len(s) <= max { // bytes ≥ runes, so this is the cheap common case
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

func unprocessable(format string, args ...any) *apperr.Error {
	return apperr.New(apperr.KindUnprocessable, format, args...)
}

// prefix quotes a file name at the start of a message.
func prefix(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%q: ", name)
}

func unsupported(name string, allowed []Kind) *apperr.Error {
	return unprocessable("%sunsupported file type: upload a %s file", prefix(name), listKinds(allowed))
}

// notPDF is the error for a file named .pdf whose bytes are something else
// the caller does not accept.
func notPDF(name string, kind Kind, allowed []Kind) *apperr.Error {
	return unprocessable("%sthis is not a PDF (its content is %s): export your resume again as a PDF, or upload a %s file",
		prefix(name), apperr.Word(describeKind(kind)), listKinds(allowed))
}

func notUTF8(name string) *apperr.Error {
	return unprocessable("%sthe file is not valid UTF-8 text: save it with UTF-8 encoding and upload it again", prefix(name))
}

func unreadable(kind Kind, name string) *apperr.Error {
	return unprocessable("%sthe %s could not be read (it may be damaged): export it again and upload the new file",
		prefix(name), strings.ToUpper(string(kind)))
}

func noText(kind Kind, name string) *apperr.Error {
	switch kind {
	case KindPDF:
		return unprocessable("%sthe PDF has no extractable text (is it a scanned image?): upload a PDF with selectable text, or a TXT file", prefix(name))
	case KindDOCX:
		return unprocessable("%sthe DOCX has no text: upload a document with text in it", prefix(name))
	default:
		return unprocessable("%sthe file is empty: upload a document with text in it", prefix(name))
	}
}

// listKinds renders kinds as "PDF, TXT or MD" (in Chinese "PDF、TXT 或 MD").
func listKinds(kinds []Kind) any {
	if len(kinds) == 0 {
		return "supported"
	}
	names := make(apperr.List, len(kinds))
	for i, k := range kinds {
		names[i] = strings.ToUpper(string(k))
	}
	return names
}
