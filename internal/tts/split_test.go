package tts

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"chinese", "你好。今天天气很好！我们去公园吧？好；走", 300,
			[]string{"你好。", "今天天气很好！", "我们去公园吧？", "好；", "走"}},
		{"english", "Hello there. How are you? I am fine! Thanks", 300,
			[]string{"Hello there.", "How are you?", "I am fine!", "Thanks"}},
		{"number is not a boundary", "Pi is 3.14 roughly. Next.", 300,
			[]string{"Pi is 3.14 roughly.", "Next."}},
		{"abbreviations", "Use tools, e.g. Go and Rust. Dr. Smith agrees. J. K. Rowling wrote it.", 300,
			[]string{"Use tools, e.g. Go and Rust.", "Dr. Smith agrees.", "J. K. Rowling wrote it."}},
		{"closing quotes stay", "他说：“好的。”然后走了。", 300,
			[]string{"他说：“好的。”", "然后走了。"}},
		{"mixed", "我们使用 Go 语言。It is fast. 性能很好！", 300,
			[]string{"我们使用 Go 语言。", "It is fast.", "性能很好！"}},
		{"line breaks", "first line\nsecond line\n\nthird", 300,
			[]string{"first line", "second line", "third"}},
		{"no punctuation fits", "just some words without any end", 300,
			[]string{"just some words without any end"}},
		{"no punctuation too long: at spaces", "alpha beta gamma delta epsilon", 12,
			[]string{"alpha beta", "gamma delta", "epsilon"}},
		{"long sentence at commas", "一二三四五，六七八九十，甲乙丙丁戊。", 8,
			[]string{"一二三四五，", "六七八九十，", "甲乙丙丁戊。"}},
		{"chinese without breaks: hard split between runes", "一二三四五六七八九十", 4,
			[]string{"一二三四", "五六七八", "九十"}},
		{"latin word never cut", "ab abcdefgh", 6,
			[]string{"ab", "abcdef", "gh"}},
		{"word not cut when a space exists", "xx supercalifragilistic", 10,
			[]string{"xx", "supercalif", "ragilistic"}},
		{"punctuation only merges into previous", "Hello!!! ... ok", 300,
			[]string{"Hello!!!", "... ok"}},
		{"ellipsis", "等等……然后呢", 300, []string{"等等……", "然后呢"}},
		{"full-width marks run together with closers", "你确定吗？！」好的。（完）", 300,
			[]string{"你确定吗？！」", "好的。", "（完）"}},
		{"chinese semicolons in mixed text", "第一，索引；second, cache; 第三，分库。", 300,
			[]string{"第一，索引；", "second, cache;", "第三，分库。"}},
		{"half-width stop inside a version is no boundary", "升级到3.0版本后更快。Go 1.22 也是.", 300,
			[]string{"升级到3.0版本后更快。", "Go 1.22 也是."}},
		{"half-width ideographic stop and midline ellipsis", "好｡然后⋯⋯再说", 300,
			[]string{"好｡", "然后⋯⋯", "再说"}},
		{"long sentence: full-width comma before a hard cut", "数据库索引可以提高查询速度，但是会降低写入速度并占用空间。", 16,
			[]string{"数据库索引可以提高查询速度，", "但是会降低写入速度并占用空间。"}},
		{"long sentence: 、 and ： are soft breaks too", "三个方面：索引、缓存、分库分表以及读写分离。", 12,
			[]string{"三个方面：索引、缓存、", "分库分表以及读写分离。"}},
		{"spaces only", "   \n\t  ", 300, nil},
		{"empty", "", 300, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text, tt.max)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("Split(%q, %d)\n got %q\nwant %q", tt.text, tt.max, got, tt.want)
			}
			checkSplit(t, tt.text, tt.max, got)
		})
	}
}

// TestSplitLongText: a 100,000-character text splits into capped segments.
func TestSplitLongText(t *testing.T) {
	text := strings.Repeat("这是一个很长的句子，没有句号但是有逗号", 3000) + strings.Repeat("word ", 2000)
	segs := Split(text, 300)
	checkSplit(t, text, 300, segs)
	if len(segs) < 200 {
		t.Errorf("got %d segments, want many", len(segs))
	}
}

// checkSplit verifies the invariants of Split.
func checkSplit(tb testing.TB, text string, maxChars int, segs []string) {
	tb.Helper()
	for i, s := range segs {
		if strings.TrimSpace(s) == "" || s != strings.TrimSpace(s) {
			tb.Fatalf("segment %d is empty or untrimmed: %q", i, s)
		}
		if n := utf8.RuneCountInString(s); n > max(maxChars, 1) {
			tb.Fatalf("segment %d has %d runes > %d: %q", i, n, maxChars, s)
		}
	}
	if got, want := nonSpace(strings.Join(segs, "")), nonSpace(text); got != want {
		tb.Fatalf("segments lost or reordered characters:\n got %q\nwant %q", got, want)
	}
}

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"你好。世界！", "Hello. World? e.g. 3.14 is pi.", "a", "", "。。。", "abc def, ghi：jkl",
		strings.Repeat("x", 700), "Mr. A. B. said \"hi.\" Then left…", "一二三四五六七八九十abc def"} {
		f.Add(s, 10)
		f.Add(s, 300)
	}
	f.Fuzz(func(t *testing.T, text string, maxChars int) {
		if !utf8.ValidString(text) || maxChars > 10000 {
			t.Skip()
		}
		checkSplit(t, text, maxChars, Split(text, maxChars))
	})
}

func TestPack(t *testing.T) {
	tests := []struct {
		name string
		segs []string
		max  int
		want []string
	}{
		{"joins while it fits", []string{"One.", "Two.", "Three."}, 9, []string{"One. Two.", "Three."}},
		{"never over the cap", []string{"abcdef", "gh"}, 8, []string{"abcdef", "gh"}},
		{"chinese", []string{"你好。", "世界！"}, 7, []string{"你好。 世界！"}},
		{"empty", nil, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Pack(tt.segs, tt.max); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
