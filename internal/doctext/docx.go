package doctext

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

const (
	// docxMainPart is the part of a .docx that holds the body text.
	docxMainPart = "word/document.xml"
	// maxDOCXXML bounds the uncompressed size of docxMainPart read, so a
	// small zip bomb cannot make us inflate gigabytes.
	maxDOCXXML = 20 << 20
	// maxXMLDepth bounds element nesting; Word nests a few dozen levels at
	// most (tables in tables), and the decoder keeps a stack per level.
	maxXMLDepth = 256
)

// errTooLarge and errTooDeep say why a DOCX was refused.
var (
	errTooLarge = errors.New("doctext: word/document.xml exceeds the size limit")
	errTooDeep  = errors.New("doctext: XML nesting exceeds the depth limit")
)

// openZip reads the central directory of data. Entry names are never used as
// paths, so the insecure-path warning is not an error here.
func openZip(data []byte) (*zip.Reader, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if errors.Is(err, zip.ErrInsecurePath) {
		err = nil
	}
	return z, err
}

// isDOCX reports whether data is a zip archive holding word/document.xml.
func isDOCX(data []byte) bool {
	z, err := openZip(data)
	return err == nil && findFile(z, docxMainPart) != nil
}

func findFile(z *zip.Reader, name string) *zip.File {
	for _, f := range z.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// extractDOCX returns the text of the main document part of a .docx.
func extractDOCX(data []byte, name string) (string, error) {
	z, err := openZip(data)
	if err != nil {
		return "", unreadable(KindDOCX, name).WithCause(err)
	}
	f := findFile(z, docxMainPart)
	if f == nil {
		return "", unreadable(KindDOCX, name).WithCause(errors.New("no " + docxMainPart))
	}
	if f.UncompressedSize64 > maxDOCXXML {
		return "", tooBig(name).WithCause(errTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return "", unreadable(KindDOCX, name).WithCause(err)
	}
	defer rc.Close()

	// The header's size may lie; the limit holds whatever it says.
	lr := &limitedReader{r: rc, n: maxDOCXXML}
	text, err := docxText(lr)
	switch {
	case lr.over:
		return "", tooBig(name).WithCause(errTooLarge)
	case err != nil:
		return "", unreadable(KindDOCX, name).WithCause(err)
	}
	return text, nil
}

func tooBig(name string) *apperr.Error {
	return unprocessable("%sthe DOCX is too large once uncompressed: split it, or upload it as a PDF or TXT file", prefix(name))
}

// limitedReader is io.LimitedReader that remembers whether the limit cut the
// input short, to tell "too large" from "malformed".
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// Probe one byte: exactly n bytes is fine, more is not.
		var b [1]byte
		if k, _ := l.r.Read(b[:]); k > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

// docxText reads WordprocessingML and returns the text of its runs: w:t
// text, a tab for w:tab, a line break for w:br and w:cr, and a blank line
// after each w:p paragraph. Deleted text (w:delText), field codes and the
// fallback copies of alternate content are skipped.
func docxText(r io.Reader) (string, error) {
	d := xml.NewDecoder(r)
	var b strings.Builder
	var stack []string // local names of the open elements
	depth := 0
	inText := 0 // depth of the open w:t, or 0
	skip := 0   // depth of the skipped subtree, or 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxXMLDepth {
				return "", errTooDeep
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name.Local)
			if skip != 0 {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = depth
			case "tab":
				if parent != "tabs" { // w:tabs/w:tab defines a tab stop
					b.WriteByte('\t')
				}
			case "br", "cr":
				b.WriteByte('\n')
			case "Fallback":
				// mc:Fallback repeats what mc:Choice holds.
				skip = depth
			}
		case xml.EndElement:
			switch {
			case depth == skip:
				skip = 0
			case depth == inText:
				inText = 0
			case skip == 0 && t.Name.Local == "p":
				b.WriteString("\n\n")
			}
			depth--
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if inText != 0 && skip == 0 {
				b.Write(t)
			}
		}
	}
}
