package tts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/page"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// Stage is the single-flight stage of a whole synthesis.
const Stage = "tts-synthesis"

// Flights runs single-flights (internal/singleflight.Group).
type Flights interface {
	Do(ctx context.Context, stage, key string, fn func(ctx context.Context) ([]byte, error)) (singleflight.Result, error)
}

// Config tunes the service. Zero values take the defaults of DefaultConfig.
type Config struct {
	// DataDir holds the audio: DataDir/audio/<key>.<encoding> (+ .json
	// metadata) and, while a synthesis runs, DataDir/work/<key>/<n>.pcm.
	// Instances that share a database must share this directory.
	DataDir string
	// Provider names the synthesizer; it is part of every audio key.
	Provider string
	// MaxConcurrency bounds the segments synthesised at once on this
	// instance, over all tasks.
	MaxConcurrency int
	// SegmentMaxChars is the hard cap of a segment in runes.
	SegmentMaxChars int
	// SynthesizeWait bounds how long POST /synthesize waits.
	SynthesizeWait time.Duration
	// InstanceID names this instance in the owner column.
	InstanceID string
	// Lease is how long a claim lasts without a heartbeat: a task of a
	// crashed instance is resumed by another one after at most Lease.
	Lease time.Duration
	// Heartbeat is how often a running task renews its lease (and notices a
	// cancellation made on another instance).
	Heartbeat time.Duration
	// PollInterval is how often the worker looks for claimable tasks.
	PollInterval time.Duration
	// ProgressInterval is how often progress is re-read: the events stream
	// polls the row, a follower task counts the leader's segment files.
	ProgressInterval time.Duration
	// MaxTasks is how many tasks this instance runs at once.
	MaxTasks int
	// MaxAttempts is how many claims a task gets before it is failed (each
	// crash of the instance running it costs one).
	MaxAttempts int
	// Retries of a failed segment, RetryDelay between them, SegmentTimeout
	// per attempt.
	Retries        int
	RetryDelay     time.Duration
	SegmentTimeout time.Duration
	// Pause is the silence put between two segments.
	Pause time.Duration
	// Lame is the path of the lame binary; "" means MP3 is unavailable.
	Lame string
	// BasePath prefixes audio URLs (e.g. /api/xunzhi/v1/xunfei/tts).
	BasePath string
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Provider: "espeak-ng", MaxConcurrency: 2, SegmentMaxChars: 300, SynthesizeWait: time.Minute,
		Lease: 15 * time.Second, Heartbeat: 5 * time.Second, PollInterval: time.Second,
		ProgressInterval: 300 * time.Millisecond, MaxTasks: 4, MaxAttempts: 3, Retries: 2,
		RetryDelay: 200 * time.Millisecond, SegmentTimeout: time.Minute, Pause: 250 * time.Millisecond}
}

func (c *Config) fill() {
	d := DefaultConfig()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&c.MaxConcurrency, d.MaxConcurrency)
	set(&c.SegmentMaxChars, d.SegmentMaxChars)
	set(&c.MaxTasks, d.MaxTasks)
	set(&c.MaxAttempts, d.MaxAttempts)
	if c.Retries < 0 {
		c.Retries = 0
	}
	setD(&c.SynthesizeWait, d.SynthesizeWait)
	setD(&c.Lease, d.Lease)
	setD(&c.Heartbeat, d.Heartbeat)
	setD(&c.PollInterval, d.PollInterval)
	setD(&c.ProgressInterval, d.ProgressInterval)
	setD(&c.SegmentTimeout, d.SegmentTimeout)
	if c.Pause < 0 {
		c.Pause = 0
	}
	if c.Provider == "" {
		c.Provider = d.Provider
	}
	if c.InstanceID == "" {
		host, _ := os.Hostname()
		c.InstanceID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), ids.Token(3))
	}
}

// Service is the TTS domain: tasks, their worker and their audio.
type Service struct {
	cfg     Config
	store   Store
	synth   Synthesizer
	flights Flights
	log     *slog.Logger
	met     *metrics
	sem     *semaphore.Weighted // bounds segments in flight on this instance

	mu      sync.Mutex                         // protects running, subs, closed, writing
	running map[string]context.CancelCauseFunc // tasks this instance runs, by id
	subs    map[string]map[chan struct{}]struct{}
	closed  bool
	// writing counts the synthesizeAll calls writing the work directory
	// of each key on this instance. A flight's function can outlive the
	// task that started it (the single-flight cancels it and returns at
	// once), so discardWork leaves a directory alone while it is written.
	writing map[string]int

	wake chan struct{} // nudges the worker (buffered 1)
	stop chan struct{} // closed by Close
	wg   sync.WaitGroup
}

