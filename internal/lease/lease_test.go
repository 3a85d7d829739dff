package lease

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestBeatsUntilStop: beats come at the interval, and none after Stop.
func TestBeatsUntilStop(t *testing.T) {
	var n atomic.Int32
	beats := make(chan struct{}, 100)
	h := Start(time.Millisecond, func() bool {
		n.Add(1)
		beats <- struct{}{}
		return true
	})
	for range 3 {
		select {
		case <-beats:
		case <-time.After(5 * time.Second):
			t.Fatal("no beat within 5 s")
		}
	}
	h.Stop()
	got := n.Load()
	time.Sleep(20 * time.Millisecond) // twenty intervals: any beat would show
	if after := n.Load(); after != got {
		t.Errorf("%d beats after Stop", after-got)
	}
	h.Stop() // a second Stop is harmless
}

// TestLostLeaseStopsBeats: a beat returning false is the last one.
func TestLostLeaseStopsBeats(t *testing.T) {
	var n atomic.Int32
	lost := make(chan struct{})
	h := Start(time.Millisecond, func() bool {
		if n.Add(1) == 2 {
			close(lost)
			return false
		}
		return true
	})
	defer h.Stop()
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("lease never lost")
	}
	time.Sleep(20 * time.Millisecond)
	if got := n.Load(); got != 2 {
		t.Errorf("%d beats, want 2 (none after the lost lease)", got)
	}
}

// TestStopWaitsForBeat: Stop returns only after a beat in progress ended.
func TestStopWaitsForBeat(t *testing.T) {
	inBeat, release := make(chan struct{}), make(chan struct{})
	var done atomic.Bool
	h := Start(time.Millisecond, func() bool {
		close(inBeat)
		<-release
		done.Store(true)
		return false
	})
	<-inBeat
	stopped := make(chan struct{})
	go func() { h.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a beat was running")
	case <-time.After(10 * time.Millisecond):
	}
	close(release)
	<-stopped
	if !done.Load() {
		t.Error("Stop returned before the beat finished")
	}
}

// TestStopBeforeFirstBeat: stopping early means no beat at all.
func TestStopBeforeFirstBeat(t *testing.T) {
	var n atomic.Int32
	h := Start(time.Hour, func() bool { n.Add(1); return true })
	h.Stop()
	if n.Load() != 0 {
		t.Error("beat after an early Stop")
	}
}
