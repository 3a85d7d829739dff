package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// report is what a run measured.
type report struct {
	Candidates, Finished int
	Elapsed              string
	Requests             int            // HTTP requests sent, retries included
	ByStatus             map[string]int // HTTP status (or "transport") → requests
	CopiesSent           int            // copies of answers and uploads (retries excluded)
	Business             struct {
		Uploads, Answers, Total int // distinct business requests
	}
	DuplicatesAvoided int // copies that cost no model call
	ModelCalls        map[string]int
	ModelCallsTotal   int
	DistinctFlights   map[string]int // distinct prompt identities per stage
	ExpectedCalls     int            // one per distinct flight
	Extra             []extraCall
	Takeovers         int // extras after an owner died (or could not store its completion)
	RedisFallbacks    int // extras while Redis was restarting or failing: hybrid mode's in-process fallback
	Unexplained       int
	Lost              []string
	LostUploads       []string // uploads answered 200 whose questions were never stored
	Mismatched        int
	Failures          []string
	LatencyMs         map[string][2]float64 // kind → p50, p99
	Chaos             []chaosEvent
	// Singleflight sums the instances' counters (all restarts included):
	// outcomes (owner_new, takeover, follower, replay_*, local_*),
	// model_calls_total and redis_errors_total.
	Singleflight map[string]int
	Notes        []string
	OK           bool
}

// extraCall is a model call beyond the first of its flight, with the reason.
type extraCall struct {
	Stage, Instance, Reason string
	At                      string
}

func buildReport(o options, cands []*candidate, st *stats, calls []modelCall, events []chaosEvent, elapsed time.Duration) report {
	r := report{Candidates: len(cands), Elapsed: elapsed.Round(time.Millisecond).String(), ModelCalls: map[string]int{},
		DistinctFlights: map[string]int{}, LatencyMs: map[string][2]float64{}, Chaos: events}
	st.mu.Lock()
	r.Requests, r.ByStatus, r.Notes = st.requests, maps.Clone(st.byStatus), slices.Clone(st.notes)
	for kind, v := range st.latencies {
		r.LatencyMs[kind] = [2]float64{percentile(v, 0.50), percentile(v, 0.99)}
	}
	var all []float64
	for _, v := range st.latencies {
		all = append(all, v...)
	}
	r.LatencyMs["all"] = [2]float64{percentile(all, 0.50), percentile(all, 0.99)}
	st.mu.Unlock()

	answerIDs := map[string]bool{}
	for _, cd := range cands {
		cd.mu.Lock()
		r.CopiesSent += cd.copiesOut
		r.Business.Uploads += cd.uploads
		for no, text := range cd.sent {
			answerIDs[cd.sid+"|"+no+"|"+text] = true
		}
		if cd.report != nil {
			r.Finished++
		}
		if cd.lostUp {
			r.LostUploads = append(r.LostUploads, cd.name)
		}
		for _, no := range cd.lost {
			r.Lost = append(r.Lost, cd.name+" q"+no)
		}
		r.Mismatched += cd.mismatch
		r.Failures = append(r.Failures, cd.failures...)
		cd.mu.Unlock()
	}
	r.Business.Answers = len(answerIDs)
	r.Business.Total = r.Business.Uploads + r.Business.Answers

	// Group the model calls by flight (stage + prompt), in start order.
	slices.SortFunc(calls, func(a, b modelCall) int { return a.Start.Compare(b.Start) })
	byFlight := map[string][]modelCall{}
	for _, c := range calls {
		r.ModelCalls[c.Stage]++
		r.ModelCallsTotal++
		if len(byFlight[c.Identity]) == 0 {
			r.DistinctFlights[c.Stage]++
			r.ExpectedCalls++
		}
		byFlight[c.Identity] = append(byFlight[c.Identity], c)
	}
	for _, fl := range byFlight {
		for i, c := range fl[1:] {
			reason := explain(fl[:i+1], c, events)
			switch {
			case strings.HasPrefix(reason, "takeover"):
				r.Takeovers++
			case strings.HasPrefix(reason, "redis"):
				r.RedisFallbacks++
			default:
				r.Unexplained++
			}
			r.Extra = append(r.Extra, extraCall{Stage: c.Stage, Instance: c.Instance, Reason: reason, At: c.Start.UTC().Format("15:04:05.000")})
		}
	}
	slices.SortFunc(r.Extra, func(a, b extraCall) int { return strings.Compare(a.At, b.At) })
	// Without single-flight every answer copy would be evaluated and every
	// upload copy would run profile + extraction.
	r.DuplicatesAvoided = r.CopiesSent - r.Business.Total

	// The promises: every candidate finished, nothing lost, identical
	// responses to copies, one evaluation per distinct answer and one
	// profile + extraction per upload, and no extra call but takeovers.
	r.OK = r.Finished == r.Candidates && len(r.Lost) == 0 && len(r.LostUploads) == 0 && r.Mismatched == 0 && r.Unexplained == 0 && r.RedisFallbacks == 0 &&
		r.DistinctFlights[interview.StageEvaluation] == r.Business.Answers &&
		r.DistinctFlights[interview.StageProfile] == r.Business.Uploads &&
		r.DistinctFlights[interview.StageExtraction] == r.Business.Uploads
	return r
}

