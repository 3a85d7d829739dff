// Package doctexttest builds small, valid documents for tests of code that
// accepts uploads: a PDF whose text is known and a minimal .docx. The files
// are generated, deterministic and read back by package doctext.
package doctexttest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

// PDF returns a one-page PDF (Helvetica, WinAnsi encoding) showing each line
// on its own line. Text outside Latin-1 is written as '?'.
func PDF(tb testing.TB, lines ...string) []byte {
	tb.Helper()
	return PDFPages(tb, lines)
}

// PDFPages returns a PDF with one page per element of pages, each showing its
// lines top to bottom. An empty page has no text, like a scanned image.
func PDFPages(tb testing.TB, pages ...[]string) []byte {
	tb.Helper()
	if len(pages) == 0 {
		tb.Fatal("doctexttest.PDFPages: no pages")
	}
	// Objects: 1 catalog, 2 page tree, 3 font, then a page and its content
	// stream for each page.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	for i, lines := range pages {
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "+
				"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			Stream(content(lines)),
		)
	}
	return PDFObjects(tb, objs...)
}

// PDFObjects returns a PDF file holding objs as objects 1, 2, … with a
// correct cross-reference table and object 1 as the catalog (/Root). Each
// element is an object body such as "<< /Type /Catalog /Pages 2 0 R >>"; use
// Stream for content streams. It lets tests build unusual but well-framed
// files: odd operators, cyclic page trees, missing resources.
func PDFObjects(tb testing.TB, objs ...string) []byte {
	tb.Helper()
	if len(objs) == 0 {
		tb.Fatal("doctexttest.PDFObjects: no objects")
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// content is a page's content stream: 12-point Helvetica, 14 points between
// lines, starting an inch from the top-left corner.
func content(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("BT\n/F1 12 Tf\n72 720 Td\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("0 -14 Td\n")
		}
		fmt.Fprintf(&b, "(%s) Tj\n", pdfString(l))
	}
	b.WriteString("ET\n")
	return b.String()
}

// Stream returns a PDF stream object with data as its uncompressed content.
func Stream(data string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(data), data)
}

// pdfString encodes s as the body of a PDF literal string in WinAnsi.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7F:
			b.WriteRune(r)
		case r >= 0xA0 && r <= 0xFF: // Latin-1 and WinAnsi agree here
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// DOCX returns a minimal .docx whose body holds one paragraph per element of
// paragraphs.
func DOCX(tb testing.TB, paragraphs ...string) []byte {
	tb.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">`)
		if err := xml.EscapeText(&body, []byte(p)); err != nil {
			tb.Fatalf("doctexttest.DOCX: %v", err)
		}
		body.WriteString(`</w:t></w:r></w:p>`)
	}
	return DOCXBody(tb, body.String())
}

// DOCXBody returns a minimal .docx whose w:body holds bodyXML as it is, for
// tests that need runs, tabs or breaks. The w prefix is bound to the
// WordprocessingML namespace.
func DOCXBody(tb testing.TB, bodyXML string) []byte {
	tb.Helper()
	return Zip(tb,
		"[Content_Types].xml", contentTypes,
		"_rels/.rels", rels,
		"word/document.xml", xml.Header+
			`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`+
			`<w:body>`+bodyXML+`</w:body></w:document>`,
	)
}

// Zip returns a zip archive of the given name, content pairs, in order.
func Zip(tb testing.TB, nameContent ...string) []byte {
	tb.Helper()
	if len(nameContent)%2 != 0 {
		tb.Fatal("doctexttest.Zip: odd number of arguments")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(nameContent); i += 2 {
		w, err := zw.Create(nameContent[i])
		if err != nil {
			tb.Fatalf("doctexttest.Zip: %v", err)
		}
		if _, err := w.Write([]byte(nameContent[i+1])); err != nil {
			tb.Fatalf("doctexttest.Zip: %v", err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatalf("doctexttest.Zip: %v", err)
	}
	return buf.Bytes()
}

const contentTypes = xml.Header + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
	`</Types>`

const rels = xml.Header + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
	`</Relationships>`
