package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// wav builds a WAV file of format/bits/channels/rate around data.
func wav(format, channels, bits uint16, rate uint32, data []byte) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + len(data)))
	b.WriteString("WAVE")
	b.WriteString("LIST") // an extra chunk to skip
	w(uint32(3))
	b.WriteString("abc\x00") // odd size + pad byte
	b.WriteString("fmt ")
	w(uint32(16))
	w(format)
	w(channels)
	w(rate)
	w(rate * uint32(channels) * uint32(bits/8))
	w(channels * bits / 8)
	w(bits)
	b.WriteString("data")
	w(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

func sine(n, rate int, freq float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 0.5 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))
	}
	return out
}

func TestDecodeWAV(t *testing.T) {
	s16 := FloatToPCM(sine(1600, 16000, 440))
	stereo := make([]byte, 0, 2*len(s16))
	for i := 0; i < len(s16); i += 2 {
		stereo = append(stereo, s16[i], s16[i+1], s16[i], s16[i+1])
	}
	f32 := make([]byte, 0, 2*len(s16))
	for _, v := range sine(1600, 16000, 440) {
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(float32(v)))
	}
	f64 := make([]byte, 0, 4*len(s16))
	for _, v := range sine(1600, 16000, 440) {
		f64 = binary.LittleEndian.AppendUint64(f64, math.Float64bits(v))
	}
	tests := []struct {
		name    string
		file    []byte
		samples int
	}{
		{"float64 mono 16k", wav(3, 1, 64, 16000, f64), 1600},
		{"16-bit mono 16k", wav(1, 1, 16, 16000, s16), 1600},
		{"16-bit stereo 16k", wav(1, 2, 16, 16000, stereo), 1600},
		{"float32 mono 16k", wav(3, 1, 32, 16000, f32), 1600},
		{"16-bit mono 48k resampled", wav(1, 1, 16, 48000, FloatToPCM(sine(4800, 48000, 440))), 1600},
		{"8-bit mono 8k resampled", wav(1, 1, 8, 8000, bytes.Repeat([]byte{128}, 800)), 1600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcm, err := DecodeWAV(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(pcm) / 2; got != tt.samples {
				t.Errorf("got %d samples, want %d", got, tt.samples)
			}
		})
	}
	if _, err := DecodeWAV([]byte("RIFF....WAVEfmt ")); err == nil {
		t.Error("truncated WAV accepted")
	}
	if _, err := DecodeWAV(wav(2, 1, 4, 16000, []byte{1, 2})); err == nil {
		t.Error("ADPCM accepted")
	}
}

func TestResampleKeepsToneAndRemovesAlias(t *testing.T) {
	// A 1 kHz tone survives 48k -> 16k; a 12 kHz tone (above the new
	// Nyquist) is filtered out instead of aliasing to 4 kHz.
	keep := RMS(FloatToPCM(Resample(sine(48000, 48000, 1000), 48000, 16000)))
	alias := RMS(FloatToPCM(Resample(sine(48000, 48000, 12000), 48000, 16000)))
	if keep < 0.3 || alias > 0.05 {
		t.Errorf("RMS of 1 kHz %.3f (want ~0.35), of 12 kHz %.3f (want ~0)", keep, alias)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	pcm := FloatToPCM(sine(320, 16000, 300))
	got, err := DecodeWAV(EncodeWAV(pcm, Rate))
	if err != nil || !bytes.Equal(got, pcm) {
		t.Fatalf("round trip changed the samples (err %v)", err)
	}
}

func TestSegmenter(t *testing.T) {
	loud := FloatToPCM(sine(16000*3/10, 16000, 300)) // 300 ms
	quiet := make([]byte, 32000)                     // 1 s
	var s Segmenter
	var utts [][]byte
	for _, part := range [][]byte{quiet, loud, quiet, loud, loud} {
		utts = append(utts, s.Write(part)...)
	}
	if last := s.Flush(); last != nil {
		utts = append(utts, last)
	}
	if len(utts) != 2 {
		t.Fatalf("got %d utterances, want 2", len(utts))
	}
	if n := len(utts[0]); n < len(loud) || n > len(loud)+640 {
		t.Errorf("first utterance %d bytes, want about %d", n, len(loud))
	}
	if n := len(utts[1]); n < 2*len(loud)-640 {
		t.Errorf("second utterance %d bytes, want about %d", n, 2*len(loud))
	}
}
