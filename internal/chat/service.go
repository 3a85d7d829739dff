package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/airouting"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Store persists conversations and messages.
type Store interface {
	CreateConversation(ctx context.Context, c Conversation) error
	GetConversation(ctx context.Context, userID, id string, scope Scope) (Conversation, error)
	ListConversations(ctx context.Context, userID string, f ConversationFilter, p page.Request) (page.Result[Conversation], error)
	Rename(ctx context.Context, userID, id string, scope Scope, title string, now time.Time) error
	End(ctx context.Context, userID, id string, scope Scope, now time.Time) error
	Delete(ctx context.Context, userID, id string, scope Scope, now time.Time) error
	AddExchange(ctx context.Context, m Message, scope Scope) (Message, error)
	AddReply(ctx context.Context, m Message) error
	TakeLastAnswer(ctx context.Context, userID, id string, scope Scope, now time.Time) (Message, error)
	Recent(ctx context.Context, conversationID string, seq int64, limit int) ([]Message, error)
	History(ctx context.Context, userID, conversationID string, limit int) ([]Message, error)
	MessagePage(ctx context.Context, userID string, f MessageFilter, p page.Request) (page.Result[Message], error)
}

// Resolver turns a provider configuration id into a ready provider
// (aiconfig.Service).
type Resolver interface {
	Resolve(ctx context.Context, id string) (aiconfig.Resolved, error)
}

// ProfileFunc decides the provider and prompt of a turn in conv; aiID is
// the provider configuration the request names, if any.
type ProfileFunc func(ctx context.Context, conv Conversation, aiID string) (Profile, error)

// Config tunes chat.
type Config struct {
	// MaxMessageChars bounds one user message (runes).
	MaxMessageChars int
	// ContextTokens is the estimated token budget of the messages sent to
	// the model (see BuildContext and EstimateTokens).
	ContextTokens int
	// StreamTimeout bounds one whole streamed answer.
	StreamTimeout time.Duration
	// IdleTimeout ends a streamed answer when the model sends nothing
	// (no chunk) for that long: it is saved as incomplete (StopIdle).
	IdleTimeout time.Duration
	// StallNotice is how long the page waits without a chunk before it
	// says the answer stalls; the server only passes it on (ClientConfig).
	StallNotice time.Duration
}

// Defaults used when a Config field is zero.
const (
	DefaultMaxMessageChars = 10000
	DefaultContextTokens   = 6000
	DefaultStreamTimeout   = 180 * time.Second
	DefaultIdleTimeout     = 60 * time.Second
	DefaultStallNotice     = 20 * time.Second
)

// historyLimit bounds the history read to build the context and returned
// by History.
const (
	contextHistoryLimit = 200
	historyLimit        = 10000
)

// saveTimeout bounds saving an answer after the request context is gone.
const saveTimeout = 10 * time.Second

// Service runs conversations.
type Service struct {
	store    Store
	resolver Resolver
	cfg      Config
	now      func() time.Time

	// stopping is cancelled by Close: answers still streaming end early
	// and are saved as partial.
	stopping context.Context
	stop     context.CancelFunc

	mu       sync.Mutex     // protects closed and the Add side of inflight
	closed   bool           // set by Close; no turn starts afterwards
	inflight sync.WaitGroup // turns in Run
}

// NewService returns a chat service.
func NewService(store Store, resolver Resolver, cfg Config) *Service {
	if cfg.MaxMessageChars <= 0 {
		cfg.MaxMessageChars = DefaultMaxMessageChars
	}
	if cfg.ContextTokens <= 0 {
		cfg.ContextTokens = DefaultContextTokens
	}
	if cfg.StreamTimeout <= 0 {
		cfg.StreamTimeout = DefaultStreamTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.StallNotice <= 0 {
		cfg.StallNotice = DefaultStallNotice
	}
	stopping, stop := context.WithCancel(context.Background())
	return &Service{store: store, resolver: resolver, cfg: cfg, now: func() time.Time { return time.Now().UTC() },
		stopping: stopping, stop: stop}
}

// Close ends the answers still streaming (they are saved as partial,
// marked ErrMsgShutdown) and waits up to the save timeout for them to be
// stored. Call it after the HTTP server has drained, before the database
// closes.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(saveTimeout):
		return fmt.Errorf("chat: answers still streaming after %s", saveTimeout)
	}
}

