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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// DefaultModelDir is where pocketsphinx-en-us installs the US English model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// Config configures the engine.
type Config struct {
	// ModelDir holds en-us/ (acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict. Default DefaultModelDir.
	ModelDir string
	// MaxDecoders bounds the decoders alive at once, busy or idle. Each is
	// one stream and holds its own copy of the model: about 100 MB of C
	// memory once it has decoded speech. Default 2.
	MaxDecoders int
	// MaxDecodersPerUser bounds the streams one user (the caller in ctx, internal/auth)
	// runs at once; streams without a user only count against MaxDecoders.
	// Default 1.
	MaxDecodersPerUser int
	// IdleRelease is how long a finished decoder is kept for reuse
	// (loading the model takes about 0.3 s) before it is freed and its
	// memory returned to the operating system. Default 60 s.
	IdleRelease time.Duration
	// MaxWait is how long Start waits for a decoder when a limit is
	// reached, so that a page reconnecting right after a dropped socket
	// gets the decoder the old socket is still releasing; then it fails.
	// Default 3 s; negative: no wait.
	MaxWait time.Duration
	// PartialEvery is how much audio passes between two partial
	// hypotheses. Default 300 ms.
	PartialEveryMs int
	// Registerer, when set, receives the speech_decoders gauge (busy and
	// idle decoders) and speech_decoder_rejections_total.
	Registerer prometheus.Registerer
}

// Engine creates decoders and pools them: at most MaxDecoders exist, at
// most MaxDecodersPerUser per user are busy, and one left idle for
// IdleRelease is freed.
type Engine struct {
	cfg Config
	lib *lib
	met *engineMetrics

	mu      sync.Mutex     // protects the fields below
	freed   chan struct{}  // closed and replaced when a slot is released
	busy    int            // decoders running a stream
	perUser map[string]int // busy decoders by user
	idle    []idleDecoder  // most recently used last
	timer   *time.Timer    // runs reap while idle is not empty
	closed  bool
}

// idleDecoder is a pooled decoder and when it was returned.
type idleDecoder struct {
	d     *decoder
	since time.Time
}

var _ speech.Recognizer = (*Engine)(nil)