// explain says why call c repeated a flight whose earlier calls are prev,
// from the call before it and the faults injected.
func explain(prev []modelCall, c modelCall, events []chaosEvent) string {
	last := prev[len(prev)-1]
	for _, e := range events {
		switch {
		case e.Action == "kill-app" && last.Instance == "app"+e.Arg && last.Gone && absDur(last.End.Sub(e.At)) < 2*time.Second:
			// The owner died mid-call; after takeover-detect another
			// instance's follower took the flight over.
			return fmt.Sprintf("takeover: owner %s was killed %s into the call; %s took over %s after the kill",
				last.Instance, e.At.Sub(last.Start).Round(time.Millisecond), c.Instance, c.Start.Sub(e.At).Round(time.Millisecond))
		case e.Action == "restart-redis" && !last.Gone && last.End.After(e.At.Add(-2*time.Second)) && last.End.Before(e.At.Add(10*time.Second)) &&
			c.Start.Sub(last.End) > 5*time.Second:
			// The owner finished while Redis was down: its completion was
			// not stored, so the flight looked abandoned and was taken over.
			return fmt.Sprintf("takeover: owner %s finished %s after the Redis restart began and could not store its completion; %s took over %s later",
				last.Instance, last.End.Sub(e.At).Round(time.Millisecond), c.Instance, c.Start.Sub(last.End).Round(time.Millisecond))
		}
	}
	for _, e := range events {
		// Hybrid mode: while Redis restarts (and for the 5 s backoff after
		// an instance saw it fail) instances dedup in-process only.
		if e.Action == "restart-redis" && c.Start.After(e.At.Add(-2*time.Second)) && c.Start.Before(e.At.Add(10*time.Second)) {
			return fmt.Sprintf("redis restart: started %s from the end of SHUTDOWN, while the instances could not use Redis (hybrid: in-process dedup only)",
				c.Start.Sub(e.At).Round(time.Millisecond))
		}
	}
	for _, e := range events {
		// The instance's own Redis error counter rose (seen by a scrape up
		// to 1 s late) less than redis-backoff (5 s) before this call:
		// hybrid mode was deduplicating in-process only.
		if e.Action == "redis-error" && c.Instance == "app"+e.Arg && c.Start.After(e.At.Add(-1500*time.Millisecond)) && c.Start.Before(e.At.Add(5500*time.Millisecond)) {
			return fmt.Sprintf("redis error on %s (a Redis command failed or exceeded redis-timeout; hybrid: in-process dedup only for redis-backoff)", c.Instance)
		}
	}
	return fmt.Sprintf("unexplained (earlier calls by %v, the last one ended %s before, gone=%v)",
		instances(prev), c.Start.Sub(last.End).Round(time.Millisecond), last.Gone)
}

func instances(cs []modelCall) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Instance)
	}
	return out
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func (r report) print(w io.Writer) {
	fmt.Fprintf(w, "\n== loadgen: %d candidates, %d finished, %s\n", r.Candidates, r.Finished, r.Elapsed)
	fmt.Fprintf(w, "HTTP requests          %d (retries included)\n", r.Requests)
	keys := slices.Sorted(maps.Keys(r.ByStatus))
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, r.ByStatus[k]))
	}
	fmt.Fprintf(w, "by status              %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "copies sent            %d (answers and uploads, retries excluded)\n", r.CopiesSent)
	fmt.Fprintf(w, "distinct business reqs %d (%d uploads + %d answers)\n", r.Business.Total, r.Business.Uploads, r.Business.Answers)
	fmt.Fprintf(w, "duplicates avoided     %d\n", r.DuplicatesAvoided)
	stages := slices.Sorted(maps.Keys(r.ModelCalls))
	fmt.Fprintf(w, "model calls            %d = %d distinct flights + %d extra (%d takeovers, %d hybrid fallbacks while Redis failed, %d unexplained)\n",
		r.ModelCallsTotal, r.ExpectedCalls, len(r.Extra), r.Takeovers, r.RedisFallbacks, r.Unexplained)
	for _, s := range stages {
		fmt.Fprintf(w, "  %-26s calls %4d  distinct %4d\n", s, r.ModelCalls[s], r.DistinctFlights[s])
	}
	for _, e := range r.Extra {
		fmt.Fprintf(w, "  extra %s %s by %s: %s\n", e.At, e.Stage, e.Instance, e.Reason)
	}
	for _, kind := range slices.Sorted(maps.Keys(r.LatencyMs)) {
		fmt.Fprintf(w, "latency %-14s p50 %7.1f ms  p99 %7.1f ms\n", kind, r.LatencyMs[kind][0], r.LatencyMs[kind][1])
	}
	for _, e := range r.Chaos {
		label := "chaos"
		if e.Action == "redis-error" {
			label, e.Action, e.Arg = "seen", "redis errors on app"+e.Arg, "(counter rose by this scrape)"
		}
		fmt.Fprintf(w, "%s %s %s at %s %s\n", label, e.Action, e.Arg, e.At.UTC().Format("15:04:05.000"), e.Err)
	}
	if len(r.Singleflight) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(r.Singleflight)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Singleflight[k]))
		}
		fmt.Fprintf(w, "instances' single-flight counters: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "lost answers           %d %v\n", len(r.Lost), r.Lost)
	fmt.Fprintf(w, "lost uploads           %d %v (200 to the client, questions never stored)\n", len(r.LostUploads), r.LostUploads)
	fmt.Fprintf(w, "differing copies       %d\n", r.Mismatched)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "failure: %s\n", f)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintf(w, "notes (%d):\n", len(r.Notes))
		for _, n := range r.Notes[:min(len(r.Notes), 30)] {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	verdict := "OK: model calls = distinct flights + takeovers; every candidate finished; nothing lost"
	if !r.OK {
		verdict = "FAILED: see failures, lost answers, differing copies and the extras that are not takeovers"
	}
	fmt.Fprintln(w, verdict)
}
