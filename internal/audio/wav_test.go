package audio

import (
	"encoding/binary"
	"testing"
)

func TestWAVRoundTrip(t *testing.T) {
	samples := []int16{0, 1000, -1000, 32767, -32768, 5}
	b := EncodeWAV(PCMBytes(samples), 16000)
	w, err := ParseWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	if w.SampleRate != 16000 || w.Channels != 1 || w.Samples() != len(samples) {
		t.Fatalf("%+v", w.Format)
	}
	if got := binary.LittleEndian.Uint32(b[4:]); int(got) != len(b)-8 {
		t.Fatalf("RIFF size %d for %d bytes", got, len(b))
	}
	got := w.Mono16(16000)
	for i := range samples {
		if got[i] != samples[i] {
			t.Fatalf("sample %d: %d != %d", i, got[i], samples[i])
		}
	}
}

// Streamed WAVs (espeak-ng --stdout) claim a huge data size.
func TestParseStreamedWAV(t *testing.T) {
	b := EncodeWAV(make([]byte, 20), 22050)
	binary.LittleEndian.PutUint32(b[40:], 0x7ffff000)
	w, err := ParseWAV(b)
	if err != nil || w.Samples() != 10 {
		t.Fatalf("%v %d", err, w.Samples())
	}
}

// The fixed-point fast path agrees with the general path.
func TestResampleFastPathMatches(t *testing.T) {
	src := make([]int16, 2205)
	for i := range src {
		src[i] = int16((i * 37) % 20000)
	}
	w := WAV{Format: Format{AudioFormat: 1, Channels: 1, SampleRate: 22050, BitsPerSample: 16}, Data: PCMBytes(src)}
	for _, rate := range []int{8000, 16000, 22050, 44100} {
		fast := w.Mono16(rate)
		x := make([]float64, len(src))
		for i, v := range src {
			x[i] = float64(v) / 32768
		}
		slow := toInt16(resampleLinear(x, 22050, rate))
		if len(fast) != len(slow) {
			t.Fatalf("rate %d: %d vs %d samples", rate, len(fast), len(slow))
		}
		for i := range fast {
			if d := int(fast[i]) - int(slow[i]); d > 1 || d < -1 {
				t.Fatalf("rate %d sample %d: %d vs %d", rate, i, fast[i], slow[i])
			}
		}
	}
}

func TestParseWAVErrors(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":     nil,
		"not riff":  []byte("RIFX0000WAVEfmt "),
		"no data":   EncodeWAV(nil, 8000)[:36],
		"bad rate":  func() []byte { b := EncodeWAV([]byte{1, 0}, 8000); binary.LittleEndian.PutUint32(b[24:], 1); return b }(),
		"8 channel": func() []byte { b := EncodeWAV([]byte{1, 0}, 8000); binary.LittleEndian.PutUint16(b[22:], 9); return b }(),
	} {
		if _, err := ParseWAV(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
