package main

// -bench-stale: the window the current question's copies leave. A copy on
// one instance is dropped by the message another instance publishes when
// it changes the session (redisx.Invalidations): between that instance's
// answer and the message's handling, the copy may still be shown.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// staleProbe answers n questions, each on one instance, after reading the
// current question on the next instance (which then holds a copy), and
// reads it there again as soon as the answer's response has arrived. A
// read that still shows the answered question is stale; that instance is
// then read again until it shows the new one, and the time from the
// answer's response to that read is the stale window seen (an upper bound:
// it includes the reads' own round trips). Sequential, one client.
func (e *benchEnv) staleProbe(ctx context.Context, w io.Writer, n int) error {
	if len(e.urls) < 2 {
		return errors.New("-bench-stale needs two instances or more (-n 2)")
	}
	var sid, no string
	var windows []time.Duration
	started := time.Now()
	for i := range n {
		a, b := e.urls[i%len(e.urls)], e.urls[(i+1)%len(e.urls)]
		if no == "" {
			var err error
			if sid, no, err = e.readySession(ctx, e.user, a); err != nil {
				return err
			}
		}
		path := api + "/interview/sessions/" + sid
		current := func() (interview.AnswerResp, error) {
			var v interview.AnswerResp
			r := e.user.send(ctx, "bench", "GET", b+path+"/current-question", nil, "")
			if err := ok(r); err != nil {
				return v, fmt.Errorf("current question on %s: %w", b, err)
			}
			return v, json.Unmarshal(r.env.Data, &v)
		}
		if v, err := current(); err != nil {
			return err
		} else if v.QuestionNumber != no {
			return fmt.Errorf("answer %d: %s shows question %s before the answer, want %s", i, b, v.QuestionNumber, no)
		}
		body, _ := json.Marshal(map[string]string{"questionNumber": no,
			"answerContent": fmt.Sprintf("Stale probe answer %d: I measured the service and fixed its slowest query.", i)})
		r := e.user.send(ctx, "bench", "POST", a+path+"/interview/answer-json", body, "application/json")
		answered := time.Now()
		if err := ok(r); err != nil {
			return fmt.Errorf("answer %d on %s: %w", i, a, err)
		}
		var resp interview.AnswerResp
		_ = json.Unmarshal(r.env.Data, &resp)
		next := resp.NextQuestionNumber
		if resp.Finished {
			next = ""
		}
		shows := func(v interview.AnswerResp) bool {
			if next == "" {
				return v.Finished
			}
			return v.QuestionNumber == next
		}
		for stale := false; ; stale = true {
			v, err := current()
			if err != nil {
				return err
			}
			if shows(v) {
				if stale {
					windows = append(windows, time.Since(answered))
				}
				break
			}
			if time.Since(answered) > 5*time.Second {
				return fmt.Errorf("answer %d: %s still shows question %s 5 s after %s answered it", i, b, v.QuestionNumber, a)
			}
		}
		no = next
	}
	slices.Sort(windows)
	fmt.Fprintf(w, "\nstale reads of the current question on another instance right after an answer: %d of %d (%s)\n",
		len(windows), n, time.Since(started).Round(time.Millisecond))
	if len(windows) > 0 {
		fmt.Fprintf(w, "stale until (from the answer's response to the first fresh read, reads included): median %s, longest %s\n",
			windows[len(windows)/2].Round(time.Microsecond), windows[len(windows)-1].Round(time.Microsecond))
	}
	return nil
}