// enter registers a turn in Run; false once the service is closed.
func (s *Service) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// CreateInput starts a plain chat.
type CreateInput struct {
	AIID         string `json:"aiId"`
	FirstMessage string `json:"firstMessage"`
}

// Create starts a chat with the provider configuration in.AIID (default
// when empty). The first message only names the conversation: the client
// sends it with Chat.
func (s *Service) Create(ctx context.Context, userID string, in CreateInput) (Conversation, error) {
	if err := s.checkMessage(in.FirstMessage, "firstMessage", true); err != nil {
		return Conversation{}, err
	}
	r, err := s.resolve(ctx, in.AIID)
	if err != nil {
		return Conversation{}, err
	}
	return s.Open(ctx, Conversation{UserID: userID, AIID: r.ConfigID, AIName: r.Name, Title: DeriveTitle(in.FirstMessage)})
}

// Open stores a new active conversation from c (its user, agent and
// provider fields); it fills the id, status and times.
func (s *Service) Open(ctx context.Context, c Conversation) (Conversation, error) {
	c.ID = ids.New()
	c.Status = StatusActive
	c.CreatedAt = s.now()
	c.UpdatedAt = c.CreatedAt
	if err := s.store.CreateConversation(ctx, c); err != nil {
		return Conversation{}, err
	}
	return c, nil
}

// resolve resolves a provider configuration id, trimming it first.
func (s *Service) resolve(ctx context.Context, aiID string) (aiconfig.Resolved, error) {
	aiID = strings.TrimSpace(aiID)
	if len(aiID) > 64 {
		return aiconfig.Resolved{}, apperr.Invalid("aiId must be at most 64 characters")
	}
	return s.resolver.Resolve(ctx, aiID)
}

// checkMessage validates a user message; empty is allowed when optional.
func (s *Service) checkMessage(text, field string, optional bool) error {
	if strings.TrimSpace(text) == "" {
		if optional {
			return nil
		}
		return apperr.Invalid("%s is required", field)
	}
	if n := utf8.RuneCountInString(text); n > s.cfg.MaxMessageChars {
		return apperr.Invalid("%s is %d characters; at most %d allowed", field, n, s.cfg.MaxMessageChars)
	}
	return nil
}

// CheckFirstMessage validates the optional first message of a new
// conversation against the message limit.
func (s *Service) CheckFirstMessage(text string) error {
	return s.checkMessage(text, "firstMessage", true)
}

// Get returns the caller's conversation.
func (s *Service) Get(ctx context.Context, userID, id string, scope Scope) (Conversation, error) {
	return s.store.GetConversation(ctx, userID, id, scope)
}

// List returns a page of the caller's conversations.
func (s *Service) List(ctx context.Context, userID string, f ConversationFilter, p page.Request) (page.Result[Conversation], error) {
	f.AIID = strings.TrimSpace(f.AIID)
	f.Keyword = strings.TrimSpace(f.Keyword)
	f.Status = strings.ToLower(strings.TrimSpace(f.Status))
	switch {
	case len(f.AIID) > 64:
		return page.Result[Conversation]{}, apperr.Invalid("aiId must be at most 64 characters")
	case utf8.RuneCountInString(f.Keyword) > 100:
		return page.Result[Conversation]{}, apperr.Invalid("keyword must be at most 100 characters")
	case f.Status != "" && f.Status != StatusActive && f.Status != StatusEnded:
		return page.Result[Conversation]{}, apperr.Invalid("status must be %s or %s, not %q", StatusActive, StatusEnded, f.Status)
	}
	return s.store.ListConversations(ctx, userID, f, p.Normalize())
}

