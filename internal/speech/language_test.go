package speech_test

import (
	"net/http"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// Error messages follow the upgrade request's Accept-Language; the other
// messages and every type stay as they are.
func TestErrorsInCallersLanguage(t *testing.T) {
	h := newHarness(t, speech.Config{}, &fakeRecognizer{})
	for _, tt := range []struct {
		lang, unknown, early string
	}{
		{"zh-CN,zh;q=0.9", `未知命令 "dance"：请使用 ping、start_transcription、stop_transcription 或 get_status`,
			`在 start_transcription 之前收到了音频：请先发送 {"type": "start_transcription"}`},
		{"en", `unknown command "dance": use ping, start_transcription, stop_transcription or get_status`,
			`audio received before start_transcription: send {"type": "start_transcription"} first`},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			ws := h.dial(t, "u1?token=tok-u1", http.Header{"Accept-Language": {tt.lang}})
			if m := mustRead(t, ws); m.Type != speech.TypeConnected {
				t.Fatalf("first message %+v, want connected", m)
			}
			mustSend(t, ws, "dance")
			if m := mustRead(t, ws); m.Type != speech.TypeUnknownCommand || m.Message != tt.unknown {
				t.Errorf("unknown command: got %q %q, want %q", m.Type, m.Message, tt.unknown)
			}
			if err := ws.WriteMessage(websocket.BinaryMessage, make([]byte, 3200)); err != nil {
				t.Fatal(err)
			}
			if m := mustRead(t, ws); m.Type != speech.TypeError || m.Message != tt.early {
				t.Errorf("audio before start: got %q %q, want %q", m.Type, m.Message, tt.early)
			}
		})
	}
}
