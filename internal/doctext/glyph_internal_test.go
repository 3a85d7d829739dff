package doctext

import "testing"

// Fonts map some ideographs to radicals: Chromium's Noto Sans CJK SC gives
// ⻛ (U+2EDB) for 风, which NFKC leaves alone; a reader must get 风.
func TestCleanGlyphRadicals(t *testing.T) {
	tests := map[string]string{
		"实时\u2EDB控平台":     "实时风控平台",
		"\u2ED4户与\u2EE2匹": "门户与马匹",
		"\u2F08":          "人", // a Kangxi radical: NFKC
		"\u2EF3":          "龟",
		"of\uFB01ce":      "office",
		"风控":              "风控",
	}
	for in, want := range tests {
		if got := cleanGlyph(in); got != want {
			t.Errorf("cleanGlyph(%q) = %q, want %q", in, got, want)
		}
	}
}
