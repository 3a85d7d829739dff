package main

// -bench: the throughput table of docs/performance.md. One server (by
// default) over its own MariaDB and Redis (scripts/cluster.sh), an instant
// fake model, closed-loop clients at several concurrencies; every figure is
// also given as a ratio to GET /healthz measured in the same run, and the
// run is repeated so that the table shows ranges.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

type benchOptions struct {
	runs     int
	duration time.Duration
	conc     []int
	sessions int             // ready sessions prepared per concurrency for distinct answers
	only     map[string]bool // -bench-only: the rows measured (nil: all)
	pprofDir string          // -bench-pprof: CPU profiles of the server per fixed cell
	cpu      bool            // -bench-cpu: CPU time per request per process
	stale    int             // -bench-stale: answers of the stale probe instead of the table
}

// benchRowNames name the rows for -bench-only, in table order.
var benchRowNames = []string{"healthz", "me", "current", "distinct", "replay"}

// benchPprofAddr is where the benched instance serves its profiler with
// -bench-pprof (server.pprof-addr).
const benchPprofAddr = "127.0.0.1:18281"

// measures says whether row name is measured.
func (bo benchOptions) measures(name string) bool { return bo.only == nil || bo.only[name] }

// benchRow is one endpoint's measurements: req/s per concurrency per run.
type benchRow struct {
	name   string
	key    string // its -bench-only name
	rates  map[int][]float64
	errors map[int]int // non-2xx answers (a 503 is a deadlock that reached a user)
}

func newRow(name string) *benchRow {
	return &benchRow{name: name, rates: map[int][]float64{}, errors: map[int]int{}}
}

// benchEnv is what the measured requests need: a logged-in user with a
// session at a question, an answered body to replay, and users whose
// fresh sessions take distinct answers.
type benchEnv struct {
	url  string   // the instance of the fixed requests
	urls []string // every instance: distinct answers are spread over them

	hc     *http.Client
	st     *stats
	user   *client
	sid    string
	replay []byte // an answer already scored: sending it again replays
	pool   []*client
}

func runBench(ctx context.Context, o options, bo benchOptions, urls []string) error {
	url := urls[0]
	hc := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}}
	e := &benchEnv{url: url, urls: urls, hc: hc, st: newStats()}
	if bo.stale > 0 {
		if err := e.setup(ctx, 1, 0); err != nil {
			return err
		}
		return e.staleProbe(ctx, os.Stdout, bo.stale)
	}
	sessions := bo.sessions
	if !bo.measures("distinct") {
		sessions = 0 // no pool users to register
	}
	if err := e.setup(ctx, slices.Max(bo.conc), sessions); err != nil {
		return err
	}
	rows := []*benchRow{newRow("GET /healthz"), newRow("GET /users/me"), newRow("GET current-question"),
		newRow("POST answer-json, distinct answers"), newRow("POST answer-json, identical replay")}
	for i, r := range rows {
		r.key = benchRowNames[i]
	}
	var redisRates []float64
	for run := range bo.runs {
		fmt.Fprintf(os.Stderr, "bench: run %d of %d\n", run+1, bo.runs)
		if v, err := redisBenchmark(ctx, o); err == nil {
			redisRates = append(redisRates, v)
		} else {
			fmt.Fprintln(os.Stderr, "bench: redis-benchmark:", err)
		}
		for _, c := range bo.conc {
			base := e.url
			sessPath := base + api + "/interview/sessions/" + e.sid
			fixed := []struct {
				row    *benchRow
				method string
				url    string
				body   []byte
				cl     *client
			}{
				{rows[0], "GET", base + "/healthz", nil, &client{hc: hc, st: e.st}},
				{rows[1], "GET", base + api + "/users/me", nil, e.user},
				{rows[2], "GET", sessPath + "/current-question", nil, e.user},
				{rows[4], "POST", sessPath + "/interview/answer-json", e.replay, e.user},
			}
			for _, f := range fixed {
				if !bo.measures(f.row.key) {
					continue
				}
				var prof chan error
				if bo.pprofDir != "" {
					prof = make(chan error, 1)
					go func() { prof <- fetchProfile(ctx, hc, bo, f.row.key, c, run) }()
				}
				before := readCPU()
				var q0 int64
				if bo.cpu {
					q0, _, _ = dbCounters(ctx)
				}
				var n int64
				rate, errs := closedLoop(ctx, c, bo.duration, func(ctx context.Context) bool {
					return f.cl.fire(ctx, f.method, f.url, f.body)
				}, &n)
				if bo.cpu {
					after := readCPU()
					q1, _, _ := dbCounters(ctx)
					printCPU(os.Stderr, f.row.key, c, n, before, after, q1-q0-1)
				}
				if prof != nil {
					if err := <-prof; err != nil {
						fmt.Fprintln(os.Stderr, "bench: profile:", err)
					}
				}
				f.row.rates[c] = append(f.row.rates[c], rate)
				f.row.errors[c] += errs
			}
			if !bo.measures("distinct") {
				continue
			}
			rate, errs, err := e.distinct(ctx, c, bo, hc, run)
			if err != nil {
				return err
			}
			rows[3].rates[c] = append(rows[3].rates[c], rate)
			rows[3].errors[c] += errs
		}
	}
	var measured []*benchRow
	for _, r := range rows {
		if bo.measures(r.key) {
			measured = append(measured, r)
		}
	}
	printBench(os.Stdout, bo, measured, redisRates)
	return nil
}