// NewService returns a service; call Start to run its worker. reg may be nil.
func NewService(store Store, synth Synthesizer, flights Flights, cfg Config, log *slog.Logger, reg prometheus.Registerer) (*Service, error) {
	cfg.fill()
	if cfg.DataDir == "" {
		return nil, errors.New("tts: DataDir is required")
	}
	for _, d := range []string{"audio", "work"} {
		if err := os.MkdirAll(filepath.Join(cfg.DataDir, d), 0o750); err != nil {
			return nil, fmt.Errorf("tts: create %s: %w", d, err)
		}
	}
	met, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("tts: register metrics: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, store: store, synth: synth, flights: flights, log: log, met: met,
		sem: semaphore.NewWeighted(int64(cfg.MaxConcurrency)), running: map[string]context.CancelCauseFunc{},
		writing: map[string]int{}, subs: map[string]map[chan struct{}]struct{}{}, wake: make(chan struct{}, 1), stop: make(chan struct{})}, nil
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Create validates req and queues a task of userID.
func (s *Service) Create(ctx context.Context, userID string, req CreateRequest) (*Task, error) {
	if s.synth == nil {
		return nil, apperr.New(apperr.KindUnavailable,
			"speech synthesis is not available on this server: install espeak-ng (scripts/tts-deps.sh) or configure tts.provider")
	}
	p, err := req.Validate(s.cfg.Lame != "")
	if err != nil {
		return nil, err
	}
	segs := Segments(req.Text, s.cfg.SegmentMaxChars)
	if len(segs) == 0 {
		return nil, apperr.Invalid("text has nothing to read: send words, not only spaces")
	}
	at := now()
	t := &Task{ID: ids.New(), UserID: userID, Text: req.Text, Params: p,
		Key: Key(req.Text, p, s.cfg.SegmentMaxChars, s.cfg.Provider), Status: StatusCreated,
		SegmentsTotal: len(segs), CreatedAt: at, UpdatedAt: at}
	if err := s.store.Create(ctx, t); err != nil {
		return nil, err
	}
	s.met.tasks.WithLabelValues("created").Inc()
	s.nudge()
	return t, nil
}

// Get returns userID's task.
func (s *Service) Get(ctx context.Context, id, userID string) (*Task, error) {
	return s.store.Get(ctx, id, userID)
}

// List returns a page of userID's tasks.
func (s *Service) List(ctx context.Context, userID string, r page.Request) (page.Result[*Task], error) {
	tasks, total, err := s.store.List(ctx, userID, r)
	if err != nil {
		return page.Result[*Task]{}, err
	}
	return page.NewResult(r, tasks, total), nil
}

// Delete cancels userID's task when it is queued or running (it ends failed
// with "cancelled", wherever it runs) and returns it; a finished task is
// deleted with its audio (unless another task shares the audio) and nil is
// returned.
func (s *Service) Delete(ctx context.Context, id, userID string) (*Task, error) {
	t, err := s.store.Get(ctx, id, userID)
	if err != nil {
		return nil, err
	}
	if !t.Status.Terminal() {
		ok, err := s.store.Fail(ctx, id, "", CancelledMessage)
		if err != nil {
			return nil, err
		}
		if ok {
			s.met.tasks.WithLabelValues("cancelled").Inc()
			s.cancelLocal(id)
			s.notify(id)
			return s.store.Get(ctx, id, userID)
		}
		// It finished meanwhile: delete it below.
		if t, err = s.store.Get(ctx, id, userID); err != nil {
			return nil, err
		}
	}
	ok, err := s.store.Delete(ctx, id, userID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.Conflict("tts task %s changed while deleting it; retry", id)
	}
	if t.Status == StatusDone {
		inUse, err := s.store.KeyInUse(ctx, t.Key, t.ID)
		if err == nil && !inUse {
			s.removeAudio(t.Key, t.Params.Encoding)
		}
	}
	s.notify(id)
	return nil, nil
}

// Synthesize creates a task and waits until it ends or SynthesizeWait (or
// ctx) runs out, returning its latest state.
func (s *Service) Synthesize(ctx context.Context, userID string, req CreateRequest) (*Task, error) {
	t, err := s.Create(ctx, userID, req)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, s.cfg.SynthesizeWait)
	defer cancel()
	var last *Task
	err = s.Watch(wctx, t.ID, userID, func(cur *Task) error { last = cur; return nil })
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, err
	case last == nil:
		return t, nil
	}
	return last, nil
}

