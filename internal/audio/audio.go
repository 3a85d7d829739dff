// Package audio is the one place for PCM and WAV: a WAV reader and writer,
// two resamplers (a windowed-sinc one for recordings sent to the
// recognisers, a linear one for synthesised speech), the conversion of
// recordings to the PCM the recognisers take (signed 16-bit little-endian,
// 16 kHz, mono) and a simple energy-based voice activity detector. It is
// used by internal/speech and internal/tts.
package audio

import (
	"encoding/binary"
	"math"
)

// Rate is the sample rate of the recognisers' PCM.
const Rate = 16000

// DecodeWAV reads a WAV file (see ParseWAV) and returns it as the
// recognisers' PCM: 16 kHz mono s16le.
func DecodeWAV(data []byte) ([]byte, error) {
	w, err := ParseWAV(data)
	if err != nil {
		return nil, err
	}
	return FloatToPCM(Resample(w.Mono(), w.SampleRate, Rate)), nil
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
