package doctext

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/jpeg" // DecodeConfig of uploads
	_ "image/png"
	"strings"
	"unicode"
	"unicode/utf8"

	_ "golang.org/x/image/webp"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Where the text of a Document came from.
const (
	SourceText  = "text"  // the file's own text (a PDF's text layer, DOCX, TXT)
	SourceOCR   = "ocr"   // read from images by OCR
	SourceMixed = "mixed" // some PDF pages from the text layer, some by OCR
)

var (
	jpegMagic = []byte("\xFF\xD8\xFF")
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
)

// sniffImage returns the kind of an image file by its magic bytes.
func sniffImage(data []byte) (Kind, string, bool) {
	switch {
	case bytes.HasPrefix(data, jpegMagic):
		return KindJPEG, MIMEJPEG, true
	case bytes.HasPrefix(data, pngMagic):
		return KindPNG, MIMEPNG, true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return KindWEBP, MIMEWEBP, true
	}
	return "", "", false
}

func isImage(k Kind) bool { return k == KindJPEG || k == KindPNG || k == KindWEBP }

// minPageRunes is how many letters, digits or CJK characters a PDF page's
// text layer needs to count as text; a page with fewer (a scan, perhaps
// with a page number drawn as text) is read by OCR.
const minPageRunes = 20

// readImage reads an uploaded photo or scan by OCR into doc.
func readImage(ctx context.Context, data []byte, name string, opts Options, doc *Document) error {
	what := "the file is an image (" + strings.ToUpper(string(doc.Kind)) + ")"
	if !opts.OCR.Available() {
		return opts.OCR.unavailable(name, what, false)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return unreadable(doc.Kind, name).WithCause(err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return unprocessable("%sthe image is %d×%d pixels, more than %d megapixels: scale it down (a page at 300 dpi is about 2500×3500) and upload it again",
			prefix(name), cfg.Width, cfg.Height, maxImagePixels/1_000_000)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.OCR.cfg.Timeout)
	defer cancel()
	text, err := opts.OCR.readImage(ctx, data)
	if err != nil {
		return ocrFailed(ctx, opts.OCR, doc.Kind, name, err)
	}
	doc.Text, doc.Source, doc.OCRPages = text, SourceOCR, 1
	return nil
}

// ocrFailed maps an OCR error to the user's message.
func ocrFailed(ctx context.Context, o *OCR, kind Kind, name string, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return o.timedOut(name, err)
	}
	return unreadable(kind, name).WithCause(err)
}

// readPDF reads the text layer of each page and, with OCR, the pages that
// have no usable text.
func readPDF(ctx context.Context, data []byte, name string, opts Options, doc *Document) error {
	pages, declared, truncated, reader, err := extractPDF(ctx, data, name, opts)
	if err != nil {
		return err
	}
	doc.Pages, doc.Truncated, doc.Reader = declared, truncated, reader

	var scanned []int // 0-based indexes of pages without usable text
	for i, p := range pages {
		if !usablePage(p) {
			scanned = append(scanned, i)
		}
	}
	textPages := len(pages) - len(scanned)
	if len(scanned) > 0 && opts.OCR != nil {
		what := "the PDF has no selectable text (it looks scanned)"
		if textPages > 0 {
			what = "some pages of the PDF have no selectable text (they look scanned)"
		}
		switch {
		case !opts.OCR.CanReadPDF() && textPages == 0:
			return opts.OCR.unavailable(name, what, true)
		case opts.OCR.CanReadPDF():
			if len(scanned) > opts.OCR.cfg.MaxPages {
				scanned = scanned[:opts.OCR.cfg.MaxPages]
				doc.Truncated = true
			}
			nums := make([]int, len(scanned))
			for i, p := range scanned {
				nums[i] = p + 1
			}
			octx, cancel := context.WithTimeout(ctx, opts.OCR.cfg.Timeout)
			defer cancel()
			texts, err := opts.OCR.readPDFPages(octx, data, nums)
			if err != nil {
				return ocrFailed(octx, opts.OCR, KindPDF, name, err)
			}
			for i, t := range texts {
				if strings.TrimSpace(t) != "" {
					pages[scanned[i]] = t
					doc.OCRPages++
				}
			}
		}
	}
	switch {
	case doc.OCRPages == 0:
		doc.Source = SourceText
	case textPages == 0:
		doc.Source = SourceOCR
	default:
		doc.Source = SourceMixed
	}
	// PDF spacing is layout, not content: runs of spaces collapse.
	doc.Text = normalize(strings.Join(pages, "\n\n"), true)
	return nil
}

// usablePage reports whether a page's text layer holds real text: enough
// letters, digits or CJK characters, and not mostly garbage.
func usablePage(text string) bool {
	s := measure(text)
	return s.good >= minPageRunes && !s.garbage()
}

