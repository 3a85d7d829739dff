package tts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"golang.org/x/sync/errgroup"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/audio"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/lease"
	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// Causes of a running task's cancellation.
var (
	errShutdown  = errors.New("tts: instance shutting down")
	errCancelled = errors.New("tts: task cancelled")
	errLost      = errors.New("tts: task no longer ours (cancelled elsewhere or lease lost)")
)

// audioMeta describes a finished audio file; it is the value shared by the
// single-flight and stored next to the audio as <file>.json.
type audioMeta struct {
	DurationMs int64 `json:"durationMs"`
	Bytes      int64 `json:"bytes"`
	Samples    int64 `json:"samples"`
	SampleRate int   `json:"sampleRate"`
	Segments   int   `json:"segments"`
}

// Start runs the worker. It claims queued tasks, and tasks whose owner's
// lease expired (the instance died), up to MaxTasks at once.
func (s *Service) Start() {
	s.wg.Add(1)
	go s.loop()
}

// Close stops the worker: no new claims, running tasks are interrupted and
// released (still running, claimable at once, the attempt not counted), so
// that another instance, or this one restarted, resumes them from their
// finished segments. It waits for the tasks to let go.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, cancel := range s.running {
		cancel(errShutdown)
	}
	s.mu.Unlock()
	close(s.stop)
	s.wg.Wait()
	return nil
}

// nudge wakes the worker (a task was created here).
func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) loop() {
	defer s.wg.Done()
	tick := time.NewTicker(s.cfg.PollInterval)
	defer tick.Stop()
	for {
		s.claim()
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-tick.C:
		}
	}
}

// claim starts as many claimable tasks as this instance has room for.
func (s *Service) claim() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.mu.Lock()
	free, busy := s.cfg.MaxTasks-len(s.running), len(s.running)
	s.mu.Unlock()
	if free <= 0 {
		return
	}
	ids, err := s.store.Claimable(ctx, now(), free+busy)
	if err != nil {
		s.log.Warn("tts: find claimable tasks", "err", err)
		return
	}
	for _, id := range ids {
		if free == 0 {
			return
		}
		s.mu.Lock()
		_, mine := s.running[id]
		s.mu.Unlock()
		if mine {
			continue
		}
		at := now()
		ok, err := s.store.Claim(ctx, id, s.cfg.InstanceID, at, at.Add(s.cfg.Lease))
		if err != nil || !ok {
			continue // another instance was faster
		}
		t, err := s.store.Get(ctx, id, "")
		if err != nil {
			continue
		}
		if t.Attempts > s.cfg.MaxAttempts {
			msg := fmt.Sprintf("gave up after %d attempts: the instance running this task stopped %d times before it finished",
				s.cfg.MaxAttempts, t.Attempts-1)
			if ok, _ := s.store.Fail(ctx, id, s.cfg.InstanceID, msg); ok {
				s.met.tasks.WithLabelValues("failed").Inc()
				s.notify(id)
				s.discardWork(t.Key)
			}
			continue
		}
		if t.Attempts > 1 {
			s.met.tasks.WithLabelValues("resumed").Inc()
			s.log.Info("tts: resuming task", "task", id, "attempt", t.Attempts, "segmentsDone", t.SegmentsDone)
		}
		if s.run(t) {
			free--
		}
	}
}

// run runs claimed task t in its own goroutine; false when closing.
func (s *Service) run(t *Task) bool {
	ctx, cancel := context.WithCancelCause(context.Background())
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(errShutdown)
		s.finish(t, context.Cause(ctx), audioMeta{})
		return false
	}
	s.running[t.ID] = cancel
	s.wg.Add(1)
	s.mu.Unlock()
	s.notify(t.ID)
	go func() {
		defer s.wg.Done()
		hbCtx, stopHB := context.WithCancel(ctx) // aborts a renewal in progress at the end
		hb := lease.Start(s.cfg.Heartbeat, s.renew(hbCtx, t.ID, cancel))
		m, err := s.execute(ctx, t)
		stopHB()
		hb.Stop()
		if err != nil && context.Cause(ctx) != nil {
			err = context.Cause(ctx)
		}
		s.finish(t, err, m)
		s.mu.Lock()
		delete(s.running, t.ID)
		s.mu.Unlock()
		cancel(nil)
		if !errors.Is(err, blobstore.ErrUnavailable) {
			s.nudge() // room for another task
		} // else: the released task is tried again on the next poll, not in a tight loop
	}()
	return true
}

