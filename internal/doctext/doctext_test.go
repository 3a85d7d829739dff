package doctext_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
)

// MustUnprocessable fails tb unless err is an *apperr.Error of kind
// KindUnprocessable whose message contains want.
func MustUnprocessable(tb testing.TB, err error, want string) {
	tb.Helper()
	e := apperr.As(err)
	if e == nil {
		tb.Fatalf("err = %v (%T), want *apperr.Error", err, err)
	}
	if e.Kind != apperr.KindUnprocessable || e.Code != apperr.CodeUnprocessable {
		tb.Errorf("kind, code = %v, %s; want KindUnprocessable, %s", e.Kind, e.Code, apperr.CodeUnprocessable)
	}
	if !strings.Contains(e.Message, want) {
		tb.Errorf("message = %q, want it to contain %q", e.Message, want)
	}
}

// MustExtract extracts data and fails tb on error.
func MustExtract(tb testing.TB, data []byte, filename string, opts doctext.Options) doctext.Document {
	tb.Helper()
	doc, err := doctext.Extract(context.Background(), data, filename, opts)
	if err != nil {
		tb.Fatalf("Extract(%q): %v", filename, err)
	}
	return doc
}

// MustContainInOrder fails tb unless each of parts occurs in text after the
// previous one.
func MustContainInOrder(tb testing.TB, text string, parts ...string) {
	tb.Helper()
	rest := text
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			tb.Fatalf("text %q lacks %q (in order)", text, p)
		}
		rest = rest[i+len(p):]
	}
}

var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")

