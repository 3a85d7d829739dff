package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Format is the fmt chunk of a WAV file.
type Format struct {
	AudioFormat   int // 1 PCM, 3 IEEE float, 0xFFFE extensible
	Channels      int
	SampleRate    int
	BitsPerSample int
}

// WAV is a parsed WAV file: its format and its sample data.
type WAV struct {
	Format
	Data []byte
}

// Samples is the number of sample frames in the data.
func (w WAV) Samples() int {
	frame := w.Channels * w.BitsPerSample / 8
	if frame == 0 {
		return 0
	}
	return len(w.Data) / frame
}

// Duration in milliseconds.
func (w WAV) DurationMs() int64 {
	if w.SampleRate == 0 {
		return 0
	}
	return int64(w.Samples()) * 1000 / int64(w.SampleRate)
}

// ErrNotWAV means the data has no RIFF/WAVE header.
var ErrNotWAV = errors.New("not a WAV file")

// IsWAV reports whether data starts with a RIFF/WAVE header.
func IsWAV(data []byte) bool {
	return len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WAVE"
}

// ParseWAV parses a RIFF/WAVE file: PCM 8/16/24/32-bit or IEEE float
// 32/64-bit, 1 to 8 channels, 1 to 384 kHz, the fmt and data chunks in
// either order, other chunks skipped. It tolerates the placeholder sizes of
// streamed WAVs (espeak-ng --stdout, ffmpeg to a pipe, OpenAI): a chunk
// claiming more bytes than present ends at the end of the input.
func ParseWAV(b []byte) (WAV, error) {
	var w WAV
	if !IsWAV(b) {
		return w, ErrNotWAV
	}
	gotFmt, gotData := false, false
	for off := 12; off+8 <= len(b) && !(gotFmt && gotData); {
		id := string(b[off : off+4])
		size := int(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		body := b[off+8:]
		if size > len(body) || size < 0 {
			size = len(body)
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return w, fmt.Errorf("WAV fmt chunk is %d bytes, want at least 16", size)
			}
			w.AudioFormat = int(binary.LittleEndian.Uint16(body[0:2]))
			w.Channels = int(binary.LittleEndian.Uint16(body[2:4]))
			w.SampleRate = int(binary.LittleEndian.Uint32(body[4:8]))
			w.BitsPerSample = int(binary.LittleEndian.Uint16(body[14:16]))
			if w.AudioFormat == 0xFFFE && size >= 26 {
				w.AudioFormat = int(binary.LittleEndian.Uint16(body[24:26])) // WAVE_FORMAT_EXTENSIBLE: the sub-format's first bytes
			}
			gotFmt = true
		case "data":
			w.Data, gotData = body, true
		}
		off += 8 + size + size%2 // chunks are word aligned
	}
	if !gotFmt || !gotData {
		return w, errors.New("WAV file has no fmt or data chunk")
	}
	return w, w.check()
}

func (w WAV) check() error {
	switch {
	case w.Channels < 1 || w.Channels > 8:
		return fmt.Errorf("WAV file has %d channels, want 1 to 8", w.Channels)
	case w.SampleRate < 1000 || w.SampleRate > 384000:
		return fmt.Errorf("WAV file has a sample rate of %d Hz, want 1000 to 384000", w.SampleRate)
	case w.AudioFormat == formatPCM && (w.BitsPerSample == 8 || w.BitsPerSample == 16 || w.BitsPerSample == 24 || w.BitsPerSample == 32):
	case w.AudioFormat == formatFloat && (w.BitsPerSample == 32 || w.BitsPerSample == 64):
	default:
		return fmt.Errorf("WAV encoding %d with %d bits is not supported (PCM 8/16/24/32-bit or float 32/64-bit)", w.AudioFormat, w.BitsPerSample)
	}
	return nil
}

// The WAV sample formats ParseWAV accepts.
const (
	formatPCM   = 1
	formatFloat = 3
)

// Mono returns the samples in [-1, 1], channels averaged, at the file's rate.
func (w WAV) Mono() []float64 {
	n := w.Samples()
	width := w.BitsPerSample / 8
	mono := make([]float64, n)
	for i := range n {
		var sum float64
		for ch := range w.Channels {
			sum += sampleAt(w.Data[(i*w.Channels+ch)*width:], w.AudioFormat, w.BitsPerSample)
		}
		mono[i] = sum / float64(w.Channels)
	}
	return mono
}