// textStats counts the runes of a text by class.
type textStats struct {
	nonSpace int // runes that are not white space
	good     int // letters (any script, CJK included) and digits
	bad      int // U+FFFD, private use, control (other than white space), unassigned
	latin    int // Latin letters, ASCII and U+00C0-U+024F
	vowels   int // ASCII vowels (a e i o u y, either case)
	upper    int // ASCII capitals
	accented int // Latin letters outside ASCII
}

func measure(s string) textStats {
	var st textStats
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			st.good++
			switch {
			case r < 0x80 && unicode.IsLetter(r):
				st.latin++
				if r <= 'Z' {
					st.upper++
				}
				if strings.ContainsRune("aeiouyAEIOUY", r) {
					st.vowels++
				}
			case r >= 0xC0 && r <= 0x24F && unicode.IsLetter(r):
				st.latin++
				st.accented++
			}
		case r == utf8.RuneError || unicode.Is(unicode.Co, r) || unicode.IsControl(r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z):
			st.bad++
		}
		st.nonSpace++
	}
	return st
}

// Garbage thresholds: real resumes measure 0.75-0.95 letters and digits per
// non-space character (punctuation, bullets and symbols make the rest);
// text decoded with the wrong font tables is mostly symbols or U+FFFD.
const (
	minGoodRatio = 0.6
	maxBadRatio  = 0.1
)

// Latin text decoded with a font's own glyph codes instead of its Unicode
// map looks like letters but is not words: "&NJMZ$BSUFS" for "Emily Carter"
// (few vowels), "NãlE|t ²æ" (mostly accented letters). English has about 38 %
// vowels among letters, technical acronyms pull it down to about 25 %;
// French or German use a few percent accented letters. Shifted codes also
// turn lower case into capitals: "&NJMZ" for "Emily", where prose, even with
// acronyms and headings, is mostly lower case.
const (
	minLatinSample   = 40
	minVowelRatio    = 0.18
	maxAccentedRatio = 0.25
	maxUpperRatio    = 0.8
)

func (s textStats) garbage() bool {
	if s.nonSpace == 0 {
		return false
	}
	if float64(s.good) < minGoodRatio*float64(s.nonSpace) || float64(s.bad) > maxBadRatio*float64(s.nonSpace) {
		return true
	}
	// Only where Latin letters make most of the text: in Chinese text the
	// few Latin words are names and acronyms (SQL, gRPC, ms).
	return s.latin >= minLatinSample && 2*s.latin >= s.good &&
		(float64(s.vowels) < minVowelRatio*float64(s.latin) || float64(s.accented) > maxAccentedRatio*float64(s.latin) ||
			float64(s.upper) > maxUpperRatio*float64(s.latin))
}

// checkQuality rejects text too short to be what the caller needs (under
// minChars runes) or mostly garbage. The garbage check applies to every PDF
// and image (a failed decoding or OCR shows that way) and, when minChars is
// set, to every kind.
func checkQuality(doc Document, name, filename string, minChars int) error {
	st := measure(doc.Text)
	from := "from this file"
	if name != "" {
		from = "from " + quote(name)
	}
	notPDF := ""
	if doc.Kind != KindPDF && strings.HasSuffix(strings.ToLower(SanitizeName(filename)), ".pdf") {
		// Judged by its bytes, the file is not what its name says.
		notPDF = "this is not a PDF (its content is " + describeKind(doc.Kind) + "), and "
	}
	advice := adviceFor(doc)
	if minChars > 0 && doc.Chars < minChars {
		return unprocessable("%swe could read only %d characters %s (at least %d are needed for a resume): %s",
			notPDF, doc.Chars, apperr.Word(from), minChars, apperr.Word(advice))
	}
	if (minChars > 0 || doc.Kind == KindPDF || isImage(doc.Kind)) && st.garbage() {
		return unprocessable("%swe could read only garbled text %s (%d characters, %d of them letters or digits, that do not form words; its fonts could not be decoded): %s",
			notPDF, apperr.Word(from), doc.Chars, st.good, apperr.Word(advice))
	}
	return nil
}

// adviceFor says what to upload instead of a document that read badly.
func adviceFor(doc Document) string {
	switch {
	case doc.Source == SourceOCR || isImage(doc.Kind):
		return "upload a sharper, straight photo or scan (300 dpi, the whole page, good light), or better a PDF with selectable text"
	case doc.Kind == KindPDF:
		return "export the resume again as a PDF with selectable text (\"Save as PDF\" from Word, LibreOffice or the browser), or upload a TXT file"
	default:
		return "upload your full resume as a PDF with selectable text, or as a TXT or MD file"
	}
}

func describeKind(k Kind) string {
	switch k {
	case KindTXT, KindMD:
		return "plain text"
	case KindDOCX:
		return "a Word document"
	case KindJPEG, KindPNG, KindWEBP:
		return "an image"
	case "":
		return "no format we read"
	}
	return string(k)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `'`) + `"` }

func isImageData(data []byte) bool { _, _, ok := sniffImage(data); return ok }
