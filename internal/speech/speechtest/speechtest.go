// Package speechtest helps speech tests: espeak-ng speech as 16 kHz PCM,
// the word error rate, and the skip-or-fail rule for missing engines
// (skipped locally, a failure under CI=true, where scripts/speech-deps.sh
// installed them).
package speechtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/audio"
)

// Missing skips tb, or fails it under CI=true.
func Missing(tb testing.TB, engine string, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s is required under CI=true but unavailable: %v", engine, err)
	}
	tb.Skipf("%s unavailable (%v); run `bash scripts/speech-deps.sh` to install it", engine, err)
}

// Voice is the espeak-ng voice the tests speak with: its Klatt variant is
// far better recognised by PocketSphinx than the default voice.
var Voice = []string{"-v", "en-us+klatt"}

// Speak synthesises text with espeak-ng (Voice) and returns it as 16 kHz
// mono s16le PCM.
func Speak(tb testing.TB, text string) []byte {
	tb.Helper()
	pcm, err := audio.DecodeWAV(SpeakWAV(tb, text))
	if err != nil {
		tb.Fatalf("decode espeak-ng WAV: %v", err)
	}
	return pcm
}

// SpeakWAV returns the WAV file espeak-ng writes (22050 Hz mono).
func SpeakWAV(tb testing.TB, text string) []byte {
	tb.Helper()
	bin, err := exec.LookPath("espeak-ng")
	if err != nil {
		Missing(tb, "espeak-ng", err)
	}
	out := filepath.Join(tb.TempDir(), "speech.wav")
	args := append([]string{"-w", out}, Voice...)
	args = append(args, text)
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		tb.Fatalf("espeak-ng: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Silence returns ms milliseconds of 16 kHz silence.
func Silence(ms int) []byte { return make([]byte, ms*audio.Rate*2/1000) }

// Words lower-cases s and splits it into words without punctuation.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// WER is the word error rate of hyp against ref: the word-level edit
// distance (substitutions, insertions, deletions) over the words in ref.
func WER(ref, hyp string) float64 {
	r, h := Words(ref), Words(hyp)
	if len(r) == 0 {
		if len(h) == 0 {
			return 0
		}
		return 1
	}
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(h)]) / float64(len(r))
}
