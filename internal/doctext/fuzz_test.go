package doctext_test

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
)

// FuzzExtract checks that no input makes Extract panic, that every error is
// a 422 *apperr.Error, and that every success respects the limits.
func FuzzExtract(f *testing.F) {
	f.Add(doctexttest.PDF(f, "Jane Doe", "Go engineer"), "cv.pdf")
	f.Add(doctexttest.PDFPages(f, []string{"one"}, []string{"two"}), "cv.pdf")
	f.Add(doctexttest.DOCX(f, "Jane Doe", "Go engineer"), "cv.docx")
	f.Add(doctexttest.DOCXBody(f, `<w:p><w:r><w:t>a</w:t><w:tab/><w:br/></w:r></w:p>`), "cv.docx")
	f.Add([]byte("\xEF\xBB\xBFline one\r\nline two"), "cv.txt")
	f.Add([]byte("# 简历\n\n- Go"), "cv.md")

	opts := doctext.Options{MaxChars: 1000, MaxPages: 5}
	f.Fuzz(func(t *testing.T, data []byte, filename string) {
		doc, err := doctext.Extract(context.Background(), data, filename, opts)
		if err != nil {
			if !apperr.Is(err, apperr.KindUnprocessable) {
				t.Fatalf("err = %v (%T), want a KindUnprocessable *apperr.Error", err, err)
			}
			return
		}
		if !utf8.ValidString(doc.Text) {
			t.Errorf("Text is not valid UTF-8: %q", doc.Text)
		}
		if n := utf8.RuneCountInString(doc.Text); n == 0 || n > opts.MaxChars {
			t.Errorf("Text has %d runes, want 1..%d", n, opts.MaxChars)
		}
		if doc.MIME == "" {
			t.Errorf("MIME is empty for kind %q", doc.Kind)
		}
	})
}

// FuzzExtractPDFObjects fuzzes the page tree, page and content stream of a
// PDF whose framing (header, cross-reference table, trailer) stays valid, so
// the fuzzer reaches the text interpreter instead of failing at the xref.
func FuzzExtractPDFObjects(f *testing.F) {
	f.Add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		"BT /F1 12 Tf 72 700 Td [(Hello) -300 (World)] TJ 0 -14 Td (again) Tj ET")
	f.Add("<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 9 >>",
		"<< /Type /Page /Contents [4 0 R 4 0 R] >>",
		"BT 1 0 0 1 72 700 Tm (a) Tj T* (b) ' 1 2 (c) \" ET")
	f.Add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Resources << /Font << /F1 6 0 R >> >> /Contents 4 0 R >>",
		"BT /F1 12 Tf <0001> Tj ET")

	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	cidFont := "<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 7 0 R >>"
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap " +
		"1 begincodespacerange <0000> <FFFF> endcodespacerange " +
		"1 beginbfchar <0001> <4F60> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
	opts := doctext.Options{MaxChars: 1000, MaxPages: 5}
	f.Fuzz(func(t *testing.T, pages, page, content string) {
		data := doctexttest.PDFObjects(t,
			"<< /Type /Catalog /Pages 2 0 R >>",
			pages, page,
			doctexttest.Stream(content),
			font, cidFont,
			doctexttest.Stream(cmap),
		)
		_, err := doctext.Extract(context.Background(), data, "cv.pdf", opts)
		if err != nil && !apperr.Is(err, apperr.KindUnprocessable) {
			t.Fatalf("err = %v (%T), want a KindUnprocessable *apperr.Error", err, err)
		}
	})
}