// finish records the outcome of running t.
func (s *Service) finish(t *Task, err error, m audioMeta) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	owner := s.cfg.InstanceID
	switch {
	case err == nil:
		if ok, ferr := s.store.Finish(ctx, t.ID, owner, m.DurationMs, m.Bytes); ferr != nil {
			s.log.Error("tts: record finished task", "task", t.ID, "err", ferr)
		} else if ok {
			s.met.tasks.WithLabelValues("done").Inc()
		}
	case errors.Is(err, errShutdown), errors.Is(err, blobstore.ErrUnavailable):
		// Shutting down, or the file store is down: another instance, or
		// this one once the store answers, resumes from the segments kept.
		if _, rerr := s.store.Release(ctx, t.ID, owner); rerr != nil {
			s.log.Warn("tts: release task", "task", t.ID, "err", rerr)
		}
	case errors.Is(err, errCancelled), errors.Is(err, errLost):
		// The row already says why (cancelled, or another owner has it,
		// in which case its segments are kept for that owner).
		s.discardWork(t.Key)
	default:
		msg := "synthesis failed: " + err.Error()
		if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal {
			msg = "synthesis failed: " + e.Error()
		}
		if ok, ferr := s.store.Fail(ctx, t.ID, owner, msg); ferr != nil {
			s.log.Error("tts: record failed task", "task", t.ID, "err", ferr)
		} else if ok {
			s.met.tasks.WithLabelValues("failed").Inc()
			s.log.Warn("tts: task failed", "task", t.ID, "err", err)
		}
		s.discardWork(t.Key)
	}
	s.notify(t.ID)
}

// renew returns the heartbeat of task id: each beat extends the lease; it
// cancels the task and stops beating when the row is no longer ours
// (cancelled on any instance, or taken over) or when the lease could not be
// renewed before it expired.
func (s *Service) renew(ctx context.Context, id string, cancel context.CancelCauseFunc) func() bool {
	renewed := now() // only beats touch it, and beats never overlap
	return func() bool {
		if ctx.Err() != nil {
			return false
		}
		at := now()
		ok, err := s.store.Heartbeat(ctx, id, s.cfg.InstanceID, at.Add(s.cfg.Lease))
		switch {
		case err == nil && ok:
			renewed = at
		case err == nil && !ok:
			cancel(errLost)
			return false
		case at.Sub(renewed) >= s.cfg.Lease:
			cancel(errLost) // another instance may have claimed it by now
			return false
		}
		return true
	}
}

// execute produces t's audio: from an existing file, or through the
// single-flight shared with identical tasks on every instance. Meanwhile it
// copies the progress of whoever synthesises into t's row.
func (s *Service) execute(ctx context.Context, t *Task) (audioMeta, error) {
	if m, ok := s.cached(ctx, t.Key, t.Params.Encoding); ok {
		s.met.cacheHit.Inc()
		return m, nil
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go s.followProgress(pctx, t)
	for {
		res, err := s.flights.Do(ctx, Stage, Stage+"|"+t.Key, func(fctx context.Context) ([]byte, error) {
			m, err := s.synthesizeAll(fctx, t)
			if err != nil {
				return nil, err
			}
			return json.Marshal(m)
		})
		switch {
		case err == nil:
			var m audioMeta
			if jerr := json.Unmarshal(res.Value, &m); jerr != nil {
				return audioMeta{}, apperr.Internal(fmt.Errorf("tts: flight result: %w", jerr))
			}
			if _, serr := s.cfg.Files.Stat(ctx, audioKey(t.Key, t.Params.Encoding)); serr == nil {
				return m, nil
			} else if !errors.Is(serr, blobstore.ErrNotFound) {
				return audioMeta{}, serr
			}
			// The shared file was deleted since (its last task was deleted):
			// make it again without replaying the flight.
			return s.synthesizeAll(ctx, t)
		case ctx.Err() != nil:
			return audioMeta{}, ctx.Err()
		case errors.Is(err, singleflight.ErrInProgress):
			continue // still running elsewhere: keep following
		}
		return audioMeta{}, flightError(err)
	}
}

// followProgress raises t's segments_done to the number of finished segment
// blobs of its key (written by whichever task leads the flight) until ctx
// is done.
func (s *Service) followProgress(ctx context.Context, t *Task) {
	tick := time.NewTicker(s.cfg.ProgressInterval)
	defer tick.Stop()
	last := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n, err := s.cfg.Files.Count(ctx, workPrefix(t.Key))
		if err != nil || n <= last {
			continue
		}
		if _, err := s.store.Progress(ctx, t.ID, min(n, t.SegmentsTotal)); err == nil {
			last = n
			s.notify(t.ID)
		}
	}
}

