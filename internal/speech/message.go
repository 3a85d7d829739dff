package speech

import "time"

// Server message types (api.md, Speech).
const (
	TypeConnected                   = "connected"
	TypePong                        = "pong"
	TypeHeartbeat                   = "heartbeat"
	TypeTranscriptionStarted        = "transcription_started"
	TypeTranscriptionAlreadyStarted = "transcription_already_started"
	TypeTranscription               = "transcription"
	TypeFinal                       = "final"
	TypeTranscriptionStopped        = "transcription_stopped"
	TypeStatus                      = "status"
	TypeError                       = "error"
	TypeUnknownCommand              = "unknown_command"
)

// Client command types.
const (
	CmdPing  = "ping"
	CmdStart = "start_transcription"
	CmdStop  = "stop_transcription"
	CmdState = "get_status"
)

// Result statuses, as iFlytek numbers them: the first result of a
// transcription, a later partial one, the last one.
const (
	ResultFirst   = 0
	ResultPartial = 1
	ResultLast    = 2
)

// Message is every server → client message. Transcript fields are filled
// on transcription, final and status messages.
type Message struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	Data          any    `json:"data"`
	FullText      string `json:"fullText"`
	CommittedText string `json:"committedText"`
	LiveText      string `json:"liveText"`
	Revision      int    `json:"revision"`
	ResultStatus  int    `json:"resultStatus"`
	SegmentID     int    `json:"segmentId"`
	// Timestamp is RFC 3339 UTC with milliseconds.
	Timestamp string `json:"timestamp"`
}

// Command is a client text frame.
type Command struct {
	Type string `json:"type"`
	// Language optionally names the spoken language of a
	// start_transcription ("en", "zh-CN"); a recogniser that cannot
	// recognise it refuses with reason unsupported_language.
	Language string `json:"language,omitempty"`
}

// Capabilities is the answer of GET /speech/capabilities.
type Capabilities struct {
	Provider  string   `json:"provider"`
	Languages []string `json:"languages"`
}

// Status is the data of a status message.
type Status struct {
	UserID       string `json:"userId"`
	Provider     string `json:"provider"`
	Transcribing bool   `json:"transcribing"`
	// QueuedAudioBytes is audio received but not yet recognised.
	QueuedAudioBytes int64 `json:"queuedAudioBytes"`
}

func newMessage(typ, text string) Message {
	return Message{Type: typ, Message: text, Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}
}

func (m Message) withSnapshot(s Snapshot) Message {
	m.FullText, m.CommittedText, m.LiveText = s.Full, s.Committed, s.Live
	m.Revision, m.SegmentID = s.Revision, s.Segment
	return m
}