// setup registers the users: one for the fixed requests and pool users
// whose sessions take distinct answers.
func (e *benchEnv) setup(ctx context.Context, maxConc, sessions int) error {
	run := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	mk := func(name string) (*client, error) {
		c := &client{hc: e.hc, st: e.st}
		cred := map[string]string{"username": name, "password": "password-" + name}
		tg := target{lb: e.url}
		if r := c.json(ctx, "setup", tg, -1, "POST", api+"/users/register", cred); r.err != nil || r.status != 200 {
			return nil, fmt.Errorf("register %s: %v", name, okOr(r))
		}
		r := c.json(ctx, "setup", tg, -1, "POST", api+"/users/login", cred)
		if err := ok(r); err != nil {
			return nil, fmt.Errorf("login %s: %w", name, err)
		}
		var login struct{ Token string }
		_ = json.Unmarshal(r.env.Data, &login)
		c.token = login.Token
		return c, nil
	}
	var err error
	if e.user, err = mk("bench" + run); err != nil {
		return err
	}
	sid, no, err := e.readySession(ctx, e.user, e.url)
	if err != nil {
		return err
	}
	e.sid = sid
	e.replay, _ = json.Marshal(map[string]string{"questionNumber": no, "answerContent": "I built a Go service on MySQL and Redis and measured it."})
	r := e.user.send(ctx, "setup", "POST", e.url+api+"/interview/sessions/"+sid+"/interview/answer-json", e.replay, "application/json")
	if err := ok(r); err != nil {
		return fmt.Errorf("first answer: %w", err)
	}
	if sessions == 0 {
		return nil
	}
	e.pool = make([]*client, max(sessions, 2*maxConc))
	errs := make(chan error, len(e.pool))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range e.pool {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := mk(fmt.Sprintf("bench%sp%d", run, i))
			e.pool[i] = c
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

const benchResume = `Jane Doe - Backend Engineer, 6 years
Skills: Go, MySQL, Redis, Kafka, Kubernetes, Prometheus.
Built an order service at 2000 QPS and cut its p99 latency by 40% with a cache and query fixes.
Led the migration of a payment system to event sourcing; on call for a 30-service platform.
Mentored four engineers; wrote the team's incident review process.
`

// readySession creates a session for c, uploads a resume and returns the
// session with its current question.
func (e *benchEnv) readySession(ctx context.Context, c *client, url string) (sid, no string, err error) {
	tg := target{lb: url}
	r := c.json(ctx, "setup", tg, -1, "POST", api+"/interview/sessions", nil)
	if err := ok(r); err != nil {
		return "", "", fmt.Errorf("new session: %w", err)
	}
	var sess struct{ SessionID string }
	_ = json.Unmarshal(r.env.Data, &sess)
	base := api + "/interview/sessions/" + sess.SessionID
	body, ctype := multipartResume("resume.txt", []byte(benchResume))
	if r := c.do(ctx, "setup", tg, -1, "POST", base+"/interview-questions", body, ctype); ok(r) != nil {
		return "", "", fmt.Errorf("upload: %w", ok(r))
	}
	r = c.json(ctx, "setup", tg, -1, "GET", base+"/current-question", nil)
	if err := ok(r); err != nil {
		return "", "", fmt.Errorf("current question: %w", err)
	}
	var cur interview.AnswerResp
	_ = json.Unmarshal(r.env.Data, &cur)
	return sess.SessionID, cur.QuestionNumber, nil
}

// distinct measures distinct answers at concurrency c: sessions are
// prepared first (bo.sessions, over the pool users), then c workers answer
// their sessions' questions, taking the next session when one finishes.
func (e *benchEnv) distinct(ctx context.Context, c int, bo benchOptions, hc *http.Client, run int) (rate float64, errs int, err error) {
	type ready struct {
		cl           *client
		url, sid, no string
	}
	n := max(bo.sessions, 2*c)
	n = min(n, len(e.pool))
	sessions := make(chan ready, n)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	sem := make(chan struct{}, 16) // sessions are created 16 at a time
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			url := e.urls[i%len(e.urls)]
			sid, no, err := e.readySession(ctx, e.pool[i], url)
			if err != nil {
				firstErr.CompareAndSwap(nil, err)
				return
			}
			sessions <- ready{e.pool[i], url, sid, no}
		}()
	}
	wg.Wait()
	close(sessions)
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, 0, err
	}
	var prof chan error
	if bo.pprofDir != "" {
		prof = make(chan error, 1)
		go func() { prof <- fetchProfile(ctx, hc, bo, "distinct", c, run) }()
	}
	cpu0 := readCPU()
	q0, c0, n0 := dbCounters(ctx)
	var done, failed atomic.Int64
	deadline := time.Now().Add(bo.duration)
	start := time.Now()
	var end atomic.Int64
	var ww sync.WaitGroup
	seq := atomic.Int64{}
	for range c {
		ww.Add(1)
		go func() {
			defer ww.Done()
			for s := range sessions {
				no := s.no
				for no != "" && time.Now().Before(deadline) {
					body, _ := json.Marshal(map[string]string{"questionNumber": no,
						"answerContent": fmt.Sprintf("Distinct answer %d: I measured the service and fixed its slowest query.", seq.Add(1))})
					r := s.cl.send(ctx, "bench", "POST", s.url+api+"/interview/sessions/"+s.sid+"/interview/answer-json", body, "application/json")
					if r.err != nil || r.status != 200 {
						if failed.Add(1) <= 5 {
							fmt.Fprintf(os.Stderr, "bench: c=%d distinct answer failed: %v\n", c, okOr(r))
						}
						break
					}
					done.Add(1)
					var resp interview.AnswerResp
					_ = json.Unmarshal(r.env.Data, &resp)
					no = resp.NextQuestionNumber
					if resp.Finished {
						no = ""
					}
				}
				if !time.Now().Before(deadline) {
					break
				}
			}
			end.Store(max(end.Load(), time.Since(start).Nanoseconds()))
		}()
	}
	ww.Wait()
	q1, c1, n1 := dbCounters(ctx)
	if bo.cpu {
		printCPU(os.Stderr, "distinct", c, done.Load(), cpu0, readCPU(), q1-q0-1)
	}
	if prof != nil {
		if err := <-prof; err != nil {
			fmt.Fprintln(os.Stderr, "bench: profile:", err)
		}
	}
	if q0 > 0 && q1 > 0 && done.Load() > 0 {
		n := float64(done.Load())
		fmt.Fprintf(os.Stderr, "bench: c=%d distinct answers: %.1f statements and %.2f commits per answer, %d new connections "+
			"(MariaDB Questions, Com_commit, Connections)\n", c, float64(q1-q0-1)/n, float64(c1-c0)/n, n1-n0-1)
	}
	elapsed := time.Duration(end.Load())
	if time.Now().Before(deadline) {
		fmt.Fprintf(os.Stderr, "bench: c=%d ran out of prepared sessions after %s (raise -bench-sessions)\n", c, elapsed.Round(time.Millisecond))
	}
	return float64(done.Load()) / elapsed.Seconds(), int(failed.Load()), nil
}

