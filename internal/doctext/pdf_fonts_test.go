package doctext_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
)

// onePage is a PDF whose page draws content with font /F1 (object 5) whose
// ToUnicode CMap, if any, is object 6.
func onePage(t *testing.T, font, cmap, content string) []byte {
	t.Helper()
	return doctexttest.PDFObjects(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		doctexttest.Stream(content),
		font,
		doctexttest.Stream(cmap),
	)
}

func cmapOf(body string) string {
	return "/CIDInit /ProcSet findresource begin 12 dict begin begincmap " +
		"/CMapName /Test def 1 begincodespacerange <0000> <FFFF> endcodespacerange " +
		body + " endcmap CMapName currentdict /CMap defineresource pop end end"
}

const (
	type0 = "<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 6 0 R " +
		"/DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /DW 500 /W [1 [600 600] 10 20 1000] >>] >>"
	type3 = "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 -0.001 0 0] /FirstChar 0 /LastChar 3 " +
		"/Widths [500 500 500 1000] /Encoding << /Differences [0 /g0 /g1 /g2 /g3] >> /ToUnicode 6 0 R >>"
)

func TestPDFFonts(t *testing.T) {
	tests := []struct {
		name, font, cmap, content, want string
	}{
		{
			"Identity-H with bfchar and bfrange (Chrome)",
			type0,
			cmapOf("2 beginbfchar <0001> <004A> <0002> <0061> endbfchar 1 beginbfrange <0010> <0012> <006E> endbfrange"),
			"BT /F1 12 Tf 72 700 Td <000100020010> Tj ET",
			"Jan",
		},
		{
			"bfrange array form, surrogate pair and ligature",
			type0,
			cmapOf("1 beginbfrange <0010> <0012> [<0066006C> <D83DDE00> <4F60>] endbfrange"),
			"BT /F1 12 Tf 72 700 Td <001000110012> Tj ET",
			"fl😀你",
		},
		{
			"words from glyph positions, no spaces between CJK",
			type0,
			cmapOf("4 beginbfchar <0001> <0047> <0002> <006F> <000A> <4F60> <000B> <597D> endbfchar"),
			// Go, a 6-unit gap, then 你好 drawn glyph by glyph.
			"BT /F1 10 Tf 72 700 Td <00010002> Tj 18 0 Td <000A> Tj 10 0 Td <000B> Tj ET",
			"Go 你好",
		},
		{
			"Type3 with ToUnicode (Chrome's CJK fonts)",
			type3,
			cmapOf("1 beginbfrange <00> <03> <0041> endbfrange"),
			"BT /F1 12 Tf 72 700 Td <00010203> Tj ET",
			"ABCD",
		},
		{
			"simple font with Differences",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Foo /FirstChar 1 /LastChar 3 /Widths [500 500 500] " +
				"/Encoding << /BaseEncoding /WinAnsiEncoding /Differences [1 /J /a /uni006E 4 /fi] >> >>",
			"",
			"BT /F1 12 Tf 72 700 Td <01020304> Tj ET",
			"Janfi",
		},
		{
			"standard 14 font without widths: words from moves and wide TJ gaps",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
			"",
			"BT /F1 12 Tf 72 700 Td (Jane) Tj 30 0 Td (Doe,) Tj ET BT /F1 12 Tf 72 680 Td [(Kub) -20 (ernetes) -400 (Go)] TJ ET",
			"Jane Doe,\nKubernetes Go",
		},
		{
			"predefined GBK CMap without ToUnicode (non-embedded STSong-Light)",
			"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /GBK-EUC-H " +
				"/DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light " +
				"/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> /DW 1000 >>] >>",
			"",
			"BT /F1 12 Tf 72 700 Td <C4E3BAC320476F> Tj ET",
			"你好 Go",
		},
		{
			"lines top to bottom whatever the drawing order",
			"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /Encoding /WinAnsiEncoding >>",
			"",
			"BT /F1 12 Tf 72 600 Td (second) Tj ET BT /F1 12 Tf 72 700 Td (first) Tj ET",
			"first\nsecond",
		},
		{
			"two columns read column by column",
			"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 32 /LastChar 122 /Encoding /WinAnsiEncoding >>",
			"",
			"BT /F1 10 Tf 14 TL 72 700 Td (left one) Tj 300 0 Td (right one) Tj -300 -14 Td (left two) Tj " +
				"300 0 Td (right two) Tj -300 -14 Td (left three) Tj 300 0 Td (right three) Tj ET",
			"left one\nleft two\nleft three\n\nright one\nright two\nright three",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := onePage(t, tt.font, tt.cmap, tt.content)
			doc, err := doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{PureGo: true})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(doc.Text, "\n\n", "\n")
			if want := strings.ReplaceAll(tt.want, "\n\n", "\n"); got != want {
				t.Errorf("Text = %q, want %q", doc.Text, tt.want)
			}
		})
	}
}

