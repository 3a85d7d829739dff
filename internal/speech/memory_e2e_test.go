package speech_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/pocketsphinx"
	"github.com/xunzhi-ai/aimeeting/internal/speech/speechtest"
)

// rssKB reads VmRSS of process pid from /proc/PID/status, in KiB.
func rssKB(tb testing.TB, pid int) int64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// speechUser registers and logs in a user of srv, returning its id and token.
func speechUser(tb testing.TB, srv *servertest.Server, name string) (string, string) {
	tb.Helper()
	api := srv.URL + "/api/xunzhi/v1"
	reg := servertest.Do(tb, "POST", api+"/users/register", "", map[string]string{"username": name, "password": "secret-pass-1"})
	if reg.Status != http.StatusOK {
		tb.Fatalf("register: %d %s", reg.Status, reg.Raw)
	}
	var user struct {
		ID string `json:"id"`
	}
	reg.Decode(tb, &user)
	login := servertest.Do(tb, "POST", api+"/users/login", "", map[string]string{"username": name, "password": "secret-pass-1"})
	var tok struct {
		Token string `json:"token"`
	}
	login.Decode(tb, &tok)
	return user.ID, tok.Token
}

// openDrop opens a transcription socket, starts a transcription, streams
// pcm and drops the connection without a close frame, as a closed browser
// tab does. It returns the type of the answer to start_transcription.
func openDrop(tb testing.TB, wsURL string, pcm []byte) string {
	tb.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer ws.UnderlyingConn().Close()
	if m := mustRead(tb, ws); m.Type != speech.TypeConnected {
		tb.Fatalf("got %+v, want connected", m)
	}
	mustSend(tb, ws, speech.CmdStart)
	var m speech.Message
	for {
		m = mustRead(tb, ws)
		if m.Type != speech.TypeHeartbeat {
			break
		}
	}
	if m.Type != speech.TypeTranscriptionStarted {
		return m.Type + ": " + m.Message
	}
	for len(pcm) > 0 {
		n := min(len(pcm), 3200)
		if err := ws.WriteMessage(websocket.BinaryMessage, pcm[:n]); err != nil {
			tb.Fatal(err)
		}
		pcm = pcm[n:]
	}
	return m.Type
}

func TestSpeechMemoryBaseline(t *testing.T) {
	if err := pocketsphinx.Available(pocketsphinx.DefaultModelDir); err != nil {
		speechtest.Missing(t, "pocketsphinx", err)
	}
	srv := servertest.Start(t, "", "SPEECH_PROVIDER=pocketsphinx")
	type client struct{ url string }
	var clients []client
	for i := range 3 {
		id, tok := speechUser(t, srv, fmt.Sprintf("mem%d", i))
		clients = append(clients, client{"ws" + strings.TrimPrefix(srv.URL, "http") + "/api/xunzhi/v1/xunfei/audio-to-text/" + id + "?token=" + tok})
	}
	pcm := speechtest.Speak(t, "tell me about a project you are proud of")
	pid := srv.PID()
	fresh := rssKB(t, pid)
	t.Logf("fresh %d KiB", fresh)
	start := time.Now()
	for cycle := 1; cycle <= 200; cycle++ {
		var wg sync.WaitGroup
		answers := make([]string, len(clients))
		for i, c := range clients {
			wg.Add(1)
			go func() { defer wg.Done(); answers[i] = openDrop(t, c.url, pcm) }()
		}
		wg.Wait()
		if cycle%20 == 0 {
			t.Logf("cycle %d rss %d KiB %v %s", cycle, rssKB(t, pid), answers, time.Since(start))
		}
	}
	time.Sleep(3 * time.Second)
	t.Logf("after %d KiB", rssKB(t, pid))
}