// closedLoop runs c workers sending one request after another for d and
// returns successes per second and the failures.
// n (when not nil) receives the number of requests sent.
func closedLoop(ctx context.Context, c int, d time.Duration, do func(context.Context) bool, n *int64) (float64, int) {
	var okN, failN atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if do(ctx) {
					okN.Add(1)
				} else {
					failN.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n != nil {
		*n = okN.Load() + failN.Load()
	}
	return float64(okN.Load()) / time.Since(start).Seconds(), int(failN.Load())
}

// dbCounters reads the cluster database's statement, commit and connection
// counters (0 when the client is missing).
func dbCounters(ctx context.Context) (questions, commits, conns int64) {
	port := os.Getenv("DB_PORT")
	if port == "" {
		port = "3390"
	}
	out, err := exec.CommandContext(ctx, "mariadb", "--no-defaults", "-h127.0.0.1", "-P"+port, "-uroot", "-N", "-e",
		"SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_commit', 'Connections')").Output()
	if err != nil {
		return 0, 0, 0
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Questions":
			questions = v
		case "Com_commit":
			commits = v
		case "Connections":
			conns = v
		}
	}
	return questions, commits, conns
}

var redisRPS = regexp.MustCompile(`GET: ([0-9.]+) requests per second`)

// redisBenchmark runs redis-benchmark's GET against the cluster's Redis:
// the machine's speed in the same run, to compare runs taken elsewhere.
func redisBenchmark(ctx context.Context, o options) (float64, error) {
	port := os.Getenv("REDIS_PORT")
	if port == "" {
		port = "6390"
	}
	out, err := exec.CommandContext(ctx, "redis-benchmark", "-p", port, "-t", "get", "-n", "100000", "-c", "50", "-q").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, out)
	}
	m := redisRPS.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("unexpected output %q", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)/2]
}

