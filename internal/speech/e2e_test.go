package speech_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/pocketsphinx"
	"github.com/xunzhi-ai/aimeeting/internal/speech/speechtest"
)

// sentences are what espeak-ng says in the round trip: interview-like
// English, fixed once (not picked per result).
var sentences = []string{
	"tell me about a project you are proud of",
	"i have five years of experience as a software engineer",
	"we should schedule the meeting for next week",
	"the quick brown fox jumps over the lazy dog",
	"what are your greatest strengths and weaknesses",
	"i worked on a team that built a large web application",
}

// maxWER is the failure threshold. Measured with espeak-ng's en-us+klatt
// voice and Debian's pocketsphinx 0.8+5prealpha en-us model: WER 0.185
// (10 errors in 54 words) streaming through the real server at real-time
// pace; the margin covers decoding variations (voice activity detection
// cuts utterances at slightly different places on a loaded machine).
const maxWER = 0.35

func startSpeechServer(t *testing.T) (*servertest.Server, string, string) {
	t.Helper()
	if err := pocketsphinx.Available(pocketsphinx.DefaultModelDir); err != nil {
		speechtest.Missing(t, "pocketsphinx", err)
	}
	srv := servertest.Start(t, "", "SPEECH_PROVIDER=pocketsphinx")
	api := srv.URL + "/api/xunzhi/v1"
	reg := servertest.Do(t, "POST", api+"/users/register", "", map[string]string{"username": "speaker", "password": "secret-pass-1"})
	if reg.Status != http.StatusOK {
		t.Fatalf("register: %d %s", reg.Status, reg.Raw)
	}
	var user struct {
		ID string `json:"id"`
	}
	reg.Decode(t, &user)
	login := servertest.Do(t, "POST", api+"/users/login", "", map[string]string{"username": "speaker", "password": "secret-pass-1"})
	var tok struct {
		Token string `json:"token"`
	}
	login.Decode(t, &tok)
	return srv, user.ID, tok.Token
}

// TestRealTimeRoundTrip streams espeak-ng speech at real-time pace over
// the WebSocket of the real server binary and checks the partial
// transcripts and the word error rate of the final one.
func TestRealTimeRoundTrip(t *testing.T) {
	srv, userID, token := startSpeechServer(t)
	var pcm []byte
	for _, s := range sentences {
		pcm = append(pcm, speechtest.Speak(t, s)...)
		pcm = append(pcm, speechtest.Silence(700)...)
	}
	pcm = append(pcm, speechtest.Silence(800)...)
	reference := strings.Join(sentences, " ")

	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/xunzhi/v1/xunfei/audio-to-text/" + userID + "?token=" + token
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if m := mustRead(t, ws); m.Type != speech.TypeConnected {
		t.Fatalf("got %+v, want connected", m)
	}
	mustSend(t, ws, speech.CmdStart)
	if m := mustRead(t, ws); m.Type != speech.TypeTranscriptionStarted {
		t.Fatalf("got %+v, want transcription_started", m)
	}

	msgs := make(chan speech.Message, 1024)
	go func() {
		defer close(msgs)
		for {
			_ = ws.SetReadDeadline(time.Now().Add(60 * time.Second))
			var m speech.Message
			if err := ws.ReadJSON(&m); err != nil {
				return
			}
			msgs <- m
			if m.Type == speech.TypeTranscriptionStopped {
				return
			}
		}
	}()
	// 100 ms chunks, paced by the wall clock.
	const chunk = speech.BytesPerSecond / 10
	start := time.Now()
	for i, off := 0, 0; off < len(pcm); i, off = i+1, off+chunk {
		if err := ws.WriteMessage(websocket.BinaryMessage, pcm[off:min(off+chunk, len(pcm))]); err != nil {
			t.Fatalf("send audio: %v", err)
		}
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 100 * time.Millisecond)))
	}
	if err := ws.WriteJSON(speech.Command{Type: speech.CmdStop}); err != nil {
		t.Fatal(err)
	}

	var partials []speech.Message
	var final *speech.Message
	liveSeen := false
	for m := range msgs {
		switch m.Type {
		case speech.TypeTranscription:
			if n := len(partials); n > 0 && m.Revision <= partials[n-1].Revision {
				t.Errorf("revision %d after %d", m.Revision, partials[n-1].Revision)
			}
			if n := len(partials); n > 0 && m.FullText == partials[n-1].FullText && m.CommittedText == partials[n-1].CommittedText {
				t.Errorf("transcription message without a change: %q", m.FullText)
			}
			if m.LiveText != "" {
				liveSeen = true
			}
			partials = append(partials, m)
		case speech.TypeFinal:
			final = &m
		case speech.TypeError:
			t.Errorf("error message: %+v", m)
		}
	}
	if final == nil {
		t.Fatalf("no final message; server logs:\n%s", srv.Logs())
	}
	if len(partials) < len(sentences) || !liveSeen {
		t.Errorf("got %d transcription messages (live text seen: %v), want partial results while streaming", len(partials), liveSeen)
	}
	wer := speechtest.WER(reference, final.FullText)
	t.Logf("streamed %.1f s of audio in %.1f s; %d transcription messages", float64(len(pcm))/speech.BytesPerSecond,
		time.Since(start).Seconds(), len(partials))
	t.Logf("reference:  %s", reference)
	t.Logf("transcript: %s", final.FullText)
	t.Logf("WER %.3f (threshold %.2f)", wer, maxWER)
	if wer > maxWER {
		t.Errorf("WER %.3f above %.2f", wer, maxWER)
	}
}

