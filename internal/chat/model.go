// Package chat is AI chat: conversations that belong to a user, their
// message history with an atomic per-conversation sequence, the context
// window sent to the model, and answers streamed as server-sent events.
//
// The same machinery serves agent sessions (package agent): a conversation
// with an AgentID is an agent session, seen only through the agent
// endpoints (ScopeAgent), and the agent package supplies its own Profile
// (system prompt, model, files) for each turn.
package chat

import (
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// Status of a conversation.
const (
	StatusActive = "active"
	StatusEnded  = "ended"
)

// Message types (api.md).
const (
	TypeUser = 1
	TypeAI   = 2
)

// Scope says which conversations an endpoint sees: plain chats or agent
// sessions. A conversation is never visible through the other scope.
type Scope int

// The scopes.
const (
	ScopeChat Scope = iota
	ScopeAgent
)

// Limits on titles.
const (
	// TitlePrefixChars is how much of the first message becomes the title.
	TitlePrefixChars = 20
	// MaxTitleChars bounds a title set by rename.
	MaxTitleChars = 100
)

// DefaultSystemPrompt is used when the provider configuration has none.
const DefaultSystemPrompt = "You are a helpful, concise assistant. Answer in the language of the user."

// Why an answer ended before the model finished it (MessageView.StopReason).
const (
	StopUser     = "user"     // the user stopped it (or the client went away)
	StopTimeout  = "timeout"  // chat.stream-timeout
	StopIdle     = "idle"     // the model sent nothing for chat.stream-idle-timeout
	StopShutdown = "shutdown" // the server was shutting down
)

// Markers stored in the error_message column of answers that did not
// complete: "stopped:" and the stop reason. Model failures store their
// message instead.
const (
	ErrMsgDisconnected = "stopped:" + StopUser
	ErrMsgTimeout      = "stopped:" + StopTimeout
	ErrMsgIdle         = "stopped:" + StopIdle
	ErrMsgShutdown     = "stopped:" + StopShutdown
)

// legacyStops are the sentences stored before the markers, read the same.
var legacyStops = map[string]string{
	"client disconnected; partial answer":  StopUser,
	"the answer timed out; partial answer": StopTimeout,
	"server shutting down; partial answer": StopShutdown,
}

// StopReason returns why the answer m ended early, "" when it did not.
func (m Message) StopReason() string {
	if r, ok := strings.CutPrefix(m.ErrorMessage, "stopped:"); ok {
		return r
	}
	return legacyStops[m.ErrorMessage]
}

// ErrClientGone is returned by a chunk callback when the client can no
// longer be written to; the turn is then saved as a disconnection.
var ErrClientGone = errors.New("chat: client disconnected")

// Conversation is one chat or agent session.
type Conversation struct {
	ID           string
	UserID       string
	AgentID      string // "" for a plain chat
	AgentName    string
	AIID         string // provider configuration; "default" or "" is the default provider
	AIName       string
	Title        string
	Status       string
	MessageCount int
	// TotalTokens sums the token counts of the messages; filled by lists.
	TotalTokens   int64
	LastMessageAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Message is one stored message.
type Message struct {
	ID             string
	ConversationID string
	UserID         string
	Seq            int64
	Type           int
	Content        string
	Reasoning      string
	TokenCount     int
	ResponseTimeMs int64
	ErrorMessage   string
	Offline        bool
	CreatedAt      time.Time
}

// ConversationFilter narrows a list of conversations.
type ConversationFilter struct {
	Scope   Scope
	AIID    string // chat: only conversations with this provider configuration
	Keyword string // title or agent name contains it
	Status  string // "" or a status
}

// MessageFilter narrows a page of messages.
type MessageFilter struct {
	Scope          Scope
	ConversationID string // "" for all the caller's conversations in scope
}

// DeriveTitle makes a conversation title from the first message: its first
// TitlePrefixChars characters (whitespace collapsed) and "..." when it is
// longer; "" (untitled) when there is no text. An untitled conversation is
// stored with an empty title, which clients show as a placeholder in the
// reader's language, and is named by its first message (Prepare).
func DeriveTitle(first string) string {
	s := strings.Join(strings.Fields(first), " ")
	if s == "" {
		return ""
	}
	if utf8.RuneCountInString(s) <= TitlePrefixChars {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:TitlePrefixChars])) + "..."
}

// ValidateTitle checks a new title and returns it trimmed.
func ValidateTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	switch {
	case t == "":
		return "", apperr.Invalid("title is required")
	case utf8.RuneCountInString(t) > MaxTitleChars:
		return "", apperr.Invalid("title must be at most %d characters", MaxTitleChars)
	case strings.ContainsAny(t, "\r\n"):
		return "", apperr.Invalid("title must be one line")
	}
	return t, nil
}

// messageOverhead is the token cost counted for each message besides its
// text (role markers and separators in the chat template).
const messageOverhead = 4

// EstimateTokens estimates the tokens of s deterministically, without a
// tokenizer: each CJK character (Han, kana, Hangul) counts as one token and
// every other four characters (runes) as one, rounded up. Real tokenizers
// give about that for English prose and somewhat less for Chinese, so the
// estimate errs on the side of sending less history.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// messageTokens is the estimated cost of one message in the context.
func messageTokens(m llm.Message) int { return EstimateTokens(m.Content) + messageOverhead }

