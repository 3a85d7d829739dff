package espeak_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
)

var normal = tts.Params{Speed: 50, Pitch: 50, Volume: 50}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		run  espeak.Run
		p    tts.Params
		want string
	}{
		{"defaults", espeak.Run{Voice: "en-us", Text: "Hello."}, normal, "-v en-us -s 175 -p 50 -a 100 --stdout -- Hello."},
		{"extremes high", espeak.Run{Voice: "cmn", Text: "你好"}, tts.Params{Speed: 100, Pitch: 100, Volume: 100}, "-v cmn -s 270 -p 99 -a 200 --stdout -- 你好"},
		{"extremes low, text like a flag", espeak.Run{Voice: "en-gb", Text: "-rf"}, tts.Params{}, "-v en-gb -s 80 -p 0 -a 0 --stdout -- -rf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(espeak.Args(tt.run, tt.p), " "); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	withVoice := func(v string) tts.Params { p := normal; p.Voice = v; return p }
	withLang := func(l string) tts.Params { p := normal; p.Language = l; return p }
	tests := []struct {
		name string
		text string
		p    tts.Params
		want string // voice:text|voice:text
	}{
		{"english", "Hello there. How are you?", normal, "en-us:Hello there. How are you?"},
		{"chinese", "你好，今天天气很好。", normal, "cmn:你好，今天天气很好。"},
		{"mixed in order", "我们使用 Redis 做缓存，Go 写服务。", normal,
			"cmn:我们使用|en-us:Redis|cmn:做缓存，|en-us:Go|cmn:写服务。"},
		{"no spaces between scripts", "用Go语言", normal, "cmn:用|en-us:Go|cmn:语言"},
		{"digits and punctuation follow the run before", "我有3年经验, 5 years of Java! 好的", normal,
			"cmn:我有3年经验,|en-us:5 years of Java!|cmn:好的"},
		{"a number attached to Han stays Chinese", "我有3 apples", normal, "cmn:我有3|en-us:apples"},
		{"a number apart from Latin goes with the Han after it", "version 2 版本", normal, "en-us:version|cmn:2 版本"},
		{"leading digits join the first run", "2024年", normal, "cmn:2024年"},
		{"leading punctuation joins the first run", "“Hello” 你好", normal, "en-us:“Hello”|cmn:你好"},
		{"configured voice reads latin", "这是 B+ tree 索引", withVoice("en-gb"), "cmn:这是|en-gb:B+ tree|cmn:索引"},
		{"configured mandarin voice reads han", "这是 index", withVoice("cmn-latn-pinyin"), "cmn-latn-pinyin:这是|en-us:index"},
		{"language en still reads han in mandarin", "Hi 你好", withLang("en"), "en-us:Hi|cmn:你好"},
		{"digits only, language zh", "123。", withLang("zh"), "cmn:123。"},
		{"digits only, no language", "42", normal, "en-us:42"},
		{"spaces only", "  \n ", normal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := espeak.Plan(tt.text, tt.p)
			var parts []string
			for _, r := range runs {
				parts = append(parts, r.Voice+":"+r.Text)
			}
			if got := strings.Join(parts, "|"); got != tt.want {
				t.Errorf("Plan(%q)\n got %s\nwant %s", tt.text, got, tt.want)
			}
			// Every non-space rune is kept, in order.
			strip := func(s string) string {
				return strings.Map(func(r rune) rune {
					if unicode.IsSpace(r) {
						return -1
					}
					return r
				}, s)
			}
			var joined strings.Builder
			for _, r := range runs {
				joined.WriteString(r.Text)
			}
			if strip(joined.String()) != strip(tt.text) {
				t.Errorf("runs lose text: %q vs %q", joined.String(), tt.text)
			}
		})
	}
}