func TestSniff(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		filename string
		wantKind doctext.Kind
		wantMIME string
		wantErr  string // part of the message; "" for success
	}{
		{"pdf", doctexttest.PDF(t, "hi"), "cv.pdf", doctext.KindPDF, doctext.MIMEPDF, ""},
		{"pdf named txt", doctexttest.PDF(t, "hi"), "cv.txt", doctext.KindPDF, doctext.MIMEPDF, ""},
		{"docx", doctexttest.DOCX(t, "hi"), "cv.docx", doctext.KindDOCX, doctext.MIMEDOCX, ""},
		{"txt", []byte("hello"), "notes.txt", doctext.KindTXT, doctext.MIMETXT, ""},
		{"no extension", []byte("hello"), "notes", doctext.KindTXT, doctext.MIMETXT, ""},
		{"md", []byte("# Title"), "README.md", doctext.KindMD, doctext.MIMEMD, ""},
		{"markdown upper case", []byte("# Title"), "CV.MARKDOWN", doctext.KindMD, doctext.MIMEMD, ""},
		{"utf-8 with BOM", []byte("\xEF\xBB\xBFhello"), "a.txt", doctext.KindTXT, doctext.MIMETXT, ""},
		{"png named pdf", pngHeader, "cv.pdf", doctext.KindPNG, doctext.MIMEPNG, ""},
		{"jpeg", []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"), "photo", doctext.KindJPEG, doctext.MIMEJPEG, ""},
		{"webp named txt", []byte("RIFF\x10\x00\x00\x00WEBPVP8 "), "cv.txt", doctext.KindWEBP, doctext.MIMEWEBP, ""},
		{"binary named pdf", []byte{0x00, 0x01, 0xFE, 0x42, 0x00}, "cv.pdf", "", "", "this is not a PDF"},
		{"binary named txt", []byte{0x00, 0x01, 0xFE, 0x42, 0x00}, "cv.txt", "", "", "unsupported file type"},
		{"utf-16 named txt", []byte("\xFF\xFEh\x00i\x00"), "cv.txt", "", "", "unsupported file type"},
		{"latin-1 text", []byte("caf\xE9"), "cv.txt", "", "", "not valid UTF-8"},
		{"zip without document.xml", doctexttest.Zip(t, "xl/workbook.xml", "<x/>"), "cv.docx", "", "", "unsupported file type"},
		{"truncated zip", doctexttest.DOCX(t, "hi")[:30], "cv.docx", "", "", "unsupported file type"},
		{"empty", nil, "cv.txt", "", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, mime, err := doctext.Sniff(tt.data, tt.filename)
			if tt.wantErr != "" {
				MustUnprocessable(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Sniff: %v", err)
			}
			if kind != tt.wantKind || mime != tt.wantMIME {
				t.Errorf("Sniff = %q, %q; want %q, %q", kind, mime, tt.wantKind, tt.wantMIME)
			}
		})
	}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name      string
		data      []byte
		filename  string
		wantKind  doctext.Kind
		wantText  string // exact text, or "" to check wantParts only
		wantParts []string
		wantPages int
	}{
		{
			name:      "pdf lines",
			data:      doctexttest.PDF(t, "Jane Doe", "Go engineer (5 years)", `C:\path`),
			filename:  "cv.pdf",
			wantKind:  doctext.KindPDF,
			wantText:  "Jane Doe\nGo engineer (5 years)\nC:\\path",
			wantPages: 1,
		},
		{
			name: "pdf pages",
			data: doctexttest.PDFPages(t,
				[]string{"Page one, line one", "Page one, line two"},
				[]string{"Page two"},
				[]string{"Page three"}),
			filename:  "cv.pdf",
			wantKind:  doctext.KindPDF,
			wantParts: []string{"Page one, line one\nPage one, line two", "Page two", "Page three"},
			wantPages: 3,
		},
		{
			name:     "pdf latin-1",
			data:     doctexttest.PDF(t, "Café, naïve, Zürich"),
			filename: "cv.pdf",
			wantKind: doctext.KindPDF,
			wantText: "Café, naïve, Zürich",
			// the declared page count
			wantPages: 1,
		},
		{
			name:     "docx paragraphs",
			data:     doctexttest.DOCX(t, "Jane Doe", "Skills: Go & SQL <fast>", "简历"),
			filename: "cv.docx",
			wantKind: doctext.KindDOCX,
			wantText: "Jane Doe\n\nSkills: Go & SQL <fast>\n\n简历",
		},
		{
			name:     "txt with BOM and CRLF",
			data:     []byte("\xEF\xBB\xBFline one\r\nline two\r\n\r\nline three\rend"),
			filename: "cv.txt",
			wantKind: doctext.KindTXT,
			wantText: "line one\nline two\n\nline three\nend",
		},
		{
			name:     "md kept as written",
			data:     []byte("# Jane\n\n    code block\n- item\n"),
			filename: "cv.md",
			wantKind: doctext.KindMD,
			wantText: "# Jane\n\n    code block\n- item\n",
		},
		{
			name:     "chinese txt",
			data:     []byte("张三\n高级 Go 工程师，五年经验。\n"),
			filename: "简历.txt",
			wantKind: doctext.KindTXT,
			wantText: "张三\n高级 Go 工程师，五年经验。\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustExtract(t, tt.data, tt.filename, doctext.Options{})
			if got.Kind != tt.wantKind {
				t.Errorf("Kind = %q, want %q", got.Kind, tt.wantKind)
			}
			if tt.wantText != "" && got.Text != tt.wantText {
				t.Errorf("Text = %q, want %q", got.Text, tt.wantText)
			}
			MustContainInOrder(t, got.Text, tt.wantParts...)
			if got.Pages != tt.wantPages {
				t.Errorf("Pages = %d, want %d", got.Pages, tt.wantPages)
			}
			if got.Truncated {
				t.Error("Truncated = true, want false")
			}
		})
	}
}

