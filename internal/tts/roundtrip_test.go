package tts_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// paragraph is read by espeak-ng and transcribed back by pocketsphinx.
const paragraph = "Thank you for coming to the interview today. Please tell me about your experience with " +
	"software development. What projects have you worked on in the past year? How do you work with other " +
	"people on your team? Tell me about a time when you had to solve a difficult problem. " +
	"What would you do differently next time? Thank you, we will call you next week."

// minRecovery is the share of the paragraph's words pocketsphinx must find;
// espeak-ng's voice is far from the speech the model was trained on, so
// the bar is modest (measured: see docs/tts.md).
const minRecovery = 0.45

// An English paragraph synthesised by the service with espeak-ng and
// transcribed by pocketsphinx keeps most of its words.
func TestRoundTripPocketsphinx(t *testing.T) {
	requireTool(t, "pocketsphinx_continuous")
	svc := MustService(t, nil, MustEspeak(t), testConfig(t.TempDir()))
	task := must[*tts.Task](t)(svc.Create(context.Background(), "u1", tts.CreateRequest{Text: paragraph,
		Language: ptr("en"), SampleRate: ptr(16000)}))
	wait(t, svc, task.ID, "u1")
	f := must[*tts.AudioFile](t)(svc.OpenAudio(context.Background(), task.ID, "u1"))
	defer f.Close()
	path := filepath.Join(t.TempDir(), "paragraph.wav")
	if err := os.WriteFile(path, must[[]byte](t)(io.ReadAll(f)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pocketsphinx_continuous", "-infile", path, "-logfn", "/dev/null").Output()
	if err != nil {
		t.Fatalf("pocketsphinx_continuous: %v", err)
	}
	hyp := string(out)
	rate := recovery(paragraph, hyp)
	t.Logf("word recovery rate %.1f%% (%d reference words)\nheard: %s", 100*rate, len(words(paragraph)), strings.TrimSpace(hyp))
	if rate < minRecovery {
		t.Fatalf("recovered %.1f%% of the words, want at least %.0f%%", 100*rate, 100*minRecovery)
	}
}

// recovery is the share of reference words found in the hypothesis, each
// hypothesis word matching at most once.
func recovery(ref, hyp string) float64 {
	bag := map[string]int{}
	for _, w := range words(hyp) {
		bag[w]++
	}
	rw := words(ref)
	found := 0
	for _, w := range rw {
		if bag[w] > 0 {
			bag[w]--
			found++
		}
	}
	return float64(found) / float64(len(rw))
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
}
