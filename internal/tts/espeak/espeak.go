// Package espeak synthesises speech with the local espeak-ng binary: Mandarin
// (cmn) and English voices, WAV on stdout. It is the default TTS provider.
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
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// Synthesizer runs espeak-ng once per segment.
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

// Voice returns the espeak voice for p and text: p.Voice when set, cmn for
// Chinese, en-us for English, and, when no language is given, cmn if text
// holds Han characters (its Latin words are read as English) else en-us.
func Voice(text string, p tts.Params) string {
	switch {
	case p.Voice != "":
		return p.Voice
	case p.Language == "zh":
		return "cmn"
	case p.Language == "en":
		return "en-us"
	case strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0:
		return "cmn"
	}
	return "en-us"
}

// Args returns the espeak-ng arguments for p: speed 0..100 maps to 80..270
// words per minute (50: espeak's normal 175), pitch to -p 0..99, volume to
// amplitude -a 0..200 (50: the normal 100).
func Args(text string, p tts.Params) []string {
	wpm := 80 + p.Speed*19/10
	pitch := min(p.Pitch, 99)
	amp := p.Volume * 2
	return []string{"-v", Voice(text, p), "-s", strconv.Itoa(wpm), "-p", strconv.Itoa(pitch),
		"-a", strconv.Itoa(amp), "--stdout", "--", text}
}

// Synthesize implements tts.Synthesizer.
func (s *Synthesizer) Synthesize(ctx context.Context, text string, p tts.Params) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.bin, Args(text, p)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(msg, "voice does not exist") {
			return nil, apperr.Invalid("espeak-ng has no voice %q: %s", Voice(text, p), msg)
		}
		return nil, fmt.Errorf("espeak-ng: %w: %s", err, msg)
	}
	if stdout.Len() < 44 {
		return nil, fmt.Errorf("espeak-ng wrote no audio: %s", strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
