// Package sse writes server-sent events (text/event-stream): the one
// writer behind the chat answer streams and the TTS progress streams.
package sse

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Writer writes events to one response. It is not safe for concurrent use:
// one goroutine owns the stream.
type Writer struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// Start opens an event stream on w: the headers (no caching, no proxy
// buffering), status 200, flushed at once so the client sees the stream
// open before the first event. The request has been read by then, so the
// server's read deadline is lifted: net/http would otherwise cancel the
// stream's context when it passes. The stream keeps its own deadline (the
// caller's context: chat.stream-timeout, shutdown).
func Start(w http.ResponseWriter) (*Writer, error) {
	// An error means w cannot set deadlines (a test recorder): none to lift.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &Writer{w: w, rc: http.NewResponseController(w)}
	if err := s.rc.Flush(); err != nil {
		return nil, fmt.Errorf("sse: flush: %w", err)
	}
	return s, nil
}

// Send writes one event and flushes it: `event: <event>` (omitted when
// event is "", a plain message) and `data: <v as JSON>`. An error means
// the event did not reach the client, which has most likely gone.
func (s *Writer) Send(event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sse: encode %s event: %w", event, err)
	}
	if event != "" {
		if _, err := fmt.Fprintf(s.w, "event: %s\n", event); err != nil {
			return fmt.Errorf("sse: write: %w", err)
		}
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return fmt.Errorf("sse: write: %w", err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("sse: flush: %w", err)
	}
	return nil
}
