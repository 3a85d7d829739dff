// Package espeak synthesises speech with the local espeak-ng binary: Mandarin
// (cmn) and English voices, WAV on stdout. It is the default TTS provider.
//
// Mixed Chinese/English text is read in runs: Plan cuts it by script into
// Han runs (read by the Mandarin voice) and runs of other letters (read by
// the configured or English voice), each run synthesised by its own
// espeak-ng call and the audio joined in order.
package espeak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// Voices used when the request names none.
const (
	MandarinVoice = "cmn"
	EnglishVoice  = "en-us"
)

// Synthesizer runs espeak-ng once per run of a segment.
type Synthesizer struct {
	bin string
}

var _ tts.Synthesizer = (*Synthesizer)(nil)

// New returns a Synthesizer running binary (a name looked up in PATH, or a
// path); it fails when the binary cannot be found.
func New(binary string) (*Synthesizer, error) {
	if binary == "" {
		binary = "espeak-ng"
	}
	path, err := exec.LookPath(binary)
	if err != nil {
		return nil, fmt.Errorf("espeak-ng not found (%s): install it with scripts/tts-deps.sh: %w", binary, err)
	}
	return &Synthesizer{bin: path}, nil
}

// Available reports whether binary can be found.
func Available(binary string) bool {
	if binary == "" {
		binary = "espeak-ng"
	}
	_, err := exec.LookPath(binary)
	return err == nil
}

// Run is a piece of text read by one voice.
type Run struct {
	Voice string
	Text  string
}

// IsMandarin reports whether voice is one of espeak-ng's Mandarin voices
// (cmn, cmn-latn-pinyin, zh, zh-cmn…).
func IsMandarin(voice string) bool {
	v := strings.ToLower(voice)
	return v == "zh" || strings.HasPrefix(v, "zh-") || v == "cmn" || strings.HasPrefix(v, "cmn-")
}

// Voices returns the voice for Han runs and the one for other letters:
// Han is read by p.Voice when it is a Mandarin voice, else by cmn; other
// letters by p.Voice when it is not Mandarin, else by en-us.
func Voices(p tts.Params) (han, other string) {
	han, other = MandarinVoice, EnglishVoice
	switch {
	case p.Voice == "":
	case IsMandarin(p.Voice):
		han = p.Voice
	default:
		other = p.Voice
	}
	return han, other
}

// script classes of Plan.
const (
	neutral = iota // digits, punctuation, spaces: join the surrounding run
	han
	other
)

func class(r rune) int {
	switch {
	case unicode.Is(unicode.Han, r):
		return han
	case unicode.IsLetter(r):
		return other
	}
	return neutral
}

// Plan cuts text into runs by script: Han characters go to the Mandarin
// voice, other letters to the configured (else English) voice. Digits,
// punctuation and spaces stay with the run they follow (at the start, with
// the first run); a run with nothing to read (no letter or digit) joins the
// previous one. Runs are trimmed and every non-space rune of text appears
// in them, in order. Text without letters is one run of the voice that
// p.Language asks for (English by default).
func Plan(text string, p tts.Params) []Run {
	hanVoice, otherVoice := Voices(p)
	voice := func(c int) string {
		if c == han {
			return hanVoice
		}
		return otherVoice
	}
	var runs []Run
	cur, start := neutral, 0
	flush := func(end int) {
		s := strings.TrimSpace(text[start:end])
		start = end
		if s == "" {
			return
		}
		c := cur
		if c == neutral { // no letters at all
			c = other
			if p.Language == "zh" {
				c = han
			}
		}
		if n := len(runs); n > 0 && (!speakable(s) || runs[n-1].Voice == voice(c)) {
			runs[n-1].Text += " " + s
			return
		}
		runs = append(runs, Run{Voice: voice(c), Text: s})
	}
	lastLetter := -1 // byte offset just after the last letter
	for i, r := range text {
		c := class(r)
		if c == neutral || c == cur {
			if c != neutral {
				lastLetter = i + len(string(r))
			}
			continue
		}
		if cur != neutral {
			flush(cutNeutral(text, lastLetter, i))
		}
		cur = c
		lastLetter = i + len(string(r))
	}
	flush(len(text))
	return runs
}

// cutNeutral returns where to end a run when the script changes at end and
// text[from:end] holds no letters: at end, or before a number that stands
// apart (after a space or a punctuation mark), which belongs to the words
// after it ("经验, 5 years": "5" is read in English; "3年" stays Chinese).
func cutNeutral(text string, from, end int) int {
	prevDigit, prevApart := false, false
	for i, r := range text[from:end] {
		digit := unicode.IsDigit(r)
		if digit && !prevDigit && prevApart {
			return from + i
		}
		prevDigit, prevApart = digit, !digit && (unicode.IsSpace(r) || unicode.IsPunct(r))
	}
	return end
}

// speakable reports whether s holds a letter or a digit.
func speakable(s string) bool {
	return strings.IndexFunc(s, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsNumber(c) }) >= 0
}

// Args returns the espeak-ng arguments for reading r: speed 0..100 maps to
// 80..270 words per minute (50: espeak's normal 175), pitch to -p 0..99,
// volume to amplitude -a 0..200 (50: the normal 100).
func Args(r Run, p tts.Params) []string {
	wpm := 80 + p.Speed*19/10
	pitch := min(p.Pitch, 99)
	amp := p.Volume * 2
	return []string{"-v", r.Voice, "-s", strconv.Itoa(wpm), "-p", strconv.Itoa(pitch),
		"-a", strconv.Itoa(amp), "--stdout", "--", r.Text}
}

// Synthesize implements tts.Synthesizer: one espeak-ng call per run of
// Plan, the runs joined in order into one 16-bit mono WAV at the first
// run's sample rate.
func (s *Synthesizer) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	runs := Plan(text, p)
	if len(runs) == 0 {
		return nil, apperr.Invalid("there is nothing to read in %q: send text with letters or digits", text)
	}
	if len(runs) == 1 {
		return s.run(ctx, runs[0], p)
	}
	var pcm []int16
	rate := 0
	for _, r := range runs {
		b, err := s.run(ctx, r, p)
		if err != nil {
			return nil, err
		}
		w, err := audio.ParseWAV(b)
		if err != nil {
			return nil, fmt.Errorf("espeak-ng wrote an unusable WAV for voice %s: %w", r.Voice, err)
		}
		if rate == 0 {
			rate = w.SampleRate
		}
		pcm = append(pcm, w.Mono16(rate)...)
	}
	return audio.EncodeWAV(audio.PCMBytes(pcm), rate), nil
}

// run reads one run and returns espeak-ng's WAV.
func (s *Synthesizer) run(ctx context.Context, r Run, p tts.Params) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.bin, Args(r, p)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(msg, "voice does not exist") {
			return nil, apperr.Invalid("espeak-ng has no voice %q: %s", r.Voice, msg)
		}
		return nil, fmt.Errorf("espeak-ng: %w: %s", err, msg)
	}
	if stdout.Len() < 44 {
		return nil, fmt.Errorf("espeak-ng wrote no audio: %s", strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
