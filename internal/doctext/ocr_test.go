package doctext_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/resumecorpus"
)

var resumeKinds = append(append([]doctext.Kind(nil), doctext.AllKinds...), doctext.ImageKinds...)

const prose = "Emily Carter is a backend engineer with nine years of experience building payment platforms in Go and Python. "

func TestMinChars(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		filename string
		wantErr  string // "" for success
	}{
		{"fake.pdf of 10 bytes", "not a pdf!", "fake.pdf", "this is not a PDF (its content is plain text), and we could read only 10 characters"},
		{"short text", "Jane Doe, Go engineer", "cv.txt", "we could read only 21 characters from \"cv.txt\" (at least 200"},
		{"long enough", strings.Repeat(prose, 2), "cv.txt", ""},
		{"text named pdf, long enough", strings.Repeat(prose, 2), "cv.pdf", ""},
		{"chinese", strings.Repeat("负责订单系统重构，使用 Go 和 gRPC 将接口平均延迟从 120ms 降低到 35ms。", 6), "简历.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := doctext.Extract(context.Background(), []byte(tt.data), tt.filename, doctext.Options{MinChars: 200})
			if tt.wantErr != "" {
				MustUnprocessable(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := doc.Chars, len([]rune(tt.data)); got != want {
				t.Errorf("Chars = %d, want %d", got, want)
			}
			if doc.Source != doctext.SourceText || doc.OCRPages != 0 {
				t.Errorf("Source, OCRPages = %q, %d; want text, 0", doc.Source, doc.OCRPages)
			}
		})
	}
}

func TestGarbledText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		garbled bool
	}{
		{"english prose", strings.Repeat(prose, 3), false},
		{"chinese with acronyms", strings.Repeat("编程语言：Go、Java、Python、SQL；数据库：MySQL、Redis；英语：CET-6，GPA 3.8。", 5), false},
		{"german", strings.Repeat("Müller entwickelt Dienste für Zahlungsverkehr und Datenplattformen in München. ", 3), false},
		{"shifted codes (Chrome PDF, wrong font map)", strings.Repeat("&NJMZ $BSUFS 4FOJPS 4PGUXBSF &OHJOFFS #BDLFOE ", 4), true},
		{"spaced capitals", strings.Repeat("+ B O F % P F ( P  F O H J O F F S ", 6), true},
		{"type 3 without unicode map", strings.Repeat("nÎ NãlE|t r M ²æ¥ãl2 `lÞâ; ÐÞÆ ", 6), true},
		{"symbols", strings.Repeat("#$%^&*()_+{}|:<>?~ ab ", 10), true},
		{"private use", strings.Repeat("\uE001\uE002\uE003 resume ", 20), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := doctext.Extract(context.Background(), []byte(tt.text), "cv.txt", doctext.Options{MinChars: 100})
			if tt.garbled {
				MustUnprocessable(t, err, "garbled text")
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
		})
	}
}

func TestGarbledPDFWithoutMinChars(t *testing.T) {
	// The garbage check applies to PDFs even for callers without MinChars.
	data := doctexttest.PDF(t, strings.Repeat("&NJMZ $BSUFS 4FOJPS 4PGUXBSF ", 4))
	_, err := doctext.Extract(context.Background(), data, "cv.pdf", doctext.Options{})
	MustUnprocessable(t, err, "garbled text")
}

