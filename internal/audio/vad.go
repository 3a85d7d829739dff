package audio

// Segmenter cuts a PCM stream into utterances with an energy threshold: an
// utterance starts at the first loud frame and ends after Silence ms of
// quiet frames, or when it reaches MaxMs. Leading silence is dropped.
type Segmenter struct {
	// Threshold is the RMS (0..1) above which a 20 ms frame is speech.
	// Default 0.01 (about -40 dBFS).
	Threshold float64
	// SilenceMs of quiet ends an utterance. Default 600.
	SilenceMs int
	// MaxMs caps an utterance. Default 25000.
	MaxMs int

	pending  []byte // bytes of an incomplete frame
	utt      []byte // the current utterance
	speaking bool
	quiet    int // quiet bytes at the end of utt
}

const frameBytes = Rate * 2 / 50 // 20 ms

func (s *Segmenter) defaults() {
	if s.Threshold <= 0 {
		s.Threshold = 0.01
	}
	if s.SilenceMs <= 0 {
		s.SilenceMs = 600
	}
	if s.MaxMs <= 0 {
		s.MaxMs = 25000
	}
}

// Write adds PCM and returns the utterances it completed.
func (s *Segmenter) Write(pcm []byte) [][]byte {
	s.defaults()
	var done [][]byte
	s.pending = append(s.pending, pcm...)
	for len(s.pending) >= frameBytes {
		frame := s.pending[:frameBytes]
		loud := RMS(frame) >= s.Threshold
		switch {
		case loud:
			s.speaking = true
			s.quiet = 0
			s.utt = append(s.utt, frame...)
		case s.speaking:
			s.quiet += frameBytes
			s.utt = append(s.utt, frame...)
		}
		if s.speaking && (s.quiet >= s.SilenceMs*Rate*2/1000 || len(s.utt) >= s.MaxMs*Rate*2/1000) {
			done = append(done, s.cut())
		}
		s.pending = s.pending[frameBytes:]
	}
	// Keep pending small and unaliased.
	s.pending = append([]byte(nil), s.pending...)
	return done
}

// Flush returns the utterance in progress, if any.
func (s *Segmenter) Flush() []byte {
	if !s.speaking {
		s.utt, s.pending = nil, nil
		return nil
	}
	s.utt = append(s.utt, s.pending...)
	s.pending = nil
	return s.cut()
}

func (s *Segmenter) cut() []byte {
	u := s.utt[:len(s.utt)-s.quiet]
	s.utt, s.speaking, s.quiet = nil, false, 0
	return u
}
