// Package audio converts recordings to the PCM the recognisers take
// (signed 16-bit little-endian, 16 kHz, mono): a WAV reader and writer, a
// resampler and a simple energy-based voice activity detector.
package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Rate is the sample rate of the recognisers' PCM.
const Rate = 16000

// ErrNotWAV means the data has no RIFF/WAVE header.
var ErrNotWAV = errors.New("not a WAV file")

// IsWAV reports whether data starts with a RIFF/WAVE header.
func IsWAV(data []byte) bool {
	return len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WAVE"
}

// DecodeWAV reads a WAV file (PCM 8/16/24/32-bit or IEEE float 32/64,
// any channel count and rate) and returns it as 16 kHz mono s16le PCM.
func DecodeWAV(data []byte) ([]byte, error) {
	if !IsWAV(data) {
		return nil, ErrNotWAV
	}
	var (
		format, channels, bits uint16
		rate                   uint32
		haveFmt                bool
		samples                []byte
		haveData               bool
	)
	for p := 12; p+8 <= len(data); {
		id := string(data[p : p+4])
		size := int(binary.LittleEndian.Uint32(data[p+4:]))
		body := data[p+8:]
		if size > len(body) || size < 0 {
			// Streaming writers (espeak-ng to a pipe, ffmpeg) leave the
			// size at 0xFFFFFFFF or 0: take what is there.
			size = len(body)
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, fmt.Errorf("WAV fmt chunk is %d bytes, want at least 16", size)
			}
			format = binary.LittleEndian.Uint16(body[0:])
			channels = binary.LittleEndian.Uint16(body[2:])
			rate = binary.LittleEndian.Uint32(body[4:])
			bits = binary.LittleEndian.Uint16(body[14:])
			if format == 0xFFFE && size >= 26 { // WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes
				format = binary.LittleEndian.Uint16(body[24:])
			}
			haveFmt = true
		case "data":
			samples, haveData = body, true
		}
		if haveFmt && haveData {
			break
		}
		p += 8 + size + size%2
	}
	if !haveFmt || !haveData {
		return nil, errors.New("WAV file has no fmt or data chunk")
	}
	if channels == 0 || rate == 0 || rate > 384000 {
		return nil, fmt.Errorf("WAV file has %d channels at %d Hz", channels, rate)
	}
	mono, err := toMono(samples, format, int(channels), int(bits))
	if err != nil {
		return nil, err
	}
	return FloatToPCM(Resample(mono, int(rate), Rate)), nil
}

// toMono decodes interleaved samples to floats in [-1, 1], averaging the
// channels.
func toMono(data []byte, format uint16, channels, bits int) ([]float64, error) {
	const pcm, float = 1, 3
	width := bits / 8
	switch {
	case format == pcm && (bits == 8 || bits == 16 || bits == 24 || bits == 32):
	case format == float && (bits == 32 || bits == 64):
	default:
		return nil, fmt.Errorf("WAV encoding %d with %d bits is not supported (PCM 8/16/24/32-bit or float 32/64-bit)", format, bits)
	}
	frame := width * channels
	n := len(data) / frame
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		var sum float64
		for c := 0; c < channels; c++ {
			b := data[i*frame+c*width:]
			var v float64
			switch {
			case format == float && bits == 32:
				v = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			case format == float:
				v = math.Float64frombits(binary.LittleEndian.Uint64(b))
			case bits == 8:
				v = (float64(b[0]) - 128) / 128
			case bits == 16:
				v = float64(int16(binary.LittleEndian.Uint16(b))) / 32768
			case bits == 24:
				x := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
				v = float64(x) / (1 << 23)
			default:
				v = float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31)
			}
			sum += v
		}
		out[i] = sum / float64(channels)
	}
	return out, nil
}

// Resample converts samples from rate `from` to rate `to` with a
// Hann-windowed sinc interpolator whose cut-off is the lower Nyquist
// frequency, so downsampling does not alias.
func Resample(in []float64, from, to int) []float64 {
	if from == to || len(in) == 0 || from <= 0 || to <= 0 {
		return in
	}
	const halfTaps = 16 // taps on each side at the cut-off's scale
	cutoff := 1.0       // relative to the input's Nyquist
	if to < from {
		cutoff = float64(to) / float64(from)
	}
	half := int(math.Ceil(halfTaps / cutoff))
	n := int(int64(len(in)) * int64(to) / int64(from))
	out := make([]float64, n)
	step := float64(from) / float64(to)
	for i := range out {
		pos := float64(i) * step
		center := int(pos)
		var acc, wsum float64
		for k := center - half + 1; k <= center+half; k++ {
			if k < 0 || k >= len(in) {
				continue
			}
			x := pos - float64(k)
			wx := x / float64(half)
			if wx <= -1 || wx >= 1 {
				continue
			}
			window := 0.5 + 0.5*math.Cos(math.Pi*wx)
			w := cutoff * sinc(cutoff*x) * window
			acc += in[k] * w
			wsum += w
		}
		if wsum != 0 {
			out[i] = acc / wsum
		}
	}
	return out
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// FloatToPCM converts samples in [-1, 1] to s16le, clipping.
func FloatToPCM(in []float64) []byte {
	out := make([]byte, 2*len(in))
	for i, v := range in {
		x := math.Round(v * 32767)
		x = max(-32768, min(32767, x))
		binary.LittleEndian.PutUint16(out[2*i:], uint16(int16(x)))
	}
	return out
}

// EncodeWAV wraps 16 kHz mono s16le PCM in a WAV header.
func EncodeWAV(pcm []byte) []byte {
	var b bytes.Buffer
	b.Grow(44 + len(pcm))
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + len(pcm)))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))        // PCM
	w(uint16(1))        // mono
	w(uint32(Rate))     // sample rate
	w(uint32(Rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits
	b.WriteString("data")
	w(uint32(len(pcm)))
	b.Write(pcm)
	return b.Bytes()
}

// RMS is the root mean square of s16le samples, in [0, 1].
func RMS(pcm []byte) float64 {
	n := len(pcm) / 2
	if n == 0 {
		return 0
	}
	var sum float64
	for i := 0; i < n; i++ {
		v := float64(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
		sum += v * v
	}
	return math.Sqrt(sum / float64(n))
}