func TestExtractDOCXMarkup(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"tab and break", `<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r></w:p>`, "a\tb\nc"},
		{"runs join", `<w:p><w:r><w:t>Go</w:t></w:r><w:r><w:t xml:space="preserve"> developer</w:t></w:r></w:p>`, "Go developer"},
		{"tab stops are not tabs", `<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>x</w:t></w:r></w:p>`, "x"},
		{"deleted text skipped", `<w:p><w:del><w:r><w:delText>old</w:delText></w:r></w:del><w:r><w:t>new</w:t></w:r></w:p>`, "new"},
		{"empty paragraphs collapse", `<w:p><w:r><w:t>a</w:t></w:r></w:p><w:p/><w:p/><w:p><w:r><w:t>b</w:t></w:r></w:p>`, "a\n\nb"},
		{"table cells", `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>k</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>v</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`, "k\n\nv"},
		{
			"alternate content once",
			`<w:p><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">` +
				`<mc:Choice Requires="wps"><w:r><w:t>box</w:t></w:r></mc:Choice>` +
				`<mc:Fallback><w:r><w:t>box</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>`,
			"box",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustExtract(t, doctexttest.DOCXBody(t, tt.body), "cv.docx", doctext.Options{})
			if got.Text != tt.want {
				t.Errorf("Text = %q, want %q", got.Text, tt.want)
			}
		})
	}
}

func TestExtractPDFLayout(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	page := func(content string) []byte {
		return doctexttest.PDFObjects(t,
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			doctexttest.Stream(content),
			font,
		)
	}
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"TJ word gap", "BT /F1 12 Tf 72 700 Td [(Hello) -300 (World) -20 (!)] TJ ET", "Hello World!"},
		{"Tm lines", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (one) Tj 1 0 0 1 72 680 Tm (two) Tj ET", "one\ntwo"},
		{"same line across text objects", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (left) Tj ET BT /F1 12 Tf 1 0 0 1 300 700 Tm (right) Tj ET", "left right"},
		{"T* and quote", "BT /F1 12 Tf 14 TL 72 700 Td (a) Tj T* (b) Tj (c) ' ET", "a\nb\nc"},
		{"spaces collapse", "BT /F1 12 Tf 72 700 Td (a     b\t\tc) Tj ET", "a b c"},
		{"unknown font", "BT /F9 12 Tf 72 700 Td (raw) Tj ET", "raw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustExtract(t, page(tt.content), "cv.pdf", doctext.Options{})
			if got.Text != tt.want {
				t.Errorf("Text = %q, want %q", got.Text, tt.want)
			}
		})
	}
}

func TestExtractLimits(t *testing.T) {
	t.Run("max chars txt", func(t *testing.T) {
		got := MustExtract(t, []byte("一二三四五六"), "a.txt", doctext.Options{MaxChars: 4})
		if got.Text != "一二三四" || !got.Truncated {
			t.Errorf("Text, Truncated = %q, %v; want %q, true", got.Text, got.Truncated, "一二三四")
		}
	})
	t.Run("max chars exact", func(t *testing.T) {
		got := MustExtract(t, []byte("abcd"), "a.txt", doctext.Options{MaxChars: 4})
		if got.Text != "abcd" || got.Truncated {
			t.Errorf("Text, Truncated = %q, %v; want %q, false", got.Text, got.Truncated, "abcd")
		}
	})
	t.Run("max chars pdf", func(t *testing.T) {
		data := doctexttest.PDFPages(t, []string{"0123456789"}, []string{"abcdefghij"}, []string{"KLMNOPQRST"})
		got := MustExtract(t, data, "a.pdf", doctext.Options{MaxChars: 15})
		if got.Text != "0123456789\n\nabc" || !got.Truncated {
			t.Errorf("Text, Truncated = %q, %v; want %q, true", got.Text, got.Truncated, "0123456789\n\nabc")
		}
	})
	t.Run("max pages", func(t *testing.T) {
		data := doctexttest.PDFPages(t, []string{"p1"}, []string{"p2"}, []string{"p3"}, []string{"p4"})
		got := MustExtract(t, data, "a.pdf", doctext.Options{MaxPages: 2})
		if got.Text != "p1\n\np2" || !got.Truncated || got.Pages != 4 {
			t.Errorf("Text, Truncated, Pages = %q, %v, %d; want %q, true, 4", got.Text, got.Truncated, got.Pages, "p1\n\np2")
		}
	})
	t.Run("max chars docx", func(t *testing.T) {
		got := MustExtract(t, doctexttest.DOCX(t, strings.Repeat("x", 50)), "a.docx", doctext.Options{MaxChars: 10})
		if got.Text != strings.Repeat("x", 10) || !got.Truncated {
			t.Errorf("Text, Truncated = %q, %v", got.Text, got.Truncated)
		}
	})
}

