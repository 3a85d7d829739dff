package speech

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
)

// Transcript is the result of a whole-recording transcription.
type Transcript struct {
	Text       string `json:"text"`
	DurationMs int64  `json:"durationMs"`
	Provider   string `json:"provider"`
}

// Transcriber transcribes whole recordings with a streaming recogniser.
type Transcriber struct {
	rec Recognizer
	// converters are tried in order for formats Go does not decode
	// (MP3, OGG, FLAC...): ffmpeg, then sox.
	converters []string
}

// NewTranscriber returns a Transcriber using rec. It looks up ffmpeg and
// sox on PATH once, for formats other than WAV and raw PCM.
func NewTranscriber(rec Recognizer) *Transcriber {
	t := &Transcriber{rec: rec}
	for _, bin := range []string{"ffmpeg", "sox"} {
		if p, err := exec.LookPath(bin); err == nil {
			t.converters = append(t.converters, p)
		}
	}
	return t
}

// chunk is how much audio a transcription feeds at once: 100 ms, so that
// the recogniser's voice activity detection sees the pauses.
const chunk = BytesPerSecond / 10

// Transcribe decodes data (WAV, raw PCM s16le 16 kHz mono, or what
// ffmpeg/sox decode) and returns its text.
func (t *Transcriber) Transcribe(ctx context.Context, data []byte, filename string) (Transcript, error) {
	pcm, err := t.decode(ctx, data, filename)
	if err != nil {
		return Transcript{}, err
	}
	text, err := Recognize(ctx, t.rec, pcm)
	if err != nil {
		return Transcript{}, err
	}
	return Transcript{Text: text, DurationMs: int64(len(pcm)) * 1000 / BytesPerSecond, Provider: t.rec.Name()}, nil
}

// Recognize streams pcm through rec in 100 ms chunks and returns the
// assembled text.
func Recognize(ctx context.Context, rec Recognizer, pcm []byte) (string, error) {
	var asm Assembler
	stream, err := rec.Start(ctx, func(r Result) { asm.Apply(r) })
	if errors.Is(err, ErrBusy) {
		return "", apperr.New(apperr.KindOverloaded, "every speech recogniser is busy; try again shortly").AsRetryable()
	}
	if err != nil {
		return "", recognizerError(err)
	}
	for off := 0; off < len(pcm); off += chunk {
		if err = stream.Write(pcm[off:min(off+chunk, len(pcm))]); err != nil {
			break
		}
	}
	if cerr := stream.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", recognizerError(err)
	}
	snap, _ := asm.Finish()
	return snap.Full, nil
}

func recognizerError(err error) error {
	if ae := apperr.As(err); ae != nil {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.New(apperr.KindTimeout, "speech recognition timed out").WithCause(err)
	}
	return apperr.New(apperr.KindUpstream, "speech recognition failed").WithCause(err)
}

// Supported describes the accepted upload formats, for error messages.
const Supported = "WAV (PCM or float), raw PCM s16le 16 kHz mono (.pcm/.raw)"

func (t *Transcriber) supported() string {
	if len(t.converters) > 0 {
		return Supported + ", and what " + strings.Join(baseNames(t.converters), "/") + " decode"
	}
	return Supported
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// decode turns an upload into 16 kHz mono PCM.
func (t *Transcriber) decode(ctx context.Context, data []byte, filename string) ([]byte, error) {
	ext := strings.ToLower(filepath.Ext(filename))
	switch {
	case audio.IsWAV(data):
		pcm, err := audio.DecodeWAV(data)
		if err != nil {
			return nil, apperr.New(apperr.KindUnprocessable, "unreadable WAV: %v; supported: %s", err, t.supported())
		}
		return pcm, nil
	case ext == ".pcm" || ext == ".raw" || ext == ".s16" || (ext == "" || ext == ".bin") && container(data) == "":
		if len(data)%2 != 0 {
			return nil, apperr.New(apperr.KindUnprocessable, "raw PCM must be s16le (an even number of bytes); supported: %s", t.supported())
		}
		return data, nil
	}
	kind := container(data)
	if kind == "" {
		kind = strings.TrimPrefix(ext, ".")
	}
	for _, bin := range t.converters {
		if pcm, err := convert(ctx, bin, data); err == nil {
			return pcm, nil
		}
	}
	return nil, apperr.New(apperr.KindUnprocessable, "cannot decode %s audio on this server; supported: %s", strings.ToUpper(kind), t.supported())
}

// container names well-known compressed formats by their magic bytes.
func container(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("ID3")), len(data) > 1 && data[0] == 0xFF && data[1]&0xE0 == 0xE0:
		return "mp3"
	case bytes.HasPrefix(data, []byte("OggS")):
		return "ogg"
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "flac"
	case bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "webm"
	case len(data) > 8 && string(data[4:8]) == "ftyp":
		return "mp4"
	}
	return ""
}

// convert runs ffmpeg or sox to turn data into WAV 16 kHz mono.
func convert(ctx context.Context, bin string, data []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var args []string
	if filepath.Base(bin) == "ffmpeg" {
		args = []string{"-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-ac", "1", "-ar", "16000", "-f", "wav", "pipe:1"}
	} else {
		// sox cannot sniff a pipe: let it try the types it knows.
		kind := container(data)
		if kind == "" || kind == "mp4" || kind == "webm" {
			return nil, fmt.Errorf("sox: unknown type")
		}
		if kind == "ogg" {
			kind = "vorbis"
		}
		args = []string{"-q", "-t", kind, "-", "-t", "wav", "-r", "16000", "-c", "1", "-b", "16", "-"}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", filepath.Base(bin), err, stderr.String())
	}
	return audio.DecodeWAV(out.Bytes())
}
