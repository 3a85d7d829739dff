// Package lease keeps a lease alive while work runs: a Heartbeat calls a
// renew function at a fixed interval until it is stopped or the renewal
// says the lease is gone. The single-flight (a Redis lease per flight) and
// the TTS worker (a database lease per task) both use it. It imports the
// standard library only.
package lease

import (
	"sync"
	"time"
)

// Heartbeat calls beat every interval until Stop, or until beat returns
// false. It uses a timer rather than a goroutine, so a short piece of work
// costs no goroutine, and beats never overlap: the next interval starts
// when a beat returns.
type Heartbeat struct {
	mu      sync.Mutex // protects t and stopped
	t       *time.Timer
	stopped bool
	wg      sync.WaitGroup // a beat in progress
}

// Start returns a running Heartbeat whose first beat comes after interval.
// beat returns false when the lease is lost (or renewing is pointless); no
// further beat is made then.
func Start(interval time.Duration, beat func() bool) *Heartbeat {
	h := &Heartbeat{}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.t = time.AfterFunc(interval, func() {
		h.mu.Lock()
		if h.stopped {
			h.mu.Unlock()
			return
		}
		h.wg.Add(1)
		h.mu.Unlock()
		defer h.wg.Done()
		if !beat() {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.stopped {
			h.t.Reset(interval)
		}
	})
	return h
}

// Stop stops the beats and waits for one in progress; after Stop returns,
// beat is not running and will not be called again. Stop may be called
// more than once.
func (h *Heartbeat) Stop() {
	h.mu.Lock()
	h.stopped = true
	h.t.Stop()
	h.mu.Unlock()
	h.wg.Wait()
}