// BuildContext returns the messages sent to the model: the system prompt
// (when not empty), as much history as fits in budget tokens, newest kept
// and oldest dropped first, and the new user message. The system prompt and
// the user message are always sent, even when they alone exceed the budget.
// history must be in sequence order; messages with no content (failed
// answers) are skipped. A budget of zero or less means no history.
func BuildContext(system string, history []Message, user string, budget int) []llm.Message {
	var head []llm.Message
	used := 0
	if system != "" {
		head = append(head, llm.Message{Role: llm.RoleSystem, Content: system})
		used += messageTokens(head[0])
	}
	last := llm.Message{Role: llm.RoleUser, Content: user}
	used += messageTokens(last)

	var kept []llm.Message // newest first
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i]
		if strings.TrimSpace(h.Content) == "" {
			continue
		}
		m := llm.Message{Role: llm.RoleUser, Content: h.Content}
		if h.Type == TypeAI {
			m.Role = llm.RoleAssistant
		}
		cost := messageTokens(m)
		if used+cost > budget {
			break
		}
		used += cost
		kept = append(kept, m)
	}
	out := make([]llm.Message, 0, len(head)+len(kept)+1)
	out = append(out, head...)
	for i := len(kept) - 1; i >= 0; i-- {
		out = append(out, kept[i])
	}
	return append(out, last)
}

// Result is the outcome of a streamed turn.
type Result struct {
	MessageSeq int64 `json:"messageSeq"`
	TokenCount int   `json:"tokenCount"`
	Offline    bool  `json:"offline"`
}

// Profile is what a turn talks to: the provider and the prompt settings.
type Profile struct {
	Provider     llm.Provider
	AIID         string
	AIName       string
	SystemPrompt string
	Model        string
	Temperature  *float64
	MaxTokens    int
}

// timeFormat is RFC 3339 in UTC with milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

// ConversationView is a conversation as the API shows it.
type ConversationView struct {
	SessionID string `json:"sessionId"`
	AIID      string `json:"aiId"`
	AIName    string `json:"aiName"`
	AgentID   string `json:"agentId,omitempty"`
	AgentName string `json:"agentName,omitempty"`
	Title     string `json:"title"`
	// ConversationTitle repeats Title under the original's name.
	ConversationTitle string  `json:"conversationTitle"`
	Status            string  `json:"status"`
	MessageCount      int     `json:"messageCount"`
	TotalTokens       int64   `json:"totalTokens"`
	LastMessageTime   *string `json:"lastMessageTime"`
	CreateTime        string  `json:"createTime"`
	UpdateTime        string  `json:"updateTime"`
}

// ViewOfConversation converts c for the API.
func ViewOfConversation(c Conversation) ConversationView {
	v := ConversationView{SessionID: c.ID, AIID: c.AIID, AIName: c.AIName, AgentID: c.AgentID, AgentName: c.AgentName,
		Title: c.Title, ConversationTitle: c.Title, Status: c.Status, MessageCount: c.MessageCount, TotalTokens: c.TotalTokens,
		CreateTime: formatTime(c.CreatedAt), UpdateTime: formatTime(c.UpdatedAt)}
	if c.LastMessageAt != nil {
		s := formatTime(*c.LastMessageAt)
		v.LastMessageTime = &s
	}
	return v
}

// MessageView is a message as the API shows it.
type MessageView struct {
	ID               string  `json:"id"`
	SessionID        string  `json:"sessionId"`
	MessageType      int     `json:"messageType"`
	MessageContent   string  `json:"messageContent"`
	ReasoningContent *string `json:"reasoningContent"`
	MessageSeq       int64   `json:"messageSeq"`
	TokenCount       int     `json:"tokenCount"`
	ResponseTime     int64   `json:"responseTime"`
	// ErrorMessage says why the model failed; null for a complete answer
	// and for one that stopped early (see Stopped, StopReason).
	ErrorMessage *string `json:"errorMessage"`
	// Stopped is true when the user stopped the answer: the content is
	// what had arrived by then.
	Stopped bool `json:"stopped"`
	// Incomplete is true for every answer that ended early; StopReason
	// says why: user, timeout, idle (the model stopped sending) or shutdown.
	Incomplete bool   `json:"incomplete"`
	StopReason string `json:"stopReason,omitempty"`
	Offline    bool   `json:"offline"`
	CreateTime string `json:"createTime"`
}

// ViewOfMessage converts m for the API.
func ViewOfMessage(m Message) MessageView {
	v := MessageView{ID: m.ID, SessionID: m.ConversationID, MessageType: m.Type, MessageContent: m.Content,
		MessageSeq: m.Seq, TokenCount: m.TokenCount, ResponseTime: m.ResponseTimeMs, Offline: m.Offline,
		CreateTime: formatTime(m.CreatedAt)}
	if m.Reasoning != "" {
		v.ReasoningContent = &m.Reasoning
	}
	if r := m.StopReason(); r != "" {
		v.Incomplete, v.StopReason, v.Stopped = true, r, r == StopUser
	} else if m.ErrorMessage != "" {
		v.ErrorMessage = &m.ErrorMessage
	}
	return v
}

// Created is the answer to creating a conversation.
type Created struct {
	SessionID         string `json:"sessionId"`
	ConversationTitle string `json:"conversationTitle"`
}

// ViewsOfMessages converts msgs for the API (an empty list, never null).
func ViewsOfMessages(msgs []Message) []MessageView {
	out := make([]MessageView, len(msgs))
	for i, m := range msgs {
		out[i] = ViewOfMessage(m)
	}
	return out
}