// MustOCR returns an OCR value with tesseract and pdftoppm, or skips tb
// (fails it under CI=true) when they are not installed.
func MustOCR(tb testing.TB, cfg doctext.OCRConfig) *doctext.OCR {
	tb.Helper()
	o, err := doctext.NewOCR(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if !o.CanReadPDF() || !strings.Contains(o.Languages(), "chi_sim") {
		msg := "tesseract (eng, chi_sim) and pdftoppm are not installed: run bash scripts/ocr-deps.sh"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return o
}

func TestNewOCR(t *testing.T) {
	if _, err := doctext.NewOCR(doctext.OCRConfig{Mode: "maybe"}); err == nil {
		t.Error("mode maybe: err = nil")
	}
	_, err := doctext.NewOCR(doctext.OCRConfig{Mode: doctext.OCROn, Tesseract: "/nonexistent/tesseract"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install tesseract-ocr") {
		t.Errorf("required but missing: err = %v, want the install hint", err)
	}
	o, err := doctext.NewOCR(doctext.OCRConfig{Tesseract: "/nonexistent/tesseract"})
	if err != nil || o.Available() {
		t.Errorf("auto without tesseract: %v, available %v; want nil, false", err, o.Available())
	}
}

func TestImageWithoutOCR(t *testing.T) {
	missing, _ := doctext.NewOCR(doctext.OCRConfig{Tesseract: "/nonexistent/tesseract"})
	off, _ := doctext.NewOCR(doctext.OCRConfig{Mode: doctext.OCROff})
	jpg := []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01")
	scanned := resumecorpus.ImagePDF(jpg, 1, 1)
	tests := []struct {
		name string
		data []byte
		file string
		ocr  *doctext.OCR
		want string
	}{
		{"photo, no OCR configured", jpg, "cv.jpg", nil, "apt-get install tesseract-ocr tesseract-ocr-chi-sim"},
		{"photo, tesseract missing", jpg, "cv.jpg", missing, "the file is an image (JPEG), and this server has no OCR installed"},
		{"photo, OCR off", jpg, "cv.jpg", off, "turned off"},
		{"scanned PDF, tesseract missing", scanned, "cv.pdf", missing, "the PDF has no selectable text (it looks scanned), and this server has no OCR installed to read it: the operator should run `apt-get install tesseract-ocr"},
		{"scanned PDF, no OCR configured", scanned, "cv.pdf", nil, "no extractable text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := doctext.Extract(context.Background(), tt.data, tt.file, doctext.Options{Allowed: resumeKinds, OCR: tt.ocr})
			MustUnprocessable(t, err, tt.want)
		})
	}
	t.Run("image not allowed", func(t *testing.T) {
		_, err := doctext.Extract(context.Background(), jpg, "cv.jpg", doctext.Options{})
		MustUnprocessable(t, err, "unsupported file type: upload a PDF, DOCX, TXT or MD file")
	})
}

// MustRender renders page 1 of a PDF to a PNG with pdftoppm.
func MustRender(tb testing.TB, pdf []byte, dpi string) []byte {
	tb.Helper()
	dir := tb.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", dpi, "-gray", "-png", "-singlefile", in, filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		tb.Fatalf("pdftoppm: %v: %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "p.png"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func TestOCR(t *testing.T) {
	ocr := MustOCR(t, doctext.OCRConfig{})
	lines := []string{"Emily Carter", "Senior Software Engineer", "Go Python Kafka Kubernetes PostgreSQL",
		"Led the migration of the ledger service to Go.", "Cut p99 latency from 480 ms to 95 ms."}
	textPDF := doctexttest.PDF(t, lines...)
	pngData := MustRender(t, textPDF, "300")
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	var jpg bytes.Buffer
	g := resumecorpus.Degrade(img, 1.5, 6, 1)
	if err := jpegEncode(&jpg, g); err != nil {
		t.Fatal(err)
	}
	scanned := resumecorpus.ImagePDF(jpg.Bytes(), g.Bounds().Dx(), g.Bounds().Dy())
	for _, tt := range []struct {
		name, file string
		data       []byte
		kind       doctext.Kind
	}{
		{"png", "cv.png", pngData, doctext.KindPNG},
		{"rotated noisy jpeg", "photo.jpg", jpg.Bytes(), doctext.KindJPEG},
		{"scanned pdf", "scan.pdf", scanned, doctext.KindPDF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := doctext.Extract(context.Background(), tt.data, tt.file, doctext.Options{Allowed: resumeKinds, OCR: ocr, MinChars: 50})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Kind != tt.kind || doc.Source != doctext.SourceOCR || doc.OCRPages != 1 {
				t.Errorf("Kind, Source, OCRPages = %s, %q, %d; want %s, ocr, 1", doc.Kind, doc.Source, doc.OCRPages, tt.kind)
			}
			if acc := Accuracy(strings.Join(lines, "\n"), doc.Text, "en"); acc < barScanEN {
				t.Errorf("accuracy %.3f < %.2f; text:\n%s", acc, barScanEN, doc.Text)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		slow := MustOCR(t, doctext.OCRConfig{Timeout: time.Millisecond})
		_, err := doctext.Extract(context.Background(), pngData, "cv.png", doctext.Options{Allowed: resumeKinds, OCR: slow})
		MustUnprocessable(t, err, "took longer than 1ms")
	})
	t.Run("text pages are not OCRed", func(t *testing.T) {
		doc, err := doctext.Extract(context.Background(), textPDF, "cv.pdf", doctext.Options{OCR: ocr})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Source != doctext.SourceText || doc.OCRPages != 0 {
			t.Errorf("Source, OCRPages = %q, %d; want text, 0", doc.Source, doc.OCRPages)
		}
	})
}

func jpegEncode(w *bytes.Buffer, img image.Image) error {
	return jpeg.Encode(w, img, &jpeg.Options{Quality: 80})
}

func TestOCRMixedPDF(t *testing.T) {
	ocr := MustOCR(t, doctext.OCRConfig{MaxPages: 1})
	textLines := []string{"Emily Carter - Senior Software Engineer", "Go, Python, Kafka, Kubernetes and PostgreSQL in production."}
	scanLines := []string{"Northwind Payments, Senior Software Engineer, 2020 - Present",
		"Led the migration of the ledger service to Go.", "Cut p99 latency from 480 ms to 95 ms."}
	photo := doctexttest.Photo(t, scanLines...)
	img, err := jpeg.DecodeConfig(bytes.NewReader(photo))
	if err != nil {
		t.Fatal(err)
	}
	// Page 1 has a text layer, pages 2 and 3 are the same scan: with
	// MaxPages 1 only page 2 is read by OCR.
	scanPage := func(content int) string {
		return fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 6 0 R >> >> /Contents %d 0 R >>", content)
	}
	data := doctexttest.PDFObjects(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 7 0 R 9 0 R] /Count 3 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		doctexttest.Stream("BT /F1 12 Tf 72 720 Td ("+textLines[0]+") Tj 0 -14 Td ("+textLines[1]+") Tj ET"),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream",
			img.Width, img.Height, len(photo), photo),
		scanPage(8), doctexttest.Stream("q 612 0 0 792 0 0 cm /Im0 Do Q"),
		scanPage(10), doctexttest.Stream("q 612 0 0 792 0 0 cm /Im0 Do Q"),
	)
	doc, err := doctext.Extract(context.Background(), data, "mixed.pdf", doctext.Options{OCR: ocr})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Source != doctext.SourceMixed || doc.OCRPages != 1 || doc.Pages != 3 || !doc.Truncated {
		t.Errorf("Source, OCRPages, Pages, Truncated = %q, %d, %d, %v; want mixed, 1, 3, true", doc.Source, doc.OCRPages, doc.Pages, doc.Truncated)
	}
	if acc := Accuracy(strings.Join(append(textLines, scanLines...), "\n"), doc.Text, "en"); acc < barScanEN {
		t.Errorf("accuracy %.3f < %.2f; text:\n%s", acc, barScanEN, doc.Text)
	}
}
