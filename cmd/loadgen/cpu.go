package main

// -bench-cpu and -bench-pprof: where the CPU of a cell goes. The machine
// running the bench runs the server, MariaDB, Redis and loadgen itself on
// the same cores, so a request's cost is the sum over all four; /proc
// gives each process's CPU time around the cell.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuProcs are the processes whose CPU is counted: the names of
// scripts/cluster.sh's pid files, and loadgen itself.
var cpuProcs = []struct{ name, pidFile string }{
	{"aimeeting", "app1"}, {"mariadbd", "mariadb"}, {"redis-server", "redis"}, {"loadgen", ""},
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTick = 100

// readCPU returns the user+system CPU time of each of cpuProcs (-1 when it
// cannot be read).
func readCPU() []time.Duration {
	dir := os.Getenv("STATE_DIR")
	out := make([]time.Duration, len(cpuProcs))
	for i, p := range cpuProcs {
		out[i] = -1
		pid := "self"
		if p.pidFile != "" {
			b, err := os.ReadFile(filepath.Join(dir, "pids", p.pidFile))
			if err != nil {
				continue
			}
			pid = strings.TrimSpace(string(b))
		}
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command (in parentheses, which may hold spaces):
		// state is field 3, utime 14, stime 15.
		_, rest, ok := strings.Cut(string(b), ") ")
		f := strings.Fields(rest)
		if !ok || len(f) < 13 {
			continue
		}
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 == nil && err2 == nil {
			out[i] = time.Duration(ut+st) * time.Second / clockTick
		}
	}
	return out
}

// printCPU prints the CPU time per request of each process over a cell of
// n requests.
// statements is MariaDB's count of statements over the cell.
func printCPU(w io.Writer, row string, c int, n int64, before, after []time.Duration, statements int64) {
	if n == 0 {
		return
	}
	var parts []string
	var total time.Duration
	for i, p := range cpuProcs {
		if before[i] < 0 || after[i] < 0 {
			continue
		}
		d := after[i] - before[i]
		total += d
		parts = append(parts, fmt.Sprintf("%s %.0f", p.name, float64(d.Microseconds())/float64(n)))
	}
	fmt.Fprintf(w, "bench: cpu µs/request %s c=%d (%d requests, %.2f statements each): %s; total %.0f; load average %s\n", row, c, n,
		float64(statements)/float64(n), strings.Join(parts, ", "), float64(total.Microseconds())/float64(n), loadAverage())
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// fetchProfile writes a CPU profile of the instance taken during the cell
// (server.pprof-addr) to <dir>/<row>-c<c>-run<run>.pprof, and the
// allocations made meanwhile to the same name ending in .allocs.pprof.
func fetchProfile(ctx context.Context, hc *http.Client, bo benchOptions, row string, c, run int) error {
	secs := max(1, int(bo.duration.Seconds()))
	addr := os.Getenv("SERVER_PPROF_ADDR")
	name := filepath.Join(bo.pprofDir, fmt.Sprintf("%s-c%d-run%d", row, c, run+1))
	// The CPU profile and the allocations made meanwhile, side by side.
	errs := make(chan error, 1)
	go func() {
		errs <- saveProfile(ctx, hc, fmt.Sprintf("http://%s/debug/pprof/allocs?seconds=%d", addr, secs), name+".allocs.pprof")
	}()
	err := saveProfile(ctx, hc, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs), name+".pprof")
	return errors.Join(err, <-errs)
}

// saveProfile writes the profile served at url into file.
func saveProfile(ctx context.Context, hc *http.Client, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