// mustEspeak returns the real espeak-ng or skips (fails under CI=true).
func mustEspeak(tb testing.TB, binary string) *espeak.Synthesizer {
	tb.Helper()
	if !espeak.Available("espeak-ng") {
		if os.Getenv("CI") == "true" {
			tb.Fatal("espeak-ng is required under CI=true: run scripts/tts-deps.sh")
		}
		tb.Skip("espeak-ng not installed; run scripts/tts-deps.sh")
	}
	s, err := espeak.New(binary)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func hanCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return n
}

// TestChineseDuration: a Chinese paragraph read by the real espeak-ng lasts
// as long as Mandarin speech of its length (people read 3-6 characters a
// second; allow 0.12-0.5 s per character, pauses at punctuation included).
func TestChineseDuration(t *testing.T) {
	s := mustEspeak(t, "espeak-ng")
	text := "数据库索引可以显著提高查询速度。但是，索引也会降低写入速度，并占用额外的存储空间！" +
		"因此，我们应该只为经常查询的列建立索引；在设计表结构时，还要考虑联合索引的顺序。你觉得呢？"
	for _, p := range []tts.Params{normal, {Language: "zh", Speed: 50, Pitch: 50, Volume: 50}} {
		b, err := s.Synthesize(context.Background(), text, p)
		if err != nil {
			t.Fatal(err)
		}
		w, err := audio.ParseWAV(b)
		if err != nil {
			t.Fatal(err)
		}
		n := hanCount(text)
		perChar := float64(w.DurationMs()) / 1000 / float64(n)
		t.Logf("%d Han characters: %d ms, %.3f s per character", n, w.DurationMs(), perChar)
		if perChar < 0.12 || perChar > 0.5 {
			t.Errorf("%.3f s per character (%d ms for %d characters), want 0.12-0.5", perChar, w.DurationMs(), n)
		}
		if rms := audio.RMS(w.Data); rms < 0.01 {
			t.Errorf("audio is near silent: RMS %.0f", rms)
		}
	}
}

// TestMixedUsesBothVoices: a mixed paragraph is read by cmn and en-us in
// the order of the text, each run by its own espeak-ng call, and the joined
// audio is as long as the runs together.
func TestMixedUsesBothVoices(t *testing.T) {
	real := "espeak-ng"
	mustEspeak(t, real)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	// A wrapper that records each call's voice and text, then runs the real
	// espeak-ng.
	script := "#!/bin/sh\nprintf '%s\\t%s\\n' \"$2\" \"${11}\" >> '" + log + "'\nexec " + real + " \"$@\"\n"
	bin := filepath.Join(dir, "espeak-wrap")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := mustEspeak(t, bin)
	text := "我们用 Redis 做缓存。Its latency is low, 大约 1 毫秒！"
	b, err := s.Synthesize(context.Background(), text, normal)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "cmn\t我们用\nen-us\tRedis\ncmn\t做缓存。\nen-us\tIts latency is low,\ncmn\t大约 1 毫秒！\n"
	if string(got) != want {
		t.Errorf("espeak-ng calls\n got %q\nwant %q", got, want)
	}
	w, err := audio.ParseWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	// The joined audio is the sum of the runs read alone.
	var sum int64
	for _, r := range espeak.Plan(text, normal) {
		rb, err := s.Synthesize(context.Background(), r.Text, tts.Params{Voice: r.Voice, Speed: 50, Pitch: 50, Volume: 50})
		if err != nil {
			t.Fatal(err)
		}
		rw, err := audio.ParseWAV(rb)
		if err != nil {
			t.Fatal(err)
		}
		sum += rw.DurationMs()
	}
	if d := w.DurationMs() - sum; d < -5 || d > 5 {
		t.Errorf("joined audio %d ms, runs alone %d ms", w.DurationMs(), sum)
	}
	if w.SampleRate != 22050 || w.Channels != 1 || w.BitsPerSample != 16 {
		t.Errorf("format %+v, want 22050 Hz mono 16-bit", w.Format)
	}
}

func TestNothingToRead(t *testing.T) {
	s := mustEspeak(t, "espeak-ng")
	if _, err := s.Synthesize(context.Background(), " \n ", normal); err == nil {
		t.Fatal("want an error for blank text")
	}
}
