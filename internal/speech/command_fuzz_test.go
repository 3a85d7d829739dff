package speech_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
)

// replies are the message types a text frame may be answered with.
var replies = map[string]bool{
	speech.TypePong: true, speech.TypeTranscriptionStarted: true, speech.TypeTranscriptionAlreadyStarted: true,
	speech.TypeError: true, speech.TypeStatus: true, speech.TypeUnknownCommand: true,
	speech.TypeTranscriptionStopped: true, speech.TypeFinal: true,
}

// FuzzCommand sends arbitrary text frames to a real socket: every frame
// gets a reply of a known type (or a close with a policy code), and the
// server keeps serving.
func FuzzCommand(f *testing.F) {
	for _, seed := range []string{`{"type":"ping"}`, `{"type":"start_transcription"}`, `{"type":"stop_transcription"}`,
		`{"type":"get_status"}`, `{"type":"dance"}`, `{"type":1}`, `not json`, `{}`, `[]`, `{"type":"ping","x":{"y":[1,2]}}`} {
		f.Add([]byte(seed))
	}
	h := newHarness(f, speech.Config{}, &fakeRecognizer{})
	var users atomic.Int64 // a user per input: closing sockets still count against the per-user limit
	f.Fuzz(func(t *testing.T, frame []byte) {
		user := fmt.Sprintf("u%d", users.Add(1))
		ws := h.mustConnect(t, user)
		if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
			t.Fatalf("write: %v", err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			var m speech.Message
			if err := ws.ReadJSON(&m); err != nil {
				if websocket.IsCloseError(err, websocket.ClosePolicyViolation, websocket.CloseInvalidFramePayloadData, websocket.CloseMessageTooBig) {
					break // refused, not crashed
				}
				t.Fatalf("frame %q: read: %v", frame, err)
			}
			if m.Type == speech.TypeHeartbeat || m.Type == speech.TypeTranscription {
				continue
			}
			if !replies[m.Type] {
				t.Fatalf("frame %q: reply of type %q", frame, m.Type)
			}
			break
		}
		probe := h.mustConnect(t, user)
		mustSend(t, probe, speech.CmdPing)
		if m, _ := readUntil(t, probe, speech.TypePong); m.Type != speech.TypePong {
			t.Fatalf("server stopped answering after frame %q", frame)
		}
	})
}