// New checks that the library and the model are installed.
func New(cfg Config) (*Engine, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.MaxDecoders <= 0 {
		cfg.MaxDecoders = 2
	}
	if cfg.MaxDecodersPerUser <= 0 {
		cfg.MaxDecodersPerUser = 1
	}
	if cfg.IdleRelease <= 0 {
		cfg.IdleRelease = time.Minute
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 3 * time.Second
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
	e := &Engine{cfg: cfg, lib: l, perUser: map[string]int{}, freed: make(chan struct{})}
	met, err := newEngineMetrics(cfg.Registerer, e)
	if err != nil {
		return nil, err
	}
	e.met = met
	return e, nil
}

// Available reports whether New would succeed for modelDir.
func Available(modelDir string) error {
	_, err := New(Config{ModelDir: modelDir})
	return err
}

// Name implements speech.Recognizer.
func (e *Engine) Name() string { return "pocketsphinx" }

// Languages implements speech.Recognizer: English only: the installed model is en-us.
func (*Engine) Languages() []string { return []string{speech.LangEnglish} }

// Stats returns the decoders running a stream and those kept idle.
func (e *Engine) Stats() (busy, idle int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.busy, len(e.idle)
}

// Start implements speech.Recognizer. When the user of ctx
// (the caller in ctx, internal/auth) already runs MaxDecodersPerUser streams, or
// MaxDecoders run, it waits at most MaxWait for one to end, then fails
// with a *speech.LimitError wrapping speech.ErrUserBusy or speech.ErrBusy.
func (e *Engine) Start(ctx context.Context, emit func(speech.Result)) (speech.Stream, error) {
	caller, _ := auth.FromContext(ctx)
	user := caller.UserID
	d, err := e.acquireWait(ctx, user)
	if err != nil {
		return nil, err
	}
	if d == nil {
		if d, err = newDecoder(e.lib, e.cfg.ModelDir); err != nil {
			e.release(user, nil, false)
			return nil, err
		}
	}
	if rc := e.lib.psStartUtt(d.ps); rc < 0 {
		e.release(user, d, false)
		return nil, fmt.Errorf("pocketsphinx: ps_start_utt failed (%d)", rc)
	}
	return &stream{e: e, d: d, user: user, ctx: ctx, emit: emit,
		partialEvery: e.cfg.PartialEveryMs * speech.SampleRate / 1000}, nil
}

// acquireWait is acquire, retried whenever a slot is released, for at
// most MaxWait.
func (e *Engine) acquireWait(ctx context.Context, user string) (*decoder, error) {
	var deadline <-chan time.Time
	for {
		d, freed, err := e.acquire(user)
		var le *speech.LimitError
		if err == nil || !errors.As(err, &le) || e.cfg.MaxWait < 0 {
			return d, err
		}
		if deadline == nil {
			t := time.NewTimer(e.cfg.MaxWait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-freed:
		case <-deadline:
			limit := "global"
			if errors.Is(le.Err, speech.ErrUserBusy) {
				limit = "user"
			}
			e.met.rejected(limit)
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// acquire takes a slot for user and returns an idle decoder, or nil when
// a new one must be made (its slot is taken). Refused, it returns the
// channel closed at the next release.
func (e *Engine) acquire(user string) (*decoder, <-chan struct{}, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, speech.ErrBusy
	}
	if user != "" && e.perUser[user] >= e.cfg.MaxDecodersPerUser {
		return nil, e.freed, &speech.LimitError{Err: speech.ErrUserBusy, Limit: e.cfg.MaxDecodersPerUser}
	}
	if e.busy >= e.cfg.MaxDecoders {
		return nil, e.freed, &speech.LimitError{Err: speech.ErrBusy, Limit: e.cfg.MaxDecoders}
	}
	e.busy++
	if user != "" {
		e.perUser[user]++
	}
	if n := len(e.idle); n > 0 {
		d := e.idle[n-1].d
		e.idle = e.idle[:n-1]
		return d, nil, nil
	}
	// No idle decoder, so busy + idle stays within MaxDecoders with the
	// new one the caller makes.
	return nil, nil, nil
}

// release gives back user's slot; d (when not nil) is pooled when
// reusable, else freed.
func (e *Engine) release(user string, d *decoder, reusable bool) {
	e.mu.Lock()
	e.busy--
	close(e.freed) // wake the waiting Starts
	e.freed = make(chan struct{})
	if user != "" {
		if e.perUser[user]--; e.perUser[user] <= 0 {
			delete(e.perUser, user)
		}
	}
	if d != nil && reusable && !e.closed {
		e.idle = append(e.idle, idleDecoder{d: d, since: time.Now()})
		d = nil
		if e.timer == nil {
			e.timer = time.AfterFunc(e.cfg.IdleRelease, e.reap)
		}
	}
	e.mu.Unlock()
	if d != nil {
		e.free([]*decoder{d})
	}
}

// reap frees the decoders idle for IdleRelease and schedules itself for
// the next one.
func (e *Engine) reap() {
	now := time.Now()
	var old []*decoder
	e.mu.Lock()
	keep := e.idle[:0]
	for _, it := range e.idle {
		if now.Sub(it.since) >= e.cfg.IdleRelease {
			old = append(old, it.d)
		} else {
			keep = append(keep, it)
		}
	}
	clear(e.idle[len(keep):])
	e.idle = keep
	e.timer = nil
	if len(e.idle) > 0 && !e.closed {
		// The oldest idle decoder comes first.
		e.timer = time.AfterFunc(e.idle[0].since.Add(e.cfg.IdleRelease).Sub(now), e.reap)
	}
	e.mu.Unlock()
	e.free(old)
}

// free frees decoders and hands the memory they used back to the
// operating system.
func (e *Engine) free(ds []*decoder) {
	if len(ds) == 0 {
		return
	}
	for _, d := range ds {
		d.free()
	}
	e.lib.trim()
	e.met.freed(len(ds))
}

// Close frees the idle decoders; running streams free theirs when they
// close.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	var idle []*decoder
	for _, it := range e.idle {
		idle = append(idle, it.d)
	}
	e.idle = nil
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	e.mu.Unlock()
	e.free(idle)
	return nil
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
	user string
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
	s.e.release(s.user, s.d, err == nil && !s.failed)
	return err
}
