// Package pocketsphinx is the local speech recogniser: CMU PocketSphinx
// 0.8+5prealpha as shipped by Debian (packages pocketsphinx and
// pocketsphinx-en-us), driven through its C API
// (ps_start_utt / ps_process_raw / ps_get_hyp / ps_end_utt) so that partial
// hypotheses stream while audio arrives. The library is loaded at run time
// (purego, no cgo): the project builds anywhere and New reports
// ErrNotInstalled where the library is missing.
package pocketsphinx

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// DefaultModelDir is where pocketsphinx-en-us installs the US English model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// Config configures the engine.
type Config struct {
	// ModelDir holds en-us/ (acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict. Default DefaultModelDir.
	ModelDir string
	// MaxDecoders bounds the decoders alive at once, each being one
	// stream (about 25 MB of C memory each). Default 8.
	MaxDecoders int
	// IdleDecoders is how many finished decoders are kept for reuse
	// (loading the model takes about 0.3 s). Default 2.
	IdleDecoders int
	// PartialEvery is how much audio passes between two partial
	// hypotheses. Default 300 ms.
	PartialEveryMs int
}

// Engine creates decoders and pools them.
type Engine struct {
	cfg Config
	lib *lib
	sem chan struct{} // one token per live decoder

	mu   sync.Mutex // protects idle
	idle []*decoder
}

var _ speech.Recognizer = (*Engine)(nil)

// New checks that the library and the model are installed.
func New(cfg Config) (*Engine, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.MaxDecoders <= 0 {
		cfg.MaxDecoders = 8
	}
	if cfg.IdleDecoders < 0 || cfg.IdleDecoders > cfg.MaxDecoders {
		cfg.IdleDecoders = min(2, cfg.MaxDecoders)
	}
	if cfg.PartialEveryMs <= 0 {
		cfg.PartialEveryMs = 300
	}
	l, err := load()
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"en-us/mdef", "en-us.lm.bin", "cmudict-en-us.dict"} {
		if _, err := os.Stat(filepath.Join(cfg.ModelDir, p)); err != nil {
			return nil, fmt.Errorf("%w: model file missing (speech.pocketsphinx.model-dir %s): %v", ErrNotInstalled, cfg.ModelDir, err)
		}
	}
	return &Engine{cfg: cfg, lib: l, sem: make(chan struct{}, cfg.MaxDecoders)}, nil
}

// Available reports whether New would succeed for modelDir.
func Available(modelDir string) error {
	_, err := New(Config{ModelDir: modelDir})
	return err
}

// Name implements speech.Recognizer.
func (e *Engine) Name() string { return "pocketsphinx" }

// Start implements speech.Recognizer. It returns speech.ErrBusy at once
// when MaxDecoders streams are running.
func (e *Engine) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	select {
	case e.sem <- struct{}{}:
	default:
		return nil, speech.ErrBusy
	}
	d, err := e.getDecoder()
	if err != nil {
		<-e.sem
		return nil, err
	}
	if rc := e.lib.psStartUtt(d.ps); rc < 0 {
		e.putDecoder(d, false)
		return nil, fmt.Errorf("pocketsphinx: ps_start_utt failed (%d)", rc)
	}
	return &stream{e: e, d: d, ctx: ctx, emit: emit,
		partialEvery: e.cfg.PartialEveryMs * speech.SampleRate / 1000}, nil
}

// Close frees the idle decoders.
func (e *Engine) Close() error {
	e.mu.Lock()
	idle := e.idle
	e.idle = nil
	e.mu.Unlock()
	for _, d := range idle {
		d.free()
	}
	return nil
}

func (e *Engine) getDecoder() (*decoder, error) {
	e.mu.Lock()
	if n := len(e.idle); n > 0 {
		d := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.mu.Unlock()
		return d, nil
	}
	e.mu.Unlock()
	return newDecoder(e.lib, e.cfg.ModelDir)
}

// putDecoder returns d to the pool, or frees it when the pool is full or
// d is unusable, and releases its slot.
func (e *Engine) putDecoder(d *decoder, reusable bool) {
	e.mu.Lock()
	if reusable && len(e.idle) < e.cfg.IdleDecoders {
		e.idle = append(e.idle, d)
		d = nil
	}
	e.mu.Unlock()
	if d != nil {
		d.free()
	}
	<-e.sem
}

// decoder is one ps_decoder_t; it is used by one goroutine at a time.
type decoder struct {
	lib *lib
	ps  uintptr
}