// zipBomb is a 30 MiB word/document.xml compressed to a few tens of KiB. With
// lie set, the zip header claims it is 1 KiB; archive/zip then stops reading
// at that size, and the reading limit would stop it anyway.
func zipBomb(tb testing.TB, lie bool) []byte {
	tb.Helper()
	const size = 30 << 20
	body := bytes.Repeat([]byte("<w:p><w:r><w:t>bomb</w:t></w:r></w:p>"), size/38)
	var compressed bytes.Buffer
	fw, err := flate.NewWriter(&compressed, flate.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	fw.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
	fw.Write(body)
	fw.Write([]byte(`</w:body></w:document>`))
	if err := fw.Close(); err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CompressedSize64: uint64(compressed.Len()), UncompressedSize64: uint64(len(body)) + 200}
	if lie {
		hdr.UncompressedSize64 = 1 << 10
	}
	w, err := zw.CreateRaw(hdr)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(compressed.Bytes())
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractZipBomb(t *testing.T) {
	tests := []struct {
		name string
		lie  bool
		want string
	}{
		{"honest header", false, "the DOCX is too large once uncompressed"},
		{"lying header", true, "the DOCX could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := zipBomb(t, tt.lie)
			if len(data) > 1<<20 {
				t.Fatalf("bomb is %d bytes; the test wants a small one", len(data))
			}
			_, err := doctext.Extract(context.Background(), data, "bomb.docx", doctext.Options{})
			MustUnprocessable(t, err, tt.want)
		})
	}
}

func TestExtractDOCXDeepXML(t *testing.T) {
	body := strings.Repeat("<w:x>", 10_000) + strings.Repeat("</w:x>", 10_000)
	_, err := doctext.Extract(context.Background(), doctexttest.DOCXBody(t, body), "deep.docx", doctext.Options{})
	MustUnprocessable(t, err, "could not be read")
}

func TestExtractBadPDF(t *testing.T) {
	good := doctexttest.PDFPages(t, []string{"alpha", "beta"}, []string{"gamma"})
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"cut in half", good[:len(good)/2], "could not be read"},
		{"garbage after header", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0xAB, 0x00, '(', '<'}, 500)...), "could not be read"},
		{"header only", []byte("%PDF-"), "could not be read"},
		{"xref points into garbage", bytes.Replace(good, []byte("startxref\n"), []byte("startxref\n1"), 1), "could not be read"},
		{"encrypted", encrypt(good, "/ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]"), "the PDF is encrypted"},
		{"encrypted without ID", encrypt(good, ""), "the PDF is encrypted"},
		{"encrypted with unknown filter", bytes.Replace(good, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt << /Filter /Custom >>"), 1), "the PDF is encrypted"},
		{"no text", doctexttest.PDFPages(t, nil, nil), "no extractable text"},
		{
			"cyclic page tree",
			doctexttest.PDFObjects(t,
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
				"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"),
			"no extractable text",
		},
		{
			"broken content stream",
			doctexttest.PDFObjects(t,
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
				doctexttest.Stream("BT 72 700 Td (text) Tj ET end")),
			"could not be read",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The Go reader's errors: pdftotext, when installed, repairs
			// some of these files (a wrong startxref, say).
			_, err := doctext.Extract(context.Background(), tt.data, "cv.pdf", doctext.Options{PureGo: true})
			MustUnprocessable(t, err, tt.want)
		})
	}
}

// encrypt adds to the trailer of data an RC4 encryption dictionary whose
// user password is not empty, and the extra trailer entries.
func encrypt(data []byte, extra string) []byte {
	const key = "<00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF>"
	dict := "/Encrypt << /Filter /Standard /V 1 /R 2 /O " + key + " /U " + key + " /P -4 >> " + extra
	return bytes.Replace(data, []byte("/Root 1 0 R"), []byte("/Root 1 0 R "+dict), 1)
}