// Watch calls fn with the task's state when it changes (at once with the
// current state, then on every progress change) until the task ends (fn
// sees the final state and Watch returns nil) or ctx is done. It reads the
// row every ProgressInterval, so it follows tasks run by other instances,
// and is woken at once by changes made on this one.
func (s *Service) Watch(ctx context.Context, id, userID string, fn func(*Task) error) error {
	ch := s.subscribe(id)
	defer s.unsubscribe(id, ch)
	tick := time.NewTicker(s.cfg.ProgressInterval)
	defer tick.Stop()
	var prev *Task
	for {
		t, err := s.store.Get(ctx, id, userID)
		if err != nil {
			if prev != nil && apperr.Is(err, apperr.KindNotFound) {
				return nil // deleted while watched
			}
			return err
		}
		if prev == nil || t.Status != prev.Status || t.SegmentsDone != prev.SegmentsDone {
			if err := fn(t); err != nil {
				return err
			}
			prev = t
		}
		if t.Status.Terminal() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		case <-ch:
		}
	}
}

// AudioFile is an open finished audio file.
type AudioFile struct {
	*os.File
	Name        string
	ContentType string
	ModTime     time.Time
}

// OpenAudio opens the audio of userID's finished task.
func (s *Service) OpenAudio(ctx context.Context, id, userID string) (*AudioFile, error) {
	t, err := s.store.Get(ctx, id, userID)
	if err != nil {
		return nil, err
	}
	switch t.Status {
	case StatusDone:
	case StatusFailed:
		return nil, apperr.Conflict("tts task %s failed and has no audio: %s", id, t.ErrorMessage)
	default:
		return nil, apperr.Conflict("the audio of tts task %s is not ready yet (%d%%)", id, t.Progress()).AsRetryable()
	}
	f, err := os.Open(s.audioPath(t.Key, t.Params.Encoding))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, apperr.New(apperr.KindNotFound, "audio of tts task %s not found", id)
		}
		return nil, apperr.Internal(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, apperr.Internal(err)
	}
	ct := "audio/wav"
	if t.Params.Encoding == EncodingMP3 {
		ct = "audio/mpeg"
	}
	return &AudioFile{File: f, Name: id + "." + t.Params.Encoding, ContentType: ct, ModTime: st.ModTime()}, nil
}

// subscribe returns a channel signalled when this instance changes task id.
func (s *Service) subscribe(id string) chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[id] == nil {
		s.subs[id] = map[chan struct{}]struct{}{}
	}
	s.subs[id][ch] = struct{}{}
	return ch
}

func (s *Service) unsubscribe(id string, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs[id], ch)
	if len(s.subs[id]) == 0 {
		delete(s.subs, id)
	}
}

// notify wakes the watchers of task id on this instance (never blocks).
func (s *Service) notify(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// cancelLocal cancels task id when this instance runs it.
func (s *Service) cancelLocal(id string) {
	s.mu.Lock()
	cancel := s.running[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
}

func (s *Service) audioPath(key, enc string) string {
	return filepath.Join(s.cfg.DataDir, "audio", key+"."+enc)
}

func (s *Service) metaPath(key, enc string) string {
	return filepath.Join(s.cfg.DataDir, "audio", key+"."+enc+".json")
}

func (s *Service) workDir(key string) string { return filepath.Join(s.cfg.DataDir, "work", key) }

// discardWork removes the work directory (finished segments) of key once
// no task needs it: none is queued or running with key on any instance
// (a task released on shutdown stays running and resumes from it), and no
// synthesis on this instance is still writing it. It is called when a
// task fails or is cancelled, and when a synthesis of key ends in error;
// whichever of the two comes last removes the directory.
func (s *Service) discardWork(key string) {
	s.mu.Lock()
	busy := s.writing[key] > 0
	s.mu.Unlock()
	if busy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if pending, err := s.store.KeyPending(ctx, key); err != nil || pending {
		return
	}
	if err := os.RemoveAll(s.workDir(key)); err != nil {
		s.log.Warn("tts: remove work directory", "key", key, "err", err)
	}
}

func (s *Service) removeAudio(key, enc string) {
	_ = os.Remove(s.metaPath(key, enc))
	_ = os.Remove(s.audioPath(key, enc))
}
