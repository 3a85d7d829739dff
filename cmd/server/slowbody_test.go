package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// 30 clients that send their bodies one byte every 2 s (to the login
// without a token, to registration, and to a chat stream with one) are
// all disconnected within server.read-timeout + 2 s, while /healthz keeps
// answering fast (issue 16: none was closed after 45 s).
func TestSlowBodiesAreCut(t *testing.T) {
	const readTimeout = 3 * time.Second
	s := servertest.Start(t, "", "SERVER_READ_TIMEOUT="+readTimeout.String())
	token := MustRegisterLogin(t, s.URL, "slowpoke").Token
	host := strings.TrimPrefix(s.URL, "http://")
	targets := []struct{ path, token string }{
		{api + "/users/login", ""},
		{api + "/users/register", ""},
		{api + "/ai/sessions/missing/chat", token},
	}

	var healthMu sync.Mutex
	var health []time.Duration
	stopHealth := make(chan struct{})
	healthDone := make(chan struct{})
	go func() {
		defer close(healthDone)
		for {
			select {
			case <-stopHealth:
				return
			case <-time.After(100 * time.Millisecond):
			}
			start := time.Now()
			resp, err := http.Get(s.URL + "/healthz")
			took := time.Since(start)
			if err == nil {
				resp.Body.Close()
			}
			if err != nil || resp.StatusCode != 200 {
				took = time.Hour // a failure counts as "not fast"
			}
			healthMu.Lock()
			health = append(health, took)
			healthMu.Unlock()
		}
	}()

	const clients = 30
	closedAfter := make([]time.Duration, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			closedAfter[i] = slowClient(t, host, targets[i%len(targets)].path, targets[i%len(targets)].token)
		}()
	}
	wg.Wait()
	close(stopHealth)
	<-healthDone

	sort.Slice(closedAfter, func(i, j int) bool { return closedAfter[i] < closedAfter[j] })
	if worst := closedAfter[clients-1]; worst > readTimeout+2*time.Second {
		t.Errorf("slowest slow client closed after %v, want within read-timeout + 2 s = %v", worst, readTimeout+2*time.Second)
	}
	healthMu.Lock()
	defer healthMu.Unlock()
	sort.Slice(health, func(i, j int) bool { return health[i] < health[j] })
	if len(health) == 0 || health[len(health)-1] > 500*time.Millisecond {
		t.Errorf("/healthz during the attack: %d probes, slowest %v; want all under 500ms", len(health), health[len(health)-1])
	}
	t.Logf("%d slow clients closed after %v..%v (read-timeout %v); /healthz: %d probes, median %v, max %v",
		clients, closedAfter[0], closedAfter[clients-1], readTimeout, len(health), health[len(health)/2], health[len(health)-1])
}

// slowClient sends a request whose 200-byte JSON body trickles in one byte
// every 2 s, and returns how long the server kept the connection.
func slowClient(t *testing.T, host, path, token string) time.Duration {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Error(err)
		return time.Hour
	}
	defer conn.Close()
	start := time.Now()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200\r\n", path, host)
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
		t.Error(err)
		return time.Hour
	}
	closed := make(chan time.Duration, 1)
	go func() {
		// Whatever the server answers, the connection must end: read to EOF.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, _ = io.Copy(io.Discard, conn)
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case d := <-closed:
			return d
		case <-tick.C:
			_, _ = io.WriteString(conn, " ") // errors once the server has closed: the reader reports it
		}
	}
}
