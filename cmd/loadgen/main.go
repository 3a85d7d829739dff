// Command loadgen replays realistic duplicate traffic against an AI-Meeting
// cluster and checks the single-flight promise: however many copies of a
// request reach however many instances, the model is called once per
// business request (plus a takeover when an owner dies), and nothing a
// candidate submitted is lost.
//
// It starts its own fake OpenAI-compatible model (llmtest behind a proxy on
// -model-addr, counting calls per stage and per instance) and, unless -url
// is given, the cluster (scripts/cluster.sh, pointed at the fake model).
// Then -candidates users each register, create a session, upload a resume
// twice at once to two instances, answer every question with 2-4 copies
// sent to different instances after random delays, finish and read their
// report. -chaos kills an instance, restarts Redis, restarts MariaDB and
// restarts the object store (where the resumes live) during the run. Loopback only; bounded by -candidates and -timeout.
//
//	go run ./cmd/loadgen -candidates 30 -chaos
//
// -bench instead measures throughput: GET /healthz, GET /users/me, GET
// current-question, distinct and identical (replayed) answers at several
// concurrencies on one instance (with -n, distinct answers are spread over
// every instance) with an instant model, repeated -bench-runs times, with
// ratios to /healthz and a redis-benchmark baseline taken in the same runs
// (docs/performance.md).
//
//	go run ./cmd/loadgen -bench
//	go run ./cmd/loadgen -bench -n 3 -bench-conc 64 -bench-runs 1 -bench-duration 8s -bench-sessions 300
//
// -bench-stale N measures, instead of the table, how often another
// instance still shows a current question an answer has just replaced.
//
//	go run ./cmd/loadgen -bench -bench-stale 500
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type options struct {
	url, instances string
	nodes          int
	candidates     int
	copies         [2]int
	maxDelay       time.Duration
	ramp           time.Duration
	evalLatency    latency
	modelAddr      string
	chaos          string
	timeout        time.Duration
	script         string
	bin            string
	jsonOut        string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run() error {
	var o options
	var copies, evalLat string
	var chaos bool
	flag.StringVar(&o.url, "url", "", "an already running cluster's load balancer URL (default: start scripts/cluster.sh)")
	flag.StringVar(&o.instances, "instances", "", "with -url: the instances' URLs, comma-separated, for sending copies to different instances")
	flag.IntVar(&o.nodes, "n", 3, "instances of the started cluster")
	flag.IntVar(&o.candidates, "candidates", 30, "candidates (users), each running one whole interview")
	flag.StringVar(&copies, "copies", "2-4", "copies of every answer, min-max")
	flag.DurationVar(&o.maxDelay, "max-delay", 800*time.Millisecond, "later copies leave after a random delay up to this")
	flag.DurationVar(&o.ramp, "ramp", 30*time.Second, "candidates start at random moments within this")
	flag.StringVar(&evalLat, "eval-latency", "300ms-1500ms", "evaluation latency of the fake model, min-max")
	flag.StringVar(&o.modelAddr, "model-addr", "127.0.0.1:18090", "where the fake model listens (loopback)")
	flag.BoolVar(&chaos, "chaos", false, "during the load: kill -9 instance 2, restart Redis, restart MariaDB, restart the object store (see -chaos-plan)")
	flag.StringVar(&o.chaos, "chaos-plan", "8s:kill-app:2,18s:restart-redis,28s:restart-db,36s:restart-s3", "with -chaos: at:action[:arg],... after the first candidate starts")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "the whole run stops after this")
	flag.StringVar(&o.script, "cluster-script", "scripts/cluster.sh", "the cluster runner")
	flag.StringVar(&o.bin, "bin", "", "a built server binary for the cluster (default: the script builds one)")
	flag.StringVar(&o.jsonOut, "json", "", "also write the report as JSON to this file")
	var bench bool
	var bo benchOptions
	var benchConc string
	flag.BoolVar(&bench, "bench", false, "measure throughput (docs/performance.md) instead of replaying duplicate traffic")
	flag.IntVar(&bo.runs, "bench-runs", 3, "with -bench: repeated runs (the table shows their ranges)")
	flag.DurationVar(&bo.duration, "bench-duration", 3*time.Second, "with -bench: how long each cell is measured")
	flag.StringVar(&benchConc, "bench-conc", "1,8,32", "with -bench: concurrencies, comma-separated")
	flag.IntVar(&bo.sessions, "bench-sessions", 800, "with -bench: ready sessions prepared per concurrency for distinct answers (each takes 5 answers: 800 last 3 s at 1 300 answers/s)")
	var benchOnly string
	flag.StringVar(&benchOnly, "bench-only", "", "with -bench: measure only these rows, comma-separated, of "+strings.Join(benchRowNames, ",")+" (default: all)")
	flag.StringVar(&bo.pprofDir, "bench-pprof", "", "with -bench: write a CPU profile and an allocation profile of the server during each cell (the distinct answers included) into this directory (one instance; serves server.pprof-addr on "+benchPprofAddr+")")
	flag.BoolVar(&bo.cpu, "bench-cpu", false, "with -bench: print the CPU time per request of the server, MariaDB, Redis and loadgen itself in each cell (from /proc; one instance)")
	flag.IntVar(&bo.stale, "bench-stale", 0, "with -bench: instead of the table, answer this many questions, each on one instance, and read the current question on another at once: how often, and how long, it still shows the answered one (two instances unless -n)")
	flag.Parse()
	if bench {
		if benchOnly != "" {
			bo.only = map[string]bool{}
			for _, f := range strings.Split(benchOnly, ",") {
				if f = strings.TrimSpace(f); !slices.Contains(benchRowNames, f) {
					return fmt.Errorf("-bench-only %q: want names among %s", benchOnly, strings.Join(benchRowNames, ","))
				}
				bo.only[f] = true
			}
		}
		for _, f := range strings.Split(benchConc, ",") {
			var c int
			if _, err := fmt.Sscan(f, &c); err != nil || c < 1 || c > 256 {
				return fmt.Errorf("-bench-conc %q: want concurrencies 1..256", benchConc)
			}
			bo.conc = append(bo.conc, c)
		}
		if bo.runs < 1 || bo.duration <= 0 || bo.sessions < 1 {
			return errors.New("-bench-runs, -bench-duration and -bench-sessions must be positive")
		}
		nSet, addrSet, timeoutSet := false, false, false
		flag.Visit(func(f *flag.Flag) {
			nSet = nSet || f.Name == "n"
			addrSet = addrSet || f.Name == "model-addr"
			timeoutSet = timeoutSet || f.Name == "timeout"
		})
		if !timeoutSet {
			o.timeout = 30 * time.Minute
		}
		if !nSet {
			o.nodes = 1 // the table is per instance
			if bo.stale > 0 {
				o.nodes = 2
			}
		}
		if (bo.pprofDir != "" || bo.cpu) && o.nodes != 1 {
			return errors.New("-bench-pprof and -bench-cpu measure one instance: use -n 1")
		}
		if bo.pprofDir != "" {
			if err := os.MkdirAll(bo.pprofDir, 0o755); err != nil {
				return err
			}
			if os.Getenv("SERVER_PPROF_ADDR") == "" {
				_ = os.Setenv("SERVER_PPROF_ADDR", benchPprofAddr)
			}
		}
		if !addrSet {
			o.modelAddr = "127.0.0.1:18091"
		}
		evalLat = "0s-0s" // an instant model: the server is measured
		// Ports of its own (a chaos run may be going on), no rate limits,
		// registration throttle or evaluation bulkhead below the clients,
		// a cheap bcrypt for the setup's registrations.
		for _, kv := range []string{"HTTP_PORT=8089", "APP_PORT=18181", "REDIS_PORT=6391", "DB_PORT=3391",
			"STATE_DIR=/tmp/aimeeting-bench", "RATE_LIMIT_ENABLED=false", "AUTH_LOGIN_THROTTLE_ENABLED=false", "AUTH_BCRYPT_COST=4",
			"XUNZHI_AGENT_AI_GUARD_STAGES_INTERVIEW_EVALUATION_MAX_CONCURRENT=128"} {
			k, v, _ := strings.Cut(kv, "=")
			if os.Getenv(k) == "" { // the caller's setting wins
				_ = os.Setenv(k, v)
			}
		}
	}
	if !bench && o.url == "" && os.Getenv("AUTH_LOGIN_THROTTLE_ADDRESS_REGISTRATIONS") == "" {
		// Every candidate registers from this one address, which real users
		// do not: let the cluster started here take them all.
		_ = os.Setenv("AUTH_LOGIN_THROTTLE_ADDRESS_REGISTRATIONS", strconv.Itoa(max(o.candidates, 10)))
	}
	o.script = scriptPath(o.script)
	if _, err := fmt.Sscanf(copies, "%d-%d", &o.copies[0], &o.copies[1]); err != nil || o.copies[0] < 1 || o.copies[1] < o.copies[0] {
		return fmt.Errorf("-copies %q: want MIN-MAX", copies)
	}
	var lo, hi string
	if l, h, ok := strings.Cut(evalLat, "-"); ok {
		lo, hi = l, h
	}
	var err error
	if o.evalLatency.Min, err = time.ParseDuration(lo); err == nil {
		o.evalLatency.Max, err = time.ParseDuration(hi)
	}
	if err != nil {
		return fmt.Errorf("-eval-latency %q: want MIN-MAX durations", evalLat)
	}
	if o.candidates < 1 || o.candidates > 500 {
		return errors.New("-candidates must be 1..500")
	}
	if !chaos {
		o.chaos = ""
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	model, err := startModel(o.modelAddr, o.evalLatency)
	if err != nil {
		return err
	}
	defer model.Close()
	fmt.Fprintf(os.Stderr, "fake model on %s\n", model.BaseURL())

	tg := target{lb: o.url}
	if o.instances != "" {
		tg.instances = strings.Split(o.instances, ",")
	}
	if o.url == "" {
		modelURL := model.BaseURL()
		if bench {
			modelURL = model.DirectURL()
		}
		cl, err := startCluster(ctx, o, modelURL)
		if err != nil {
			return err
		}
		defer cl.stop()
		tg = cl.tg
	}
	for _, u := range append([]string{tg.lb}, tg.instances...) {
		if err := loopbackOnly(u); err != nil {
			return err
		}
	}
	if bench {
		urls := tg.instances // the instances themselves, not the proxy
		if len(urls) == 0 {
			urls = []string{tg.lb}
		}
		return runBench(ctx, o, bo, urls)
	}

	st := newStats()
	hc := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}}
	runID := fmt.Sprintf("%x", rand.Uint32())
	cands := make([]*candidate, o.candidates)
	for i := range cands {
		cands[i] = newCandidate(i, runID, &client{hc: hc, st: st}, tg, o.copies, o.maxDelay)
	}

	scr := newScraper()
	scrapeCtx, stopScrape := context.WithCancel(ctx)
	defer stopScrape()
	scrapeDone := make(chan struct{})
	go func() { defer close(scrapeDone); scr.run(scrapeCtx, tg.instances) }()

	start := time.Now()
	events := make(chan chaosEvent, 16)
	var chaosWG sync.WaitGroup
	if o.chaos != "" {
		plan, err := parsePlan(o.chaos)
		if err != nil {
			return err
		}
		chaosWG.Add(1)
		go func() { defer chaosWG.Done(); runChaos(ctx, o, plan, start, events) }()
	}
	var wg sync.WaitGroup
	for _, cd := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-time.After(rand.N(o.ramp + 1)):
			case <-ctx.Done():
				return
			}
			if err := cd.run(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "candidate:", err)
			}
		}()
	}
	wg.Wait()
	chaosWG.Wait()
	close(events)
	elapsed := time.Since(start)
	var evs []chaosEvent
	for e := range events {
		evs = append(evs, e)
	}
	// Let late model calls (a takeover still running) end before counting.
	time.Sleep(1500 * time.Millisecond)
	stopScrape()
	<-scrapeDone
	for _, u := range tg.instances {
		scr.scrape(ctx, u)
	}
	// Redis errors seen by an instance are faults too: hybrid mode then
	// dedups in-process only for redis-backoff (5 s).
	for i, u := range tg.instances {
		for _, at := range scr.redisErrorsAt()[u] {
			evs = append(evs, chaosEvent{Action: "redis-error", Arg: fmt.Sprint(i + 1), At: at})
		}
	}
	rep := buildReport(o, cands, st, model.Calls(), evs, elapsed)
	rep.Singleflight = scr.totals()
	rep.print(os.Stdout)
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped early: %w", ctx.Err())
	}
	if !rep.OK {
		return errors.New("the run broke a promise (see above)")
	}
	return nil
}

