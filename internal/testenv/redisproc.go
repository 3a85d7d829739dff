package testenv

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisProcess is a private redis-server run by one test: its own port and
// directory, no persistence, so that a fault test can kill, freeze or
// restart it without touching the shared Redis of the other tests.
type RedisProcess struct {
	Addr string // 127.0.0.1:PORT
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// StartRedis starts a private redis-server on a free loopback port and
// stops it when the test ends. Without a redis-server binary the test is
// skipped (failed under CI=true); scripts/services.sh installs it.
func StartRedis(tb testing.TB) *RedisProcess {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		unavailable(tb, "redis-server (private instance)", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	r := &RedisProcess{Addr: "127.0.0.1:" + strconv.Itoa(port), port: port, dir: tb.TempDir()}
	r.start(tb)
	tb.Cleanup(r.Kill)
	return r
}

// start runs redis-server on r's port and waits until it answers PING.
func (r *RedisProcess) start(tb testing.TB) {
	tb.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--save", "", "--appendonly", "no", "--protected-mode", "no", "--loglevel", "warning")
	r.done = make(chan struct{})
	if err := r.cmd.Start(); err != nil {
		tb.Fatalf("start redis-server: %v", err)
	}
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(r.cmd, r.done)
	c := r.Client(tb)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-r.done:
			tb.Fatalf("redis-server on port %d exited at start-up (port taken?): %v", r.port, err)
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("redis-server on port %d did not answer within 10 s: %v", r.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Client returns a client of this server, closed when the test ends.
func (r *RedisProcess) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: r.Addr, MaxRetries: -1})
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it.
// Killing a server already gone does nothing.
func (r *RedisProcess) Kill() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGCONT) // a frozen process must be able to die
	_ = r.cmd.Process.Kill()
	<-r.done
}

// Restart starts a fresh, empty server on the same port after Kill.
func (r *RedisProcess) Restart(tb testing.TB) {
	tb.Helper()
	r.Kill()
	r.start(tb)
}

// Freeze stops the process with SIGSTOP: connections stay open and nothing
// answers. Thaw resumes it.
func (r *RedisProcess) Freeze(tb testing.TB) { r.signal(tb, syscall.SIGSTOP) }

// Thaw resumes a frozen server with SIGCONT.
func (r *RedisProcess) Thaw(tb testing.TB) { r.signal(tb, syscall.SIGCONT) }

func (r *RedisProcess) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		tb.Fatal(fmt.Errorf("signal redis-server: %w", err))
	}
}