func newDecoder(l *lib, modelDir string) (*decoder, error) {
	args := []string{
		"-hmm", filepath.Join(modelDir, "en-us"),
		"-lm", filepath.Join(modelDir, "en-us.lm.bin"),
		"-dict", filepath.Join(modelDir, "cmudict-en-us.dict"),
		"-samprate", "16000",
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	argv := make([]*byte, len(args))
	for i, a := range args {
		argv[i] = cString(a)
		pin.Pin(argv[i])
	}
	pin.Pin(&argv[0])
	cfg := l.cmdLnParseR(0, l.psArgs(), int32(len(argv)), unsafe.Pointer(&argv[0]), 1)
	if cfg == 0 {
		return nil, fmt.Errorf("pocketsphinx: invalid configuration %v", args)
	}
	ps := l.psInit(cfg)
	// ps_init keeps its own reference to the configuration.
	l.cmdLnFreeR(cfg)
	if ps == 0 {
		return nil, fmt.Errorf("pocketsphinx: ps_init failed for model %s", modelDir)
	}
	return &decoder{lib: l, ps: ps}, nil
}

func (d *decoder) free() { d.lib.psFree(d.ps) }

// stream decodes one audio stream; each utterance (speech between two
// silences, found by pocketsphinx's voice activity detector) is a segment.
type stream struct {
	e    *Engine
	d    *decoder
	ctx  context.Context
	emit func(speech.Result)

	samples      []int16
	odd          []byte // a trailing odd byte kept for the next Write
	segment      int
	inUtterance  bool
	lastHyp      string
	sinceHyp     int // samples since the last partial hypothesis
	partialEvery int
	failed       bool
	closed       bool
}

// Write implements speech.Stream.
func (s *stream) Write(pcm []byte) error {
	if s.closed {
		return fmt.Errorf("pocketsphinx: write after close")
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if len(s.odd) > 0 {
		pcm = append(s.odd, pcm...)
		s.odd = nil
	}
	if len(pcm)%2 == 1 {
		s.odd = []byte{pcm[len(pcm)-1]}
		pcm = pcm[:len(pcm)-1]
	}
	n := len(pcm) / 2
	if n == 0 {
		return nil
	}
	s.samples = s.samples[:0]
	for i := 0; i < n; i++ {
		s.samples = append(s.samples, int16(binary.LittleEndian.Uint16(pcm[2*i:])))
	}
	if rc := s.e.lib.psProcessRaw(s.d.ps, unsafe.Pointer(&s.samples[0]), uintptr(n), 0, 0); rc < 0 {
		s.failed = true
		return fmt.Errorf("pocketsphinx: ps_process_raw failed (%d)", rc)
	}
	inSpeech := s.e.lib.psInSpeech(s.d.ps) != 0
	if inSpeech && !s.inUtterance {
		s.inUtterance = true
	}
	if s.inUtterance {
		s.sinceHyp += n
		if s.sinceHyp >= s.partialEvery {
			s.sinceHyp = 0
			s.partial()
		}
	}
	if !inSpeech && s.inUtterance {
		// Silence after speech: the utterance is over.
		if err := s.endUtterance(); err != nil {
			return err
		}
		if rc := s.e.lib.psStartUtt(s.d.ps); rc < 0 {
			s.failed = true
			return fmt.Errorf("pocketsphinx: ps_start_utt failed (%d)", rc)
		}
	}
	return nil
}

func (s *stream) hyp() string {
	var score int32
	return s.e.lib.psGetHyp(s.d.ps, &score)
}

func (s *stream) partial() {
	if h := s.hyp(); h != "" && h != s.lastHyp {
		s.lastHyp = h
		s.emit(speech.Result{Segment: s.segment, Text: h})
	}
}

// endUtterance ends the current utterance and emits its final text.
func (s *stream) endUtterance() error {
	if rc := s.e.lib.psEndUtt(s.d.ps); rc < 0 {
		s.failed = true
		return fmt.Errorf("pocketsphinx: ps_end_utt failed (%d)", rc)
	}
	if h := s.hyp(); h != "" || s.lastHyp != "" {
		s.emit(speech.Result{Segment: s.segment, Text: h, Final: true})
	}
	s.segment++
	s.inUtterance, s.lastHyp, s.sinceHyp = false, "", 0
	return nil
}

// Close implements speech.Stream.
func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if !s.failed {
		err = s.endUtterance()
	}
	s.e.putDecoder(s.d, err == nil && !s.failed)
	return err
}