// TestTranscriptionUpload posts a whole recording (espeak-ng's 22050 Hz
// WAV, resampled by the server) and checks the refusals.
func TestTranscriptionUpload(t *testing.T) {
	srv, _, token := startSpeechServer(t)
	url := srv.URL + "/api/xunzhi/v1/speech/transcriptions"
	text := sentences[1]
	wav := speechtest.SpeakWAV(t, text)

	upload := func(token, name string, data []byte) servertest.Response {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(data)
		mw.Close()
		req, _ := http.NewRequest("POST", url, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return servertest.Send(t, req)
	}

	resp := upload(token, "answer.wav", wav)
	if resp.Status != http.StatusOK {
		t.Fatalf("upload: %d %s", resp.Status, resp.Raw)
	}
	var got speech.Transcript
	resp.Decode(t, &got)
	wer := speechtest.WER(text, got.Text)
	t.Logf("upload transcript %q WER %.3f", got.Text, wer)
	if got.Provider != "pocketsphinx" || got.DurationMs < 2000 || wer > maxWER {
		t.Errorf("got %+v (WER %.2f)", got, wer)
	}

	pcmResp := upload(token, "answer.pcm", speechtest.Speak(t, text))
	var fromPCM speech.Transcript
	pcmResp.Decode(t, &fromPCM)
	if pcmResp.Status != http.StatusOK || speechtest.WER(text, fromPCM.Text) > maxWER {
		t.Errorf("raw PCM upload: %d %s", pcmResp.Status, pcmResp.Raw)
	}

	if r := upload("", "answer.wav", wav); r.Status != http.StatusUnauthorized {
		t.Errorf("without token: %d, want 401", r.Status)
	}
	mp3 := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), make([]byte, 100)...)
	r := upload(token, "answer.mp3", mp3)
	var env struct{ Message string }
	_ = json.Unmarshal([]byte(r.Raw), &env)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(env.Message, "WAV") {
		t.Errorf("undecodable MP3: %d %s, want 422 naming the supported formats", r.Status, r.Raw)
	}
}

// TestServerEdges covers the real binary's plain-GET answer and its
// shutdown, which closes open sockets with 1001.
func TestServerEdges(t *testing.T) {
	srv, userID, token := startSpeechServer(t)
	path := "/api/xunzhi/v1/xunfei/audio-to-text/" + userID
	if r := servertest.Do(t, "GET", srv.URL+path, "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("plain GET without token: %d %s, want 401", r.Status, r.Raw)
	}
	caps := servertest.Do(t, "GET", srv.URL+"/api/xunzhi/v1/speech/capabilities", token, nil)
	var got speech.Capabilities
	caps.Decode(t, &got)
	if caps.Status != http.StatusOK || got.Provider != "pocketsphinx" || strings.Join(got.Languages, ",") != "en" {
		t.Errorf("capabilities: %d %s, want pocketsphinx [en]", caps.Status, caps.Raw)
	}
	if r := servertest.Do(t, "GET", srv.URL+path, token, nil); r.Status != http.StatusBadRequest {
		t.Errorf("plain GET with token: %d %s, want 400", r.Status, r.Raw)
	}
	// As the web page connects: the token next to the protocol name,
	// which is all the server answers.
	d := websocket.Dialer{Subprotocols: []string{speech.Protocol, token}}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != speech.Protocol {
		t.Errorf("Sec-WebSocket-Protocol answer %q, want %q", got, speech.Protocol)
	}
	if m := mustRead(t, ws); m.Type != speech.TypeConnected || ws.Subprotocol() != speech.Protocol {
		t.Fatalf("got %+v (subprotocol %q), want connected", m, ws.Subprotocol())
	}
	srv.Stop(t)
	if got := closeCode(t, ws); got != websocket.CloseGoingAway {
		t.Fatalf("close code on shutdown %d, want 1001", got)
	}
}
