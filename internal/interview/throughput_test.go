package interview_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// TestAnswerThroughput measures the service (no HTTP) on MariaDB with the
// instant fake model: distinct answers/s, current-question reads/s and
// identical replays/s, each at concurrency INTERVIEW_BENCH_C (default 32)
// for INTERVIEW_BENCH_FOR (default 5s). It runs only when
// INTERVIEW_BENCH=1; docs/performance-answer.md has the command and the
// numbers.
func TestAnswerThroughput(t *testing.T) {
	if os.Getenv("INTERVIEW_BENCH") != "1" {
		t.Skip("a measurement, not a test: set INTERVIEW_BENCH=1 (and TEST_MYSQL_DSN) to run it")
	}
	conc := envInt("INTERVIEW_BENCH_C", 32)
	dur, err := time.ParseDuration(envOr("INTERVIEW_BENCH_FOR", "5s"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, dbtest.MySQL(t))
	e.cfg.QuestionCount = 8
	e.svc = e.instance()
	ctx := context.Background()

	// Sessions ready to answer, made ahead in parallel: enough for every
	// worker to keep answering for dur (about 8 answers a session).
	var (
		mu    sync.Mutex
		ready []sessionRef
	)
	need := envInt("INTERVIEW_BENCH_SESSIONS", 1200)
	var wg sync.WaitGroup
	const setupWorkers = 8 // the extraction stages' bulkhead
	for w := range setupWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < need; i += setupWorkers {
				user := fmt.Sprintf("bench-%d", i)
				s := e.ready(user)
				mu.Lock()
				ready = append(ready, sessionRef{user: user, id: s.ID})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	// Distinct answers: each worker answers its own sessions in turn.
	var next atomic.Int64
	if path := os.Getenv("INTERVIEW_BENCH_PROFILE"); path != "" {
		// A CPU profile of the distinct answers only (not the setup).
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(dur, pprof.StopCPUProfile)
	}
	cpu := cpuTime()
	n, errs := run(conc, dur, func(w int, stop func() bool) (int, int) {
		ok, bad := 0, 0
		for !stop() {
			i := int(next.Add(1)) - 1
			if i >= len(ready) {
				t.Error("out of sessions: raise INTERVIEW_BENCH_SESSIONS")
				return ok, bad
			}
			ref, no := ready[i], "1"
			for k := 0; no != "" && !stop(); k++ {
				r, err := e.svc.Answer(ctx, ref.user, ref.id, answer(no, fmt.Sprintf("answer %d", k), ""))
				if err != nil {
					bad++
					break
				}
				ok++
				no = r.NextQuestionNumber
				if r.Finished {
					no = ""
				}
			}
		}
		return ok, bad
	})
	t.Logf("distinct answers: c=%d %.0f/s, errors %d, %s", conc, float64(n)/dur.Seconds(), errs, perOp(cpu, n))

	// Reads of one answered session per worker.
	refs := ready[len(ready)-conc:]
	replays := make([]interview.AnswerInput, conc)
	for w, ref := range refs {
		cur, err := e.svc.CurrentQuestion(ctx, ref.user, ref.id)
		if err != nil {
			t.Fatal(err)
		}
		replays[w] = answer(cur.QuestionNumber, "replayed answer", fmt.Sprintf("replay-%d", w))
		if _, err := e.svc.Answer(ctx, ref.user, ref.id, replays[w]); err != nil {
			t.Fatal(err)
		}
	}
	cpu = cpuTime()
	n, errs = run(conc, dur, func(w int, stop func() bool) (int, int) {
		ok, bad := 0, 0
		for !stop() {
			if _, err := e.svc.CurrentQuestion(ctx, refs[w].user, refs[w].id); err != nil {
				bad++
				continue
			}
			ok++
		}
		return ok, bad
	})
	t.Logf("current question: c=%d %.0f/s, errors %d, %s", conc, float64(n)/dur.Seconds(), errs, perOp(cpu, n))
	cpu = cpuTime()
	n, errs = run(conc, dur, func(w int, stop func() bool) (int, int) {
		ok, bad := 0, 0
		for !stop() {
			if _, err := e.svc.Answer(ctx, refs[w].user, refs[w].id, replays[w]); err != nil {
				bad++
				continue
			}
			ok++
		}
		return ok, bad
	})
	t.Logf("identical replay: c=%d %.0f/s, errors %d, %s", conc, float64(n)/dur.Seconds(), errs, perOp(cpu, n))
}

type sessionRef struct{ user, id string }

// cpuTime is the CPU time this process and MariaDB (when its pid is
// found) have used so far.
func cpuTime() [2]time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return [2]time.Duration{self, mariadbCPU()}
}

// mariadbCPU reads the CPU time of the mariadbd processes from /proc (0
// when there is none); other clients of the server count too.
func mariadbCPU() time.Duration {
	out, err := exec.Command("pgrep", "-x", "mariadbd").Output()
	if err != nil {
		return 0
	}
	var total int64
	for _, pid := range strings.Fields(string(out)) {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		var ut, st int64
		_, _ = fmt.Sscan(f[11], &ut)
		_, _ = fmt.Sscan(f[12], &st)
		total += ut + st
	}
	return time.Duration(total) * 10 * time.Millisecond // USER_HZ = 100
}

// perOp is the CPU time per operation since before.
func perOp(before [2]time.Duration, n int) string {
	if n == 0 {
		return ""
	}
	now := cpuTime()
	return fmt.Sprintf("CPU per op: test process %v, mariadbd %v", (now[0]-before[0])/time.Duration(n), (now[1]-before[1])/time.Duration(n))
}

// run runs f on conc workers for d and sums their counts.
func run(conc int, d time.Duration, f func(w int, stop func() bool) (ok, bad int)) (ok, bad int) {
	deadline := time.Now().Add(d)
	stop := func() bool { return time.Now().After(deadline) }
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, b := f(w, stop)
			mu.Lock()
			ok, bad = ok+o, bad+b
			mu.Unlock()
		}()
	}
	wg.Wait()
	return ok, bad
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func envInt(key string, def int) int {
	var n int
	if _, err := fmt.Sscan(envOr(key, fmt.Sprint(def)), &n); err != nil {
		return def
	}
	return n
}