// flateStream returns a FlateDecode stream object holding data compressed.
func flateStream(tb testing.TB, data []byte) string {
	tb.Helper()
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", buf.Len(), buf.Bytes())
}

func TestExtractPDFBombs(t *testing.T) {
	pdfWith := func(content string) []byte {
		return doctexttest.PDFObjects(t,
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
			content)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"operands without operator", pdfWith(doctexttest.Stream(strings.Repeat("0 ", 100_000)))},
		{"unterminated hex string", pdfWith(doctexttest.Stream("BT (a) Tj <4"))},
		{"stream inflating past the cap", pdfWith(flateStream(t, bytes.Repeat([]byte("% filler\n"), 4<<20)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := doctext.Extract(context.Background(), tt.data, "bomb.pdf", doctext.Options{})
			MustUnprocessable(t, err, "the PDF could not be read")
		})
	}
}

func TestExtractPDF2Header(t *testing.T) {
	data := doctexttest.PDF(t, "version two")
	copy(data[5:8], "2.0")
	got := MustExtract(t, data, "cv.pdf", doctext.Options{})
	if got.Text != "version two" {
		t.Errorf("Text = %q, want %q", got.Text, "version two")
	}
	if !bytes.HasPrefix(data, []byte("%PDF-2.0")) {
		t.Error("Extract modified its input")
	}
}

func TestExtractAllowed(t *testing.T) {
	resume := doctext.Options{Allowed: []doctext.Kind{doctext.KindPDF, doctext.KindTXT, doctext.KindMD}}
	pdfOnly := doctext.Options{Allowed: []doctext.Kind{doctext.KindPDF}}
	tests := []struct {
		name string
		data []byte
		opts doctext.Options
		want string
	}{
		{"docx for a resume", doctexttest.DOCX(t, "hi"), resume, `"cv.docx": unsupported file type: upload a PDF, TXT or MD file`},
		{"png for a resume", pngHeader, resume, "upload a PDF, TXT or MD file"},
		{"text when only pdf", []byte("hello"), pdfOnly, "unsupported file type: upload a PDF file"},
		{"latin-1 when only pdf", []byte("caf\xE9"), pdfOnly, "unsupported file type: upload a PDF file"},
		{"latin-1 for a resume", []byte("caf\xE9"), resume, "the file is not valid UTF-8 text"},
		{"blank text", []byte(" \r\n\t\n"), resume, "the file is empty"},
		{"blank docx", doctexttest.DOCX(t, " ", ""), doctext.Options{}, "the DOCX has no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := doctext.Extract(context.Background(), tt.data, "cv.docx", tt.opts)
			MustUnprocessable(t, err, tt.want)
		})
	}
}

func TestSanitizeName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "cv.pdf", "cv.pdf"},
		{"unix path", "../../etc/passwd", "passwd"},
		{"windows path", `C:\Users\jane\cv.pdf`, "cv.pdf"},
		{"control characters", "c\x00v\n.pdf\x1b", "cv.pdf"},
		{"invalid utf-8", "c\xffv.pdf", "cv.pdf"},
		{"long", strings.Repeat("简", 150) + ".pdf", strings.Repeat("简", 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := doctext.SanitizeName(tt.in); got != tt.want {
				t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestErrorNamesSanitisedFile(t *testing.T) {
	_, err := doctext.Extract(context.Background(), pngHeader, "../../secret/\x1bphoto.png", doctext.Options{})
	MustUnprocessable(t, err, `"photo.png": unsupported file type`)
	if e := apperr.As(err); strings.Contains(e.Message, "secret") {
		t.Errorf("message %q leaks the path", e.Message)
	}
	if !errors.As(err, new(*apperr.Error)) {
		t.Error("errors.As(*apperr.Error) = false")
	}
}
