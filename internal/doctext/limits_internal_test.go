package doctext

import (
	"io"
	"strings"
	"testing"
)

func TestLimitedReader(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		n        int64
		wantRead string
		wantOver bool
	}{
		{"under", "abc", 5, "abc", false},
		{"exact", "abcde", 5, "abcde", false},
		{"over", "abcdefgh", 5, "abcde", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := &limitedReader{r: strings.NewReader(tt.in), n: tt.n}
			got, err := io.ReadAll(lr)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.wantRead || lr.over != tt.wantOver {
				t.Errorf("read %q, over %v; want %q, %v", got, lr.over, tt.wantRead, tt.wantOver)
			}
		})
	}
}

func TestDOCXOverLimitInStream(t *testing.T) {
	// A document.xml longer than the limit whose zip header is not
	// consulted: the reading limit alone must refuse it.
	body := "<w:document><w:body>" + strings.Repeat("<w:p/>", 100) + "</w:body></w:document>"
	lr := &limitedReader{r: strings.NewReader(body), n: 64}
	if _, err := docxText(lr); err == nil || !lr.over {
		t.Errorf("docxText over a 64-byte limit: err = %v, over = %v; want an error and over", err, lr.over)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		collapse bool
		want     string
	}{
		{"paragraphs kept", "a\n\n\n\nb\nc", true, "a\n\nb\nc"},
		{"spaces collapsed", "  a  \t b  ", true, "a b"},
		{"tabs kept without collapse", "a\tb  c ", false, "a\tb  c"},
		{"controls dropped", "a\x00b\x07c\uFEFF", true, "abc"},
		{"crlf", "a\r\nb\rc", false, "a\nb\nc"},
		{"leading blank lines", "\n\n a", true, "a"},
		{"symbol-font bullets", "\uF0B7 Rebuilt the portal\n\uF0A7 Led\n\uE001", true, "• Rebuilt the portal\n• Led\n\uE001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalize(tt.in, tt.collapse); got != tt.want {
				t.Errorf("normalize(%q, %v) = %q, want %q", tt.in, tt.collapse, got, tt.want)
			}
		})
	}
}