func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1":
		return nil
	}
	return fmt.Errorf("%s: loadgen only targets loopback", raw)
}

// cluster is a scripts/cluster.sh started by loadgen.
type cluster struct {
	cmd  *exec.Cmd
	done chan struct{}
	tg   target
}

func startCluster(ctx context.Context, o options, modelURL string) (*cluster, error) {
	cmd := exec.Command("bash", o.script, "up")
	cmd.Env = append(os.Environ(), fmt.Sprintf("N=%d", o.nodes), "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+modelURL,
		"AI_OPENAI_API_KEY=sk-loadgen", "AI_OPENAI_MODEL=fake-gpt", "LOG_LEVEL=warn")
	if o.bin != "" {
		cmd.Env = append(cmd.Env, "BIN="+o.bin)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // our Ctrl-C reaches it through stop()
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &cluster{cmd: cmd, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "cluster: instances "); ok {
				c.tg.instances = strings.Split(v, ",")
			}
			if v, ok := strings.CutPrefix(line, "cluster: url "); ok {
				c.tg.lb = v
				close(ready)
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { cmd.Wait(); close(c.done) }()
	select {
	case <-ready:
		return c, nil
	case <-c.done:
		return nil, errors.New("scripts/cluster.sh exited before the cluster was up")
	case <-time.After(5 * time.Minute):
	case <-ctx.Done():
	}
	c.stop()
	return nil, errors.New("the cluster did not come up")
}

func (c *cluster) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// chaosEvent is one fault injected, with when it happened.
type chaosEvent struct {
	Action string
	Arg    string
	At     time.Time
	Err    string `json:",omitempty"`
}

type chaosStep struct {
	after       time.Duration
	action, arg string
}

func parsePlan(s string) ([]chaosStep, error) {
	var plan []chaosStep
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(part, ":")
		d, err := time.ParseDuration(f[0])
		if err != nil || len(f) < 2 {
			return nil, fmt.Errorf("-chaos-plan %q: want at:action[:arg]", part)
		}
		st := chaosStep{after: d, action: f[1]}
		if len(f) > 2 {
			st.arg = f[2]
		}
		switch st.action {
		case "kill-app", "restart-redis", "restart-db", "restart-s3":
		default:
			return nil, fmt.Errorf("-chaos-plan: unknown action %q", st.action)
		}
		plan = append(plan, st)
	}
	slices.SortFunc(plan, func(a, b chaosStep) int { return int(a.after - b.after) })
	return plan, nil
}

func runChaos(ctx context.Context, o options, plan []chaosStep, start time.Time, events chan<- chaosEvent) {
	for _, step := range plan {
		select {
		case <-time.After(time.Until(start.Add(step.after))):
		case <-ctx.Done():
			return
		}
		args := []string{o.script, "chaos", step.action}
		if step.arg != "" {
			args = append(args, step.arg)
		}
		e := chaosEvent{Action: step.action, Arg: step.arg}
		out, err := exec.Command("bash", args...).CombinedOutput()
		e.At = time.Now() // the fault is done when the command returns (SIGKILL sent, SHUTDOWN done)
		if err != nil {
			e.Err = fmt.Sprintf("%v: %s", err, out)
		}
		fmt.Fprintf(os.Stderr, "chaos %s %s at +%s %s\n", e.Action, e.Arg, e.At.Sub(start).Round(time.Millisecond), e.Err)
		events <- e
	}
}

// scriptPath finds the cluster script from the repository root when loadgen
// runs elsewhere (go run from another directory).
func scriptPath(p string) string {
	if _, err := os.Stat(p); err == nil || filepath.IsAbs(p) {
		return p
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if alt := filepath.Join(filepath.Dir(file), "..", "..", p); fileExists(alt) {
			return alt
		}
	}
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
