package doctext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/internal/pdf"
)

const (
	// maxPageTreeDepth bounds the nesting of the page tree; real files use a
	// handful of levels, and a cyclic tree must not recurse forever.
	maxPageTreeDepth = 32
	// pageTreeVisitsPerPage bounds the page-tree nodes visited per page
	// read, so a tree of empty or cyclic nodes cannot keep us busy.
	pageTreeVisitsPerPage = 8
)

// extractPDF returns the text of at most opts.MaxPages pages of data, the
// page count and whether pages or characters were left out.
func extractPDF(data []byte, name string, opts Options) (text string, pages int, truncated bool, err error) {
	data = acceptPDF2(data)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if isEncryptionError(err, data) {
			return "", 0, false, encrypted(name).WithCause(err)
		}
		return "", 0, false, unreadable(KindPDF, name).WithCause(err)
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		// Even files that open with an empty password are rejected: their
		// decryption support in the library is weak, and a clear message
		// beats garbled text.
		return "", 0, false, encrypted(name)
	}

	list, more := collectPages(r.Trailer().Key("Root").Key("Pages"), opts.MaxPages)
	pages = r.NumPage()
	if pages < len(list) || pages > len(list) && !more {
		pages = len(list) // the declared count is wrong; trust the tree
	}

	var b strings.Builder
	var firstErr error
	// Read more runes than are kept: normalising drops layout whitespace,
	// and Extract cuts the result to MaxChars exactly.
	budget := 2*opts.MaxChars + 1
	for _, p := range list {
		t, full, err := pageText(p, budget)
		if err != nil {
			// Keep what the other pages give; fail only if none does.
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		b.WriteString(t)
		b.WriteString("\n\n")
		if full {
			truncated = true
			break
		}
		budget -= utf8.RuneCountInString(t)
	}
	text = normalize(b.String(), true)
	if strings.TrimSpace(text) == "" && firstErr != nil {
		return "", 0, false, unreadable(KindPDF, name).WithCause(firstErr)
	}
	return text, pages, truncated || more, nil
}

// collectPages walks the page tree under root in order and returns at most
// max pages, and whether the tree holds more.
func collectPages(root pdf.Value, max int) (pages []pdf.Page, more bool) {
	budget := max*pageTreeVisitsPerPage + 64
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if more || budget <= 0 || depth > maxPageTreeDepth || v.Kind() != pdf.Dict {
			return
		}
		budget--
		kids := v.Key("Kids")
		if kids.Kind() == pdf.Array && v.Key("Type").Name() != "Page" {
			for i := 0; i < kids.Len() && !more && budget > 0; i++ {
				walk(kids.Index(i), depth+1)
			}
			return
		}
		if len(pages) == max {
			more = true
			return
		}
		pages = append(pages, pdf.Page{V: v})
	}
	walk(root, 0)
	return pages, more
}

// acceptPDF2 relabels a PDF 2.0 header as 1.7, which the library refuses
// although it reads the rest of such files like any other. The header has the
// same length, so no offset moves. data is not modified.
func acceptPDF2(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte("%PDF-2.")) || len(data) < 8 {
		return data
	}
	c := bytes.Clone(data)
	copy(c[5:8], "1.7")
	return c
}

// isEncryptionError reports whether the library failed to open data because
// it is encrypted. Some of its encryption errors (a missing /ID, say) do not
// say so, and the trailer is not reachable once opening failed, so a failure
// on a file that names an /Encrypt dictionary counts too.
func isEncryptionError(err error, data []byte) bool {
	return errors.Is(err, pdf.ErrInvalidPassword) ||
		strings.Contains(strings.ToLower(err.Error()), "encrypt") ||
		bytes.Contains(data, []byte("/Encrypt"))
}

func encrypted(name string) *apperr.Error {
	return unprocessable("%sthe PDF is encrypted: remove the password or protection, or export it again without it, and upload the new file", prefix(name))
}

// errPageFull stops the content interpreter once a page has given enough text.
var errPageFull = errors.New("doctext: text budget reached")

// wordGap is the TJ adjustment, in thousandths of a text-space unit, beyond
// which a gap between two strings is read as a space between words.
const wordGap = 200

// lineTolerance is how far, in text-space units, the baseline may move before
// text is read as being on a new line (superscripts stay on their line).
const lineTolerance = 2.0

// pageText returns the text shown on p, at most budget runes, and whether it
// stopped at the budget. It follows the library's Page.GetPlainText but bounds
// the text (a small compressed stream can inflate to gigabytes of it) and
// turns line moves and wide TJ gaps into line breaks and spaces, so words and
// lines do not run together.
func pageText(p pdf.Page, budget int) (text string, full bool, err error) {
	contents := p.V.Key("Contents")
	if p.V.IsNull() || contents.IsNull() || budget <= 0 {
		return "", budget <= 0, nil
	}
	var b strings.Builder
	n := 0 // runes written
	defer func() {
		if r := recover(); r != nil {
			if r == errPageFull { //nolint:errorlint // our own sentinel, not wrapped
				text, full, err = b.String(), true, nil
				return
			}
			text, full, err = "", false, fmt.Errorf("malformed PDF page: %v", r)
		}
	}()

	write := func(s string) {
		for _, r := range s {
			if n == budget {
				panic(errPageFull)
			}
			b.WriteRune(r)
			n++
		}
	}
	// Line breaks come from where text is drawn, not from operators: a
	// run shown lower or higher than the previous one starts a new line,
	// one on the same line after a move is a new word. Only the text line
	// matrix is tracked (a, b, c, d, e, f as in PDF 32000 §9.4.2); the
	// current transformation matrix rarely changes between lines.
	var tlm [6]float64
	reset := func() { tlm = [6]float64{1, 0, 0, 1, 0, 0} }
	reset()
	move := func(tx, ty float64) {
		tlm[4] += tx*tlm[0] + ty*tlm[2]
		tlm[5] += tx*tlm[1] + ty*tlm[3]
	}
	var lastY float64
	shown := false // whether any text was shown yet
	sep := ""      // separator owed before the next text: "", " " or "\n"
	owe := func(s string) {
		if sep != "\n" {
			sep = s
		}
	}

	fonts := make(map[string]*pdf.Font)
	var enc pdf.TextEncoding
	show := func(raw string) {
		text := raw // no font selected: take the bytes as they are
		if enc != nil {
			text = enc.Decode(raw)
		}
		if text == "" {
			return
		}
		if shown && math.Abs(tlm[5]-lastY) > lineTolerance {
			sep = "\n"
		}
		if shown {
			write(sep)
		}
		sep, lastY, shown = "", tlm[5], true
		write(text)
	}
	num := func(v pdf.Value) float64 {
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return f
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			reset()
			owe(" ")
		case "Td", "TD":
			if len(args) == 2 {
				move(num(args[0]), num(args[1]))
			}
			owe(" ")
		case "Tm":
			if len(args) == 6 {
				for i := range tlm {
					tlm[i] = num(args[i])
				}
			}
			owe(" ")
		case "T*":
			owe("\n")
		case "Tf":
			if len(args) != 2 {
				return
			}
			name := args[0].Name()
			f, ok := fonts[name]
			if !ok {
				font := p.Font(name)
				f = &font
				fonts[name] = f
			}
			enc = f.Encoder()
		case "'", "\"":
			owe("\n")
			if len(args) > 0 {
				show(args[len(args)-1].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				switch x := v.Index(i); x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					if num(x) < -wordGap {
						owe(" ")
					}
				}
			}
		}
	})
	return b.String(), false, nil
}
