package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// A dependency that cannot be opened ends the real binary within 10 s
// with exit status 1 and one line naming the setting and the cause; never
// a panic (issue 16: a nil App was closed on an unreachable DSN).
func TestStartupFailureNamesSetting(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, busyPort, _ := net.SplitHostPort(busy.Addr().String())
	tests := []struct {
		name string
		env  []string
		want string // the error line, or its start
	}{
		{"unreachable database", []string{"DATABASE_DRIVER=mysql", "DATABASE_DSN=root@tcp(127.0.0.1:1)/x?timeout=2s"},
			"error: database.dsn: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"espeak missing", []string{"TTS_PROVIDER=espeak-ng", "TTS_ESPEAK_BINARY=/nonexistent/espeak-ng"},
			"error: tts.espeak.binary: "},
		{"pocketsphinx model missing", []string{"SPEECH_PROVIDER=pocketsphinx", "SPEECH_POCKETSPHINX_MODEL_DIR=/nonexistent"},
			"error: speech.provider is pocketsphinx: "},
		{"port taken", []string{"SERVER_PORT=" + busyPort}, "error: listen on 127.0.0.1:" + busyPort + " (server.port): "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, servertest.Binary(t))
			cmd.Dir = t.TempDir()
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
				"SERVER_HOST=127.0.0.1", "SERVER_PORT=0"}, tt.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || ctx.Err() != nil {
				t.Fatalf("exit = %v after %v, want status 1 within 10 s; stderr:\n%s", err, time.Since(start), &stderr)
			}
			out := stderr.String()
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Fatalf("stderr has a panic:\n%s", out)
			}
			var errLines []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.Contains(line, "level=") { // log lines of what started before
					errLines = append(errLines, line)
				}
			}
			if len(errLines) != 1 || !strings.HasPrefix(errLines[0], tt.want) {
				t.Fatalf("stderr lines %q, want one starting %q", errLines, tt.want)
			}
			t.Logf("%v: %s", time.Since(start).Round(time.Millisecond), errLines[0])
		})
	}
}