// span formats the range of v.
func span(v []float64, format string) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format+"-"+format, lo, hi)
}

func printBench(w io.Writer, bo benchOptions, rows []*benchRow, redisRates []float64) {
	fmt.Fprintf(w, "\n%d runs of %s per cell; req/s as the median [range] of the runs; ratio: the endpoint's req/s ÷ GET /healthz's at the same concurrency in the same run, range over runs and concurrencies.\n\n", bo.runs, bo.duration)
	head := "| endpoint |"
	sep := "| --- |"
	for _, c := range bo.conc {
		head += fmt.Sprintf(" c=%d req/s |", c)
		sep += " --- |"
	}
	fmt.Fprintln(w, head+" ÷ GET /healthz | failed |")
	fmt.Fprintln(w, sep+" --- | --- |")
	health := newRow("")
	var me *benchRow
	for _, r := range rows {
		switch r.key {
		case "healthz":
			health = r
		case "me":
			me = r
		}
	}
	for _, r := range rows {
		line := "| " + r.name + " |"
		var ratios []float64
		failed := 0
		for _, c := range bo.conc {
			line += fmt.Sprintf(" %.0f [%s] |", median(r.rates[c]), span(r.rates[c], "%.0f"))
			ratios = append(ratios, r.ratiosTo(health, c)...)
			failed += r.errors[c]
		}
		fmt.Fprintf(w, "%s %s | %d |\n", line, span(ratios, "%.3f"), failed)
	}
	if len(redisRates) > 0 {
		fmt.Fprintf(w, "\nredis-benchmark GET (50 clients) on the same Redis in the same runs: %s req/s\n", span(redisRates, "%.0f"))
	}
	// The per-concurrency ratios the goals name.
	fmt.Fprintln(w)
	for _, c := range bo.conc {
		var parts []string
		for _, r := range rows {
			if r == health {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s", strings.TrimPrefix(r.name, "GET "), span(r.ratiosTo(health, c), "%.3f")))
		}
		fmt.Fprintf(w, "c=%d ÷ healthz: %s\n", c, strings.Join(parts, "; "))
	}
	// Issue 21's goal 3 compares the interview reads with /users/me.
	if me == nil {
		return
	}
	for _, c := range bo.conc {
		var parts []string
		for _, r := range rows {
			if r.key != "current" && r.key != "replay" {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s", strings.TrimPrefix(r.name, "GET "), span(r.ratiosTo(me, c), "%.3f")))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "c=%d ÷ users/me: %s\n", c, strings.Join(parts, "; "))
		}
	}
}

// ratiosTo returns r's rate ÷ base's rate at concurrency c, run by run.
func (r *benchRow) ratiosTo(base *benchRow, c int) []float64 {
	var ratios []float64
	for i, v := range r.rates[c] {
		if i < len(base.rates[c]) && base.rates[c][i] > 0 {
			ratios = append(ratios, v/base.rates[c][i])
		}
	}
	return ratios
}