// Rename sets a conversation's title.
func (s *Service) Rename(ctx context.Context, userID, id string, scope Scope, title string) (Conversation, error) {
	t, err := ValidateTitle(title)
	if err != nil {
		return Conversation{}, err
	}
	if err := s.store.Rename(ctx, userID, id, scope, t, s.now()); err != nil {
		return Conversation{}, err
	}
	return s.store.GetConversation(ctx, userID, id, scope)
}

// End ends a conversation: it accepts no more messages.
func (s *Service) End(ctx context.Context, userID, id string, scope Scope) (Conversation, error) {
	if err := s.store.End(ctx, userID, id, scope, s.now()); err != nil {
		return Conversation{}, err
	}
	return s.store.GetConversation(ctx, userID, id, scope)
}

// Delete soft-deletes a conversation and its messages.
func (s *Service) Delete(ctx context.Context, userID, id string, scope Scope) error {
	return s.store.Delete(ctx, userID, id, scope, s.now())
}

// History returns every message of the caller's conversation in order.
func (s *Service) History(ctx context.Context, userID, id string, scope Scope) ([]Message, error) {
	if _, err := s.store.GetConversation(ctx, userID, id, scope); err != nil {
		return nil, err
	}
	return s.store.History(ctx, userID, id, historyLimit)
}

// MessagePage returns a page of the caller's messages, newest first.
func (s *Service) MessagePage(ctx context.Context, userID string, f MessageFilter, p page.Request) (page.Result[Message], error) {
	f.ConversationID = strings.TrimSpace(f.ConversationID)
	if f.ConversationID != "" {
		if _, err := s.store.GetConversation(ctx, userID, f.ConversationID, f.Scope); err != nil {
			return page.Result[Message]{}, err
		}
	}
	return s.store.MessagePage(ctx, userID, f, p.Normalize())
}

// SendInput is one user message.
type SendInput struct {
	InputMessage string `json:"inputMessage"`
	AIID         string `json:"aiId"`
}

// ChatProfile is the ProfileFunc of plain chats: the provider configuration
// the request names, else the conversation's, with its system prompt (or
// DefaultSystemPrompt), model, temperature and token limit.
func (s *Service) ChatProfile(ctx context.Context, conv Conversation, aiID string) (Profile, error) {
	if strings.TrimSpace(aiID) == "" {
		aiID = conv.AIID
	}
	r, err := s.resolve(ctx, aiID)
	if err != nil {
		return Profile{}, err
	}
	p := ProfileOf(r)
	if strings.TrimSpace(p.SystemPrompt) == "" {
		p.SystemPrompt = DefaultSystemPrompt
	}
	return p, nil
}

// ProfileOf converts a resolved provider configuration.
func ProfileOf(r aiconfig.Resolved) Profile {
	return Profile{Provider: r.Provider, AIID: r.ConfigID, AIName: r.Name, SystemPrompt: r.SystemPrompt,
		Model: r.Model, Temperature: r.Temperature, MaxTokens: r.MaxTokens}
}

// Turn is one exchange whose user message is stored and whose answer is
// yet to be streamed by Run.
type Turn struct {
	svc     *Service
	conv    Conversation
	user    Message
	profile Profile
	request llm.Request
}

// UserMessage returns the stored user message.
func (t *Turn) UserMessage() Message { return t.user }

// Request returns the request that Run sends to the model.
func (t *Turn) Request() llm.Request { return t.request }