// text is one string drawn by a PDF content stream: size points at (x, y).
type text struct {
	size, x, y float64
	s          string
}

// drawn is a content stream drawing texts in the order given.
func drawn(texts ...text) string {
	var b strings.Builder
	for _, t := range texts {
		fmt.Fprintf(&b, "BT /F1 %g Tf 1 0 0 1 %g %g Tm (%s) Tj ET\n", t.size, t.x, t.y, t.s)
	}
	return b.String()
}

// column is a column of 10-point lines at x, 14 points apart, from y down.
func column(x, y float64, lines ...string) []text {
	texts := make([]text, len(lines))
	for i, l := range lines {
		texts[i] = text{10, x, y - 14*float64(i), l}
	}
	return texts
}

func TestPDFColumns(t *testing.T) {
	// Every glyph is half an em wide: at 10 points, 5 points a character.
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Mono /FirstChar 32 /LastChar 126 /Widths [" +
		strings.Repeat("500 ", 95) + "] /Encoding /WinAnsiEncoding >>"
	left := []string{"Contact", "jane@example.com", "Education", "B.S. 2015", "Skills", "Go, SQL"}
	right := []string{"Summary", "Backend engineer of nine years", "Experience",
		"Acme, 2019 - now", "Led the ledger rewrite", "Cut p99 latency by half"}
	header := []text{{24, 57, 760, "Jane Doe"}, {12, 57, 735, "Senior Software Engineer at Acme Payments"}}
	withTrailing := make([]string, len(left))
	for i, l := range left {
		withTrailing[i] = l + strings.Repeat(" ", 20-len(l)) // pads to x = 157 + 5 points
	}
	tests := []struct {
		name  string
		texts [][]text
		want  string
	}{
		{
			// The longest sidebar line ends at 57 + 16×5 = 137; the main
			// column starts 7 points (0.7 em) further, under a 24-point
			// name that is far wider than the gutter.
			"sidebar beside a narrow gutter, under a big name",
			[][]text{header, column(57, 700, left...), column(144, 700, right...)},
			"Jane Doe\nSenior Software Engineer at Acme Payments\n" + strings.Join(left, "\n") + "\n" + strings.Join(right, "\n"),
		},
		{
			// Trailing spaces take the sidebar's lines 15 points past the
			// start of the main column; their ink stops 5 points (0.5 em)
			// short.
			"trailing spaces do not bridge the gutter",
			[][]text{header, column(57, 700, withTrailing...), column(142, 700, right...)},
			"Jane Doe\nSenior Software Engineer at Acme Payments\n" + strings.Join(left, "\n") + "\n" + strings.Join(right, "\n"),
		},
		{
			// Labels drawn before their values, 6 points (0.6 em) apart,
			// on three lines: too short a stretch to be two columns.
			"a narrow gap beside three lines is not a gutter",
			[][]text{column(57, 700, "Name:", "Mail:", "Phone:"), column(93, 700, "Jane Doe", "jane@example.com", "555-0142")},
			"Name: Jane Doe\nMail: jane@example.com\nPhone: 555-0142",
		},
		{
			// Labels of one length drawn before their values, a word space
			// (0.3 em) apart, on five lines: a tall stretch, but no gutter.
			"a word space beside five lines is not a gutter",
			[][]text{column(57, 700, "Tel:", "Fax:", "Web:", "Git:", "Zip:"),
				column(80, 700, "555-0142", "555-0143", "jane.example.com", "github.com/jane", "94107")},
			"Tel: 555-0142\nFax: 555-0143\nWeb: jane.example.com\nGit: github.com/jane\nZip: 94107",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var texts []text
			for _, ts := range tt.texts {
				texts = append(texts, ts...)
			}
			doc, err := doctext.Extract(context.Background(), onePage(t, font, "", drawn(texts...)), "cv.pdf", doctext.Options{PureGo: true})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for l := range strings.SplitSeq(doc.Text, "\n") {
				if l = strings.Join(strings.Fields(l), " "); l != "" {
					lines = append(lines, l)
				}
			}
			if got := strings.Join(lines, "\n"); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExtractPDFDeadline(t *testing.T) {
	// One page showing a million strings: seconds of work, a 50 ms deadline.
	content := "BT /F1 12 Tf 72 700 Td " + strings.Repeat("(word) Tj 1 0 Td ", 1_000_000) + "ET"
	data := onePage(t, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", "", content)
	for _, pureGo := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := doctext.Extract(ctx, data, "huge.pdf", doctext.Options{PureGo: pureGo, PreferPdftotext: true, MaxChars: 10_000_000})
		elapsed := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("PureGo=%v: err = %v, want a deadline error", pureGo, err)
		}
		MustUnprocessable(t, err, "took too long")
		if elapsed > time.Second {
			t.Errorf("PureGo=%v: Extract took %v after a 50ms deadline", pureGo, elapsed)
		}
	}
}

func TestPdftotextPages(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is not installed (scripts/pdf-deps.sh installs poppler-utils)")
		}
		t.Skip("pdftotext is not installed")
	}
	data := doctexttest.PDFPages(t, []string{"page one"}, []string{"page two"}, []string{"page three"})
	tests := []struct {
		name      string
		opts      doctext.Options
		want      string
		pages     int
		truncated bool
	}{
		{"all pages", doctext.Options{PreferPdftotext: true}, "page one\n\npage two\n\npage three", 3, false},
		{"MaxPages", doctext.Options{PreferPdftotext: true, MaxPages: 2}, "page one\n\npage two", 3, true},
		{"MaxChars", doctext.Options{PreferPdftotext: true, MaxChars: 4}, "page", 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := doctext.Extract(context.Background(), data, "cv.pdf", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Reader != doctext.ReaderPdftotext || doc.Text != tt.want || doc.Pages != tt.pages || doc.Truncated != tt.truncated {
				t.Errorf("got Reader %q, Text %q, Pages %d, Truncated %v; want %q, %q, %d, %v",
					doc.Reader, doc.Text, doc.Pages, doc.Truncated, doctext.ReaderPdftotext, tt.want, tt.pages, tt.truncated)
			}
		})
	}
}

func TestPdftotextOutputLimit(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed")
	}
	// 500 lines of 20 characters; the output is cut at 4×MaxChars+1024
	// bytes, long before pdftotext has written them all.
	lines := make([]string, 500)
	for i := range lines {
		lines[i] = "abcdefghij klmnopqrs"
	}
	data := doctexttest.PDF(t, lines...)
	doc, err := doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{PreferPdftotext: true, MaxChars: 100_000})
	if err != nil || doc.Truncated || doc.Reader != doctext.ReaderPdftotext {
		t.Fatalf("without a limit: Truncated %v, Reader %q, err %v; want false, pdftotext, nil", doc.Truncated, doc.Reader, err)
	}
	doc, err = doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{PreferPdftotext: true, MaxChars: 10})
	if err != nil || !doc.Truncated || doc.Reader != doctext.ReaderPdftotext || doc.Text != "abcdefghij" {
		t.Errorf("MaxChars 10: Text %q, Truncated %v, Reader %q, err %v; want %q, true, pdftotext, nil", doc.Text, doc.Truncated, doc.Reader, err, "abcdefghij")
	}
}

func TestPDFFallsBackToPdftotext(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed")
	}
	// A wrong startxref: the Go reader gives up, pdftotext rebuilds the
	// cross-reference table.
	good := doctexttest.PDF(t, "Jane Doe")
	data := bytes.Replace(good, []byte("startxref\n"), []byte("startxref\n1"), 1)
	doc, err := doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Reader != doctext.ReaderPdftotext || doc.Text != "Jane Doe" {
		t.Errorf("got Reader %q, Text %q; want pdftotext, %q", doc.Reader, doc.Text, "Jane Doe")
	}
	if _, err := doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{PureGo: true}); err == nil {
		t.Error("PureGo read a PDF with a wrong startxref; this test needs one the Go reader cannot read")
	}
}
