package testenv

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MariaDB is a private mariadbd process for fault tests: its own data
// directory, port and socket, so that a test may freeze, kill and restart
// it without touching the shared server (TEST_MYSQL_DSN) other tests use.
// It runs without grant tables: root (or anyone) connects without password.
type MariaDB struct {
	Addr string // 127.0.0.1:PORT

	bin, dir, sock string
	port           int

	mu   sync.Mutex // protects cmd, done
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	logs bytes.Buffer  // written by the process (through cmd), read after it ended
}

// mariadbTools finds mariadbd and mariadb-install-db (Debian puts the
// server under /usr/sbin, outside a user's PATH).
func mariadbTools() (server, install string, err error) {
	find := func(name string) (string, error) {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		for _, dir := range []string{"/usr/sbin", "/usr/libexec", "/usr/bin"} {
			if p := filepath.Join(dir, name); fileExists(p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s not found (apt-get install mariadb-server)", name)
	}
	if server, err = find("mariadbd"); err != nil {
		return "", "", err
	}
	if install, err = find("mariadb-install-db"); err != nil {
		return "", "", err
	}
	return server, install, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// StartMariaDB initialises a data directory and starts mariadbd on a free
// port; the process is stopped (thawed first if frozen) and its files
// removed when the test ends. Without MariaDB installed the test is
// skipped, or fails under CI=true.
func StartMariaDB(tb testing.TB) *MariaDB {
	tb.Helper()
	server, install, err := mariadbTools()
	if err != nil {
		unavailable(tb, "mariadbd", err)
	}
	// A short directory: a Unix socket path has a ~100-byte limit.
	dir, err := os.MkdirTemp("", "mdb-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	m := &MariaDB{bin: server, dir: dir, sock: filepath.Join(dir, "sock")}
	args := []string{"--no-defaults", "--datadir=" + filepath.Join(dir, "data"), "--skip-test-db",
		"--auth-root-authentication-method=normal"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		tb.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	m.port = ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	m.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port))
	tb.Cleanup(func() { m.stop() })
	m.Start(tb)
	return m
}

// Start starts mariadbd (again, after Kill) and waits until it answers.
func (m *MariaDB) Start(tb testing.TB) {
	tb.Helper()
	args := []string{"--no-defaults", "--datadir=" + filepath.Join(m.dir, "data"),
		"--port=" + strconv.Itoa(m.port), "--bind-address=127.0.0.1", "--socket=" + m.sock,
		"--pid-file=" + filepath.Join(m.dir, "pid"), "--skip-grant-tables", "--skip-name-resolve",
		"--skip-log-bin", "--innodb-buffer-pool-size=32M", "--max-connections=200"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(m.bin, args...)
	cmd.Stdout, cmd.Stderr = &m.logs, &m.logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // signals of the test's terminal do not reach it
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start mariadbd: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	m.mu.Lock()
	m.cmd, m.done = cmd, done
	m.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := m.ping()
		if err == nil {
			return
		}
		select {
		case <-done:
			tb.Fatalf("mariadbd exited at start-up: %v\n%s", err, m.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("mariadbd did not answer within 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *MariaDB) ping() error {
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// DSN is a go-sql-driver DSN for database name ("" for none) as root.
func (m *MariaDB) DSN(name string) string {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", m.Addr, name
	cfg.ParseTime, cfg.Loc = true, time.UTC
	cfg.Params = map[string]string{"charset": "utf8mb4"}
	return cfg.FormatDSN()
}

// CreateDatabase creates database name and returns its DSN.
func (m *MariaDB) CreateDatabase(tb testing.TB, name string) string {
	tb.Helper()
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		tb.Fatalf("create database %s: %v", name, err)
	}
	return m.DSN(name)
}

// signal sends sig to the running process.
func (m *MariaDB) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	m.mu.Lock()
	cmd := m.cmd
	m.mu.Unlock()
	if cmd == nil {
		tb.Fatalf("mariadbd is not running")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("signal mariadbd %v: %v", sig, err)
	}
}

// Freeze stops the process (SIGSTOP): connections stay open, nothing answers.
func (m *MariaDB) Freeze(tb testing.TB) { tb.Helper(); m.signal(tb, syscall.SIGSTOP) }

// Thaw resumes a frozen process (SIGCONT).
func (m *MariaDB) Thaw(tb testing.TB) { tb.Helper(); m.signal(tb, syscall.SIGCONT) }

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (m *MariaDB) Kill(tb testing.TB) {
	tb.Helper()
	m.signal(tb, syscall.SIGKILL)
	m.mu.Lock()
	done := m.done
	m.cmd = nil
	m.mu.Unlock()
	<-done
}

// stop ends the process, whatever its state.
func (m *MariaDB) stop() {
	m.mu.Lock()
	cmd, done := m.cmd, m.done
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGCONT)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
