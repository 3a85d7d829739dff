package doctext

import (
	"context"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
)

func TestExtractPopplerOutputLimit(t *testing.T) {
	if pdftotextPath() == "" {
		t.Skip("pdftotext is not installed")
	}
	// 100 pages, about 100 KB of text: more than the pipe holds, so
	// pdftotext is still writing when the limit is reached.
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = "abcdefghij klmnopqrs"
	}
	input := make([][]string, 100)
	for i := range input {
		input[i] = lines
	}
	data := doctexttest.PDFPages(t, input...)
	opts := Options{MaxChars: 10, MaxPages: 100}
	pages, declared, truncated, err := extractPoppler(context.Background(), data, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := len(strings.Join(pages, ""))
	if !truncated || declared != 100 || n > 4*opts.MaxChars+1024 || n < 4*opts.MaxChars {
		t.Errorf("truncated %v, declared %d, %d bytes; want true, 100, %d..%d bytes", truncated, declared, n, 4*opts.MaxChars, 4*opts.MaxChars+1024)
	}
}