// Prepare validates a message to the caller's conversation, resolves the
// profile, stores the user message (reserving the answer's sequence
// number) and builds the model request. Every error here comes before any
// answer is streamed, so the caller can still send a JSON error.
func (s *Service) Prepare(ctx context.Context, userID, id string, scope Scope, in SendInput, profile ProfileFunc) (*Turn, error) {
	if err := s.checkMessage(in.InputMessage, "inputMessage", false); err != nil {
		return nil, err
	}
	conv, prof, err := s.activeProfile(ctx, userID, id, scope, in.AIID, profile)
	if err != nil {
		return nil, err
	}
	user, err := s.store.AddExchange(ctx, Message{ID: ids.New(), ConversationID: conv.ID, UserID: userID,
		Type: TypeUser, Content: in.InputMessage, TokenCount: EstimateTokens(in.InputMessage),
		CreatedAt: s.now()}, scope)
	if err != nil {
		return nil, err
	}
	// A conversation opened without a message (an agent session started
	// by a file upload) is named by the first message sent to it.
	if conv.Title == "" {
		title := DeriveTitle(in.InputMessage)
		if err := s.store.Rename(ctx, userID, conv.ID, scope, title, s.now()); err != nil {
			return nil, err
		}
		conv.Title = title
	}
	return s.turn(ctx, conv, prof, user)
}

// activeProfile finds the caller's active conversation id and resolves its
// profile (profile, or the chat default when nil) for aiID.
func (s *Service) activeProfile(ctx context.Context, userID, id string, scope Scope, aiID string, profile ProfileFunc) (Conversation, Profile, error) {
	conv, err := s.store.GetConversation(ctx, userID, id, scope)
	if err != nil {
		return Conversation{}, Profile{}, err
	}
	if conv.Status != StatusActive {
		return Conversation{}, Profile{}, errEnded
	}
	if profile == nil {
		profile = s.ChatProfile
	}
	prof, err := profile(ctx, conv, aiID)
	if err != nil {
		return Conversation{}, Profile{}, err
	}
	return conv, prof, nil
}

// turn builds the turn that answers user (stored) with the history before
// it.
func (s *Service) turn(ctx context.Context, conv Conversation, prof Profile, user Message) (*Turn, error) {
	history, err := s.store.Recent(ctx, conv.ID, user.Seq, contextHistoryLimit)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Stage: llm.StageChat, Model: prof.Model, Temperature: prof.Temperature, MaxTokens: prof.MaxTokens,
		Messages: BuildContext(prof.SystemPrompt, history, user.Content, s.cfg.ContextTokens)}
	return &Turn{svc: s, conv: conv, user: user, profile: prof, request: req}, nil
}

// RegenerateInput asks for the last answer again, optionally from another
// provider configuration.
type RegenerateInput struct {
	AIID string `json:"aiId"`
}

// PrepareRegenerate removes the last answer of the caller's conversation
// and builds the turn that writes it again from the same user message and
// the history before it; Run stores the new answer under the old one's
// sequence number. With no answer yet, or one still being written, it is a
// 409.
func (s *Service) PrepareRegenerate(ctx context.Context, userID, id string, scope Scope, in RegenerateInput, profile ProfileFunc) (*Turn, error) {
	conv, prof, err := s.activeProfile(ctx, userID, id, scope, in.AIID, profile)
	if err != nil {
		return nil, err
	}
	user, err := s.store.TakeLastAnswer(ctx, userID, conv.ID, scope, s.now())
	if err != nil {
		return nil, err
	}
	return s.turn(ctx, conv, prof, user)
}