// cached returns the metadata of an existing audio file of key.
func (s *Service) cached(ctx context.Context, key, enc string) (audioMeta, bool) {
	b, err := s.cfg.Files.ReadAll(ctx, metaKey(key, enc))
	if err != nil {
		return audioMeta{}, false
	}
	var m audioMeta
	if json.Unmarshal(b, &m) != nil {
		return audioMeta{}, false
	}
	if st, err := s.cfg.Files.Stat(ctx, audioKey(key, enc)); err != nil || st.Size != m.Bytes {
		return audioMeta{}, false
	}
	return m, true
}

// synthesizeAll synthesises t's segments (at most MaxConcurrency at once on
// this instance, skipping those already in the store from an interrupted
// run on any instance) and joins them into the audio blob of t's key. The
// segments are removed on success, and on failure once no task needs them.
func (s *Service) synthesizeAll(ctx context.Context, t *Task) (_ audioMeta, err error) {
	s.met.runs.Inc()
	s.mu.Lock()
	s.writing[t.Key]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.writing[t.Key]--; s.writing[t.Key] <= 0 {
			delete(s.writing, t.Key)
		}
		s.mu.Unlock()
		if err != nil {
			s.discardWork(t.Key)
		}
	}()
	if err := ctx.Err(); err != nil {
		return audioMeta{}, err // cancelled before it began: create nothing
	}
	segs := Segments(t.Text, s.cfg.SegmentMaxChars)
	done := map[string]bool{}
	if err := s.cfg.Files.List(ctx, workPrefix(t.Key), func(i blobstore.Info) error {
		done[i.Key] = true
		return nil
	}); err != nil {
		return audioMeta{}, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, seg := range segs {
		key := segKey(t.Key, i)
		if done[key] {
			continue // done by an earlier run
		}
		if err := s.sem.Acquire(gctx, 1); err != nil {
			break // gctx is done: a segment failed or the task was cancelled
		}
		g.Go(func() error {
			defer s.sem.Release(1)
			pcm, err := s.segment(gctx, seg, t.Params)
			if err != nil {
				return fmt.Errorf("segment %d of %d (%q) failed after %d attempts: %w",
					i+1, len(segs), preview(seg, 24), s.cfg.Retries+1, err)
			}
			return s.cfg.Files.PutBytes(gctx, key, audio.PCMBytes(pcm), "application/octet-stream")
		})
	}
	if err := g.Wait(); err != nil {
		return audioMeta{}, err
	}
	if err := ctx.Err(); err != nil {
		return audioMeta{}, err
	}
	m, err := s.join(ctx, len(segs), t.Key, t.Params)
	if err != nil {
		return audioMeta{}, err
	}
	if err := s.cfg.Files.DeletePrefix(context.WithoutCancel(ctx), workPrefix(t.Key)); err != nil {
		s.log.Warn("tts: remove segments (the orphan sweep retries)", "key", t.Key, "err", err)
	}
	return m, nil
}