// Mono16 returns the samples as 16-bit mono (channels averaged) at rate,
// resampled by linear interpolation when the file's rate differs.
func (w WAV) Mono16(rate int) []int16 {
	if w.AudioFormat == 1 && w.BitsPerSample == 16 && w.Channels == 1 {
		return resample16(w.Data, w.SampleRate, rate) // the common case, in one pass
	}
	return toInt16(resampleLinear(w.Mono(), w.SampleRate, rate))
}

// resample16 converts 16-bit mono PCM bytes from rate `from` to rate `to`
// with the output length and interpolation of resampleLinear, in fixed point.
func resample16(data []byte, from, to int) []int16 {
	n := len(data) / 2
	at := func(j int) int64 { return int64(int16(binary.LittleEndian.Uint16(data[2*j:]))) }
	if from == to || n == 0 {
		out := make([]int16, n)
		for j := range out {
			out[j] = int16(at(j))
		}
		return out
	}
	m := int((int64(n)*int64(to) + int64(from)/2) / int64(from))
	out := make([]int16, m)
	for i := range out {
		// Source position i*from/to as an integer part j and a remainder
		// r/to: exact, no rounding drift over long files.
		num := int64(i) * int64(from)
		j, r := int(num/int64(to)), num%int64(to)
		if j >= n-1 {
			out[i] = int16(at(n - 1))
			continue
		}
		v := (at(j)*(int64(to)-r) + at(j+1)*r) / int64(to)
		out[i] = int16(v)
	}
	return out
}

// sampleAt decodes one sample to [-1, 1].
func sampleAt(p []byte, format, bits int) float64 {
	switch {
	case format == formatFloat && bits == 64:
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	case format == formatFloat:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
	case bits == 8:
		return (float64(p[0]) - 128) / 128
	case bits == 16:
		return float64(int16(binary.LittleEndian.Uint16(p))) / 32768
	case bits == 24:
		v := int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24) >> 8
		return float64(v) / (1 << 23)
	default:
		return float64(int32(binary.LittleEndian.Uint32(p))) / (1 << 31)
	}
}

// resampleLinear converts x from rate `from` to rate `to` by linear
// interpolation; the output has round(len(x)*to/from) samples. It is what
// synthesised speech needs (cheap, exact when rates match); recordings for
// the recognisers go through Resample, which does not alias.
func resampleLinear(x []float64, from, to int) []float64 {
	if from == to || len(x) == 0 {
		return x
	}
	n := int((int64(len(x))*int64(to) + int64(from)/2) / int64(from))
	out := make([]float64, n)
	step := float64(from) / float64(to)
	for i := range out {
		pos := float64(i) * step
		j := int(pos)
		if j >= len(x)-1 {
			out[i] = x[len(x)-1]
			continue
		}
		frac := pos - float64(j)
		out[i] = x[j]*(1-frac) + x[j+1]*frac
	}
	return out
}

func toInt16(x []float64) []int16 {
	out := make([]int16, len(x))
	for i, v := range x {
		v = math.Round(v * 32768)
		out[i] = int16(max(-32768, min(32767, v)))
	}
	return out
}

// PCMBytes encodes samples as little-endian 16-bit PCM.
func PCMBytes(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// WAVHeader is the 44-byte header of a 16-bit mono PCM WAV with dataBytes
// bytes of samples at rate.
func WAVHeader(dataBytes int64, rate int) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+dataBytes))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1) // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2)) // byte rate
	binary.LittleEndian.PutUint16(h[32:], 2)              // block align
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(dataBytes))
	return h
}

// EncodeWAV returns a 16-bit mono PCM WAV of s16le pcm at rate.
func EncodeWAV(pcm []byte, rate int) []byte {
	return append(WAVHeader(int64(len(pcm)), rate), pcm...)
}

// MaxWAVData is the largest data chunk a RIFF header can describe.
const MaxWAVData = math.MaxUint32 - 36
