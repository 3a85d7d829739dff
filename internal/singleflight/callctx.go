package singleflight

import (
	"context"
	"slices"
	"time"
)

// A call is also its flight's context, the one fn and the Redis protocol
// run on: it has no deadline, it carries the first caller's values but not
// its cancellation (the first caller may leave without failing the
// others), and it is cancelled when every caller has gone or the Group is
// closed. Being its own context saves the flight a context.WithCancel and
// its registration with a parent, which cost about as much as the rest of
// an in-process flight; its Done channel is made only when asked for.
//
// AfterFunc lets contexts derived from it (context.WithTimeout around a
// Redis command) register without a goroutine.

// Deadline reports no deadline.
func (c *call) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done returns a channel closed when the flight is cancelled.
func (c *call) Done() <-chan struct{} {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.cdone == nil {
		c.cdone = make(chan struct{})
		if c.cerr != nil {
			close(c.cdone)
		}
	}
	return c.cdone
}

// Err returns context.Canceled once the flight is cancelled.
func (c *call) Err() error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	return c.cerr
}

// Value returns the Group base context's value for key, else the first
// caller's. The base answers only the context package's own lookup, which
// then finds no cancelable parent whose Done is this one's (so derived
// contexts register through AfterFunc) and takes the cause from Err.
func (c *call) Value(key any) any {
	if v := c.base.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}

// afterFunc is one function registered by AfterFunc.
type afterFunc struct{ f func() }

// AfterFunc arranges to call f in its own goroutine once the flight is
// cancelled (at once if it is already); stop deregisters it and reports
// whether that kept f from being called.
func (c *call) AfterFunc(f func()) (stop func() bool) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.cerr != nil {
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	// A flight has a few derived contexts at a time (a Redis command's
	// timeout, fn's): a slice is cheaper than a map.
	c.afters = append(c.afters, a)
	return func() bool {
		c.cmu.Lock()
		defer c.cmu.Unlock()
		for i, x := range c.afters {
			if x == a {
				c.afters = slices.Delete(c.afters, i, i+1)
				return true
			}
		}
		return false
	}
}

// cancel cancels the flight; later calls do nothing.
func (c *call) cancel() {
	c.cmu.Lock()
	if c.cerr != nil {
		c.cmu.Unlock()
		return
	}
	c.cerr = context.Canceled
	if c.cdone != nil {
		close(c.cdone)
	}
	afters := c.afters
	c.afters = nil
	c.cmu.Unlock()
	for _, a := range afters {
		go a.f()
	}
}