// segment synthesises one segment as 16-bit mono PCM at p.SampleRate,
// retrying failures that are not the request's fault.
func (s *Service) segment(ctx context.Context, text string, p Params) ([]int16, error) {
	policy := retrypolicy.NewBuilder[[]int16]().
		HandleIf(func(_ []int16, err error) bool {
			return err != nil && !apperr.Is(err, apperr.KindInvalid) && !errors.Is(err, context.Canceled)
		}).
		WithMaxRetries(s.cfg.Retries).
		WithDelay(s.cfg.RetryDelay).
		ReturnLastFailure().
		Build()
	return failsafe.With[[]int16](policy).WithContext(ctx).Get(func() ([]int16, error) {
		actx, cancel := context.WithTimeout(ctx, s.cfg.SegmentTimeout)
		defer cancel()
		b, err := s.synth.Synthesize(actx, text, p)
		if err == nil {
			var w audio.WAV
			if w, err = audio.ParseWAV(b); err == nil {
				s.met.segments.WithLabelValues("ok").Inc()
				return w.Mono16(p.SampleRate), nil
			}
			err = fmt.Errorf("the provider returned an unusable WAV: %w", err)
		}
		s.met.segments.WithLabelValues("error").Inc()
		return nil, err
	})
}

// join streams the n segments of key from the store, in order and
// separated by Pause of silence, as one WAV (through lame into MP3 when
// asked) into the audio blob of key, then writes its metadata next to it.
// Nothing is buffered whole: a segment at a time is in memory.
func (s *Service) join(ctx context.Context, n int, key string, p Params) (audioMeta, error) {
	sizes := map[string]int64{}
	if err := s.cfg.Files.List(ctx, workPrefix(key), func(i blobstore.Info) error {
		sizes[i.Key] = i.Size
		return nil
	}); err != nil {
		return audioMeta{}, err
	}
	var data int64
	for i := range n {
		size, ok := sizes[segKey(key, i)]
		if !ok {
			return audioMeta{}, apperr.Internal(fmt.Errorf("segment %d missing", i+1))
		}
		data += size
	}
	pause := make([]byte, 2*int(int64(p.SampleRate)*s.cfg.Pause.Milliseconds()/1000))
	data += int64(n-1) * int64(len(pause))
	if data > audio.MaxWAVData {
		return audioMeta{}, apperr.Invalid("the audio would be longer than a WAV file can hold; send a shorter text")
	}
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wavR, wavW := io.Pipe()
	defer wavR.Close() // unblocks the writer when lame or the upload stopped reading
	go func() {
		wavW.CloseWithError(func() error {
			if _, err := wavW.Write(audio.WAVHeader(data, p.SampleRate)); err != nil {
				return err
			}
			for i := range n {
				b, err := s.cfg.Files.ReadAll(jctx, segKey(key, i))
				if err != nil {
					return err
				}
				if i > 0 {
					if _, err := wavW.Write(pause); err != nil {
						return err
					}
				}
				if _, err := wavW.Write(b); err != nil {
					return err
				}
			}
			return nil
		}())
	}()
	src := io.Reader(wavR)
	var lame *exec.Cmd
	var lameErr strings.Builder
	if p.Encoding == EncodingMP3 {
		lame = exec.CommandContext(jctx, s.cfg.Lame, "--quiet", "-", "-")
		lame.Stdin, lame.Stderr = wavR, &lameErr
		out, err := lame.StdoutPipe()
		if err != nil {
			return audioMeta{}, apperr.Internal(err)
		}
		if err := lame.Start(); err != nil {
			return audioMeta{}, fmt.Errorf("lame: %w", err)
		}
		src = out
	}
	counted := &countingReader{r: src}
	final := audioKey(key, p.Encoding)
	perr := s.cfg.Files.Put(jctx, final, counted, contentType(p.Encoding))
	if perr != nil {
		cancel() // stops the reader goroutine and lame
		wavR.CloseWithError(perr)
	}
	if lame != nil {
		if err := lame.Wait(); err != nil && perr == nil {
			_ = s.cfg.Files.Delete(context.WithoutCancel(ctx), final)
			return audioMeta{}, fmt.Errorf("lame: %w: %s", err, strings.TrimSpace(lameErr.String()))
		}
	}
	if perr != nil {
		return audioMeta{}, perr
	}
	samples := data / 2
	m := audioMeta{DurationMs: samples * 1000 / int64(p.SampleRate), Bytes: counted.n, Samples: samples,
		SampleRate: p.SampleRate, Segments: n}
	mb, _ := json.Marshal(m)
	if err := s.cfg.Files.PutBytes(ctx, metaKey(key, p.Encoding), mb, "application/json"); err != nil {
		return audioMeta{}, err
	}
	return m, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