// Run streams the answer, calling onChunk for each chunk in order, and
// stores it under the reserved sequence number whatever happens: complete,
// or partial and marked when the client went away (ctx cancelled, or
// onChunk returned ErrClientGone), the answer timed out or the model
// failed. It returns the result, and the error that ended the stream early.
func (t *Turn) Run(ctx context.Context, onChunk func(llm.Chunk) error) (Result, error) {
	s := t.svc
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StreamTimeout)
	defer cancel()
	sctx = airouting.WithConversation(sctx, t.conv.ID) // for usage accounting
	// A model that stops sending ends the answer after IdleTimeout without
	// a chunk, rather than holding the client until the whole-answer
	// timeout.
	ictx, cancelIdle := context.WithCancelCause(sctx)
	defer cancelIdle(nil)
	idle := time.AfterFunc(s.cfg.IdleTimeout, func() { cancelIdle(errIdle) })
	defer idle.Stop()
	var resp llm.Response
	var err error
	if s.enter() {
		defer s.inflight.Done()
		defer context.AfterFunc(s.stopping, cancel)()
		resp, err = t.profile.Provider.Stream(ictx, t.request, func(ch llm.Chunk) error {
			idle.Reset(s.cfg.IdleTimeout)
			return onChunk(ch)
		})
	} else {
		err = s.stopping.Err()
	}

	reply := Message{ID: ids.New(), ConversationID: t.conv.ID, UserID: t.user.UserID, Seq: t.user.Seq + 1,
		Type: TypeAI, Content: resp.Content, Reasoning: resp.Reasoning, TokenCount: resp.CompletionTokens,
		ResponseTimeMs: time.Since(start).Milliseconds(), Offline: resp.Offline || t.profile.Provider.Offline(),
		CreatedAt: s.now()}
	if reply.TokenCount <= 0 {
		reply.TokenCount = EstimateTokens(resp.Content) + EstimateTokens(resp.Reasoning)
	}
	switch {
	case err == nil:
	case s.stopping.Err() != nil:
		reply.ErrorMessage = ErrMsgShutdown
		err = apperr.New(apperr.KindUnavailable, "the server is shutting down; the answer is incomplete").WithCause(err)
	case ctx.Err() != nil || errors.Is(err, ErrClientGone):
		reply.ErrorMessage = ErrMsgDisconnected
	case sctx.Err() == nil && errors.Is(context.Cause(ictx), errIdle):
		reply.ErrorMessage = ErrMsgIdle
		err = apperr.New(apperr.KindTimeout, "the model stopped sending for %s; the answer is incomplete, try again", s.cfg.IdleTimeout).
			WithCode(apperr.CodeAITimeout).WithCause(err)
	case sctx.Err() != nil:
		reply.ErrorMessage = ErrMsgTimeout
		err = apperr.New(apperr.KindTimeout, "the answer did not finish within %s", s.cfg.StreamTimeout).
			WithCode(apperr.CodeAITimeout).WithCause(err)
	default:
		reply.ErrorMessage = truncateRunes("model error: "+errorMessage(err), 500)
	}

	// The request context may be gone (a disconnect): save regardless.
	saveCtx, cancelSave := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancelSave()
	if serr := s.store.AddReply(saveCtx, reply); serr != nil {
		if err == nil {
			err = serr
		} else {
			err = fmt.Errorf("%w (and saving the answer failed: %v)", err, serr)
		}
	}
	return Result{MessageSeq: reply.Seq, TokenCount: reply.TokenCount, Offline: reply.Offline}, err
}

// errIdle is the cause of an answer ended by IdleTimeout.
var errIdle = errors.New("chat: the model stopped sending")

// ClientConfig is what the chat page needs to know of the server's
// settings (GET /ai/config).
type ClientConfig struct {
	// StallNoticeMs: say the answer stalls after this long without a chunk.
	StallNoticeMs int64 `json:"stallNoticeMs"`
	// StreamIdleTimeoutMs: the server ends an answer after this long
	// without a chunk.
	StreamIdleTimeoutMs int64 `json:"streamIdleTimeoutMs"`
	// StreamTimeoutMs bounds a whole answer.
	StreamTimeoutMs int64 `json:"streamTimeoutMs"`
	MaxMessageChars int   `json:"maxMessageChars"`
}

// ClientConfig returns the settings the chat page reads.
func (s *Service) ClientConfig() ClientConfig {
	return ClientConfig{StallNoticeMs: s.cfg.StallNotice.Milliseconds(), StreamIdleTimeoutMs: s.cfg.IdleTimeout.Milliseconds(),
		StreamTimeoutMs: s.cfg.StreamTimeout.Milliseconds(), MaxMessageChars: s.cfg.MaxMessageChars}
}

// errorMessage is the client-safe text of err.
func errorMessage(err error) string {
	if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal {
		return e.Message
	}
	return "internal error"
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
