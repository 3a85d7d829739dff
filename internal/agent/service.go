package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Store persists agents and files.
type Store interface {
	Create(ctx context.Context, a Agent) error
	Update(ctx context.Context, a Agent) error
	Delete(ctx context.Context, id string) error
	Get(ctx context.Context, id string) (Agent, error)
	ByName(ctx context.Context, name string) (Agent, error)
	Page(ctx context.Context, p page.Request, f Filter) (page.Result[Agent], error)
	CreateFile(ctx context.Context, f File) error
	SessionFiles(ctx context.Context, userID, sessionID string, limit int) ([]File, error)
	Files(ctx context.Context, userID, sessionID string, limit int) ([]File, error)
	File(ctx context.Context, userID, id string) (File, error)
	DeleteFile(ctx context.Context, userID, id string) error
}

// Resolver turns a provider configuration id into a ready provider
// (aiconfig.Service).
type Resolver interface {
	Resolve(ctx context.Context, id string) (aiconfig.Resolved, error)
}

// Config tunes agents.
type Config struct {
	// DefaultAgentName names the agent of sessions that name none; when no
	// agent has that name, a built-in one is created on first use.
	DefaultAgentName string
	// MaxFileBytes bounds one uploaded file.
	MaxFileBytes int64
	// FileContextChars bounds the file text given to the agent per turn.
	FileContextChars int
	// UploadDir holds the uploaded bytes, under one directory per user.
	UploadDir string
}

// Defaults used when a Config field is zero.
const (
	DefaultMaxFileBytes     = 20 << 20
	DefaultFileContextChars = 12000
)

// sessionFilesLimit bounds the files read for one turn.
const sessionFilesLimit = 50

// MaxBizTypeChars bounds the free-form bizType of an upload.
const MaxBizTypeChars = 32

// validID matches the ids this service puts in paths.
var validID = regexp.MustCompile(`^[0-9a-z]{1,32}$`)

// Service manages agents and runs agent sessions on a chat service.
type Service struct {
	store    Store
	chats    *chat.Service
	resolver Resolver
	cfg      Config
	now      func() time.Time
}

// NewService returns an agent service. UploadDir is required.
func NewService(store Store, chats *chat.Service, resolver Resolver, cfg Config) (*Service, error) {
	if cfg.UploadDir == "" {
		return nil, fmt.Errorf("agent: upload directory is required")
	}
	if strings.TrimSpace(cfg.DefaultAgentName) == "" {
		cfg.DefaultAgentName = DefaultAgentName
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.FileContextChars <= 0 {
		cfg.FileContextChars = DefaultFileContextChars
	}
	return &Service{store: store, chats: chats, resolver: resolver, cfg: cfg,
		now: func() time.Time { return time.Now().UTC() }}, nil
}

// Chats returns the chat service the sessions run on.
func (s *Service) Chats() *chat.Service { return s.chats }

// MaxFileBytes is the upload limit.
func (s *Service) MaxFileBytes() int64 { return s.cfg.MaxFileBytes }

// Create stores a new agent made by actor.
func (s *Service) Create(ctx context.Context, actorID string, in Input) (Agent, error) {
	a := Agent{ID: ids.New(), CreatedBy: actorID}
	in.apply(&a)
	if err := s.check(ctx, a); err != nil {
		return Agent{}, err
	}
	a.CreatedAt = s.now()
	a.UpdatedAt = a.CreatedAt
	if err := s.store.Create(ctx, a); err != nil {
		return Agent{}, err
	}
	return a, nil
}

// check validates a and that its provider configuration can be used.
func (s *Service) check(ctx context.Context, a Agent) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if _, err := s.resolver.Resolve(ctx, a.AIID); err != nil {
		if apperr.Is(err, apperr.KindNotFound) {
			return apperr.Invalid("aiId %q is not an enabled AI provider configuration; use \"\" for the default", a.AIID)
		}
		return err
	}
	return nil
}

// Update changes the fields set in in on the agent in.ID.
func (s *Service) Update(ctx context.Context, in Input) (Agent, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		return Agent{}, apperr.Invalid("id is required")
	}
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Agent{}, err
	}
	in.apply(&a)
	if err := s.check(ctx, a); err != nil {
		return Agent{}, err
	}
	a.UpdatedAt = s.now()
	if err := s.store.Update(ctx, a); err != nil {
		return Agent{}, err
	}
	return a, nil
}

// Delete removes an agent; its sessions can no longer chat.
func (s *Service) Delete(ctx context.Context, id string) error { return s.store.Delete(ctx, id) }

// Get returns one agent.
func (s *Service) Get(ctx context.Context, id string) (Agent, error) { return s.store.Get(ctx, id) }

// ByName returns the agent named name.
func (s *Service) ByName(ctx context.Context, name string) (Agent, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameChars {
		return Agent{}, apperr.Invalid("name must be 1 to %d characters", MaxNameChars)
	}
	return s.store.ByName(ctx, name)
}

// Page lists agents.
func (s *Service) Page(ctx context.Context, p page.Request, f Filter) (page.Result[Agent], error) {
	f.Name = strings.TrimSpace(f.Name)
	if utf8.RuneCountInString(f.Name) > MaxNameChars {
		return page.Result[Agent]{}, apperr.Invalid("agentName filter must be at most %d characters", MaxNameChars)
	}
	return s.store.Page(ctx, p.Normalize(), f)
}

// defaultAgent returns the agent named by the configuration, creating the
// built-in general agent (on the default provider) when none exists. Two
// instances racing to create it both end up with the one that won.
func (s *Service) defaultAgent(ctx context.Context) (Agent, error) {
	a, err := s.store.ByName(ctx, s.cfg.DefaultAgentName)
	if err == nil || !apperr.Is(err, apperr.KindNotFound) {
		return a, err
	}
	now := s.now()
	a = Agent{ID: ids.New(), Name: s.cfg.DefaultAgentName, Description: "General-purpose assistant (built in).",
		SystemPrompt: BuiltinSystemPrompt, TagCodes: []int{99}, BuiltIn: true, CreatedAt: now, UpdatedAt: now}
	if err := s.store.Create(ctx, a); err != nil {
		if apperr.Is(err, apperr.KindConflict) {
			return s.store.ByName(ctx, s.cfg.DefaultAgentName)
		}
		return Agent{}, err
	}
	return a, nil
}

// SessionInput starts an agent session.
type SessionInput struct {
	AgentID      string `json:"agentId"`
	FirstMessage string `json:"firstMessage"`
}

// CreateSession starts a session of the caller with agent in.AgentID, or
// with the default agent. The first message names the session; the client
// sends it with Chat.
func (s *Service) CreateSession(ctx context.Context, userID string, in SessionInput) (chat.Conversation, error) {
	if err := s.chats.CheckFirstMessage(in.FirstMessage); err != nil {
		return chat.Conversation{}, err
	}
	var a Agent
	var err error
	if id := strings.TrimSpace(in.AgentID); id != "" {
		if len(id) > 64 {
			return chat.Conversation{}, apperr.Invalid("agentId must be at most 64 characters")
		}
		a, err = s.store.Get(ctx, id)
	} else {
		a, err = s.defaultAgent(ctx)
	}
	if err != nil {
		return chat.Conversation{}, err
	}
	r, err := s.resolver.Resolve(ctx, a.AIID)
	if err != nil {
		return chat.Conversation{}, err
	}
	return s.chats.Open(ctx, chat.Conversation{UserID: userID, AgentID: a.ID, AgentName: a.Name,
		AIID: r.ConfigID, AIName: r.Name, Title: chat.DeriveTitle(in.FirstMessage)})
}

// Prepare starts a turn of the caller's agent session (see chat.Prepare).
func (s *Service) Prepare(ctx context.Context, userID, sessionID string, in chat.SendInput) (*chat.Turn, error) {
	return s.chats.Prepare(ctx, userID, sessionID, chat.ScopeAgent, in, s.profile)
}

// profile is the chat.ProfileFunc of agent sessions: the agent's provider
// configuration, its system prompt (with the session's files appended, see
// FilesSection), and its model and temperature where set. The request's
// aiId is ignored: the agent decides.
func (s *Service) profile(ctx context.Context, conv chat.Conversation, _ string) (chat.Profile, error) {
	a, err := s.store.Get(ctx, conv.AgentID)
	if err != nil {
		if apperr.Is(err, apperr.KindNotFound) {
			return chat.Profile{}, apperr.Conflict("the agent of this session was deleted; start a new session").
				WithCode(apperr.CodeInvalidState)
		}
		return chat.Profile{}, err
	}
	r, err := s.resolver.Resolve(ctx, a.AIID)
	if err != nil {
		return chat.Profile{}, err
	}
	p := chat.ProfileOf(r)
	p.SystemPrompt = a.SystemPrompt
	if a.ModelName != "" {
		p.Model = a.ModelName
	}
	if a.Temperature != nil {
		p.Temperature = a.Temperature
	}
	files, err := s.store.SessionFiles(ctx, conv.UserID, conv.ID, sessionFilesLimit)
	if err != nil {
		return chat.Profile{}, err
	}
	if section := FilesSection(files, s.cfg.FileContextChars); section != "" {
		p.SystemPrompt = strings.TrimRight(p.SystemPrompt, "\n") + "\n\n" + section
	}
	return p, nil
}

// MaxListedFiles bounds a file list.
const MaxListedFiles = 200

// Files lists the caller's files, newest first: those of one session (which
// must be the caller's) or, with sessionID "", all of them (at most
// MaxListedFiles).
func (s *Service) Files(ctx context.Context, userID, sessionID string) ([]File, error) {
	sessionID = strings.TrimSpace(sessionID)
	if sessionID != "" {
		if len(sessionID) > 64 {
			return nil, apperr.Invalid("sessionId must be at most 64 characters")
		}
		if _, err := s.chats.Get(ctx, userID, sessionID, chat.ScopeAgent); err != nil {
			return nil, err
		}
	}
	return s.store.Files(ctx, userID, sessionID, MaxListedFiles)
}

// OpenFile returns the caller's file id and its bytes, which the caller
// closes. Another user's file is a 404.
func (s *Service) OpenFile(ctx context.Context, userID, id string) (File, *os.File, error) {
	if !validID.MatchString(id) || !validID.MatchString(userID) {
		return File{}, nil, errFileMissing
	}
	f, err := s.store.File(ctx, userID, id)
	if err != nil {
		return File{}, nil, err
	}
	data, err := os.Open(filepath.Join(s.cfg.UploadDir, userID, id))
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, nil, apperr.NotFound("the stored bytes of this file")
	}
	if err != nil {
		return File{}, nil, apperr.Internal(fmt.Errorf("open agent file: %w", err))
	}
	return f, data, nil
}

// DeleteFile removes the caller's file id: its row (so agents no longer see
// its text) and its bytes. Another user's file is a 404.
func (s *Service) DeleteFile(ctx context.Context, userID, id string) error {
	if !validID.MatchString(id) || !validID.MatchString(userID) {
		return errFileMissing
	}
	if err := s.store.DeleteFile(ctx, userID, id); err != nil {
		return err
	}
	// The row is gone, so the bytes can no longer be reached; a failure to
	// remove them leaves an orphan, not an error for the user.
	_ = os.Remove(filepath.Join(s.cfg.UploadDir, userID, id))
	return nil
}

// UploadInput is one uploaded file.
type UploadInput struct {
	SessionID string
	BizType   string
	FileName  string
	Data      []byte
}

// Upload extracts the text of a PDF, TXT, MD or DOCX file and keeps it for
// the caller: the bytes on disk under UploadDir/<userID>/<fileID> (never
// named after the client's file name), the text in the database. A file
// uploaded into a session (which must be the caller's) is given to the
// agent in that session's next turns.
func (s *Service) Upload(ctx context.Context, userID string, in UploadInput) (File, error) {
	in.SessionID = strings.TrimSpace(in.SessionID)
	in.BizType = strings.TrimSpace(in.BizType)
	if utf8.RuneCountInString(in.BizType) > MaxBizTypeChars {
		return File{}, apperr.Invalid("bizType must be at most %d characters", MaxBizTypeChars)
	}
	if int64(len(in.Data)) > s.cfg.MaxFileBytes {
		return File{}, apperr.New(apperr.KindTooLarge, "file is larger than %d bytes", s.cfg.MaxFileBytes)
	}
	if in.SessionID != "" {
		if len(in.SessionID) > 64 {
			return File{}, apperr.Invalid("sessionId must be at most 64 characters")
		}
		if _, err := s.chats.Get(ctx, userID, in.SessionID, chat.ScopeAgent); err != nil {
			return File{}, err
		}
	}
	if !validID.MatchString(userID) {
		return File{}, apperr.Internal(fmt.Errorf("agent upload: unexpected user id %q", userID))
	}
	doc, err := doctext.Extract(ctx, in.Data, in.FileName, doctext.Options{})
	if err != nil {
		return File{}, err
	}
	name := doctext.SanitizeName(in.FileName)
	if name == "" {
		name = "file." + string(doc.Kind)
	}
	sum := sha256.Sum256(in.Data)
	f := File{ID: ids.New(), UserID: userID, SessionID: in.SessionID, BizType: in.BizType, FileName: name,
		MIME: doc.MIME, Size: int64(len(in.Data)), SHA256: hex.EncodeToString(sum[:]),
		Chars: utf8.RuneCountInString(doc.Text), Truncated: doc.Truncated, Text: doc.Text, CreatedAt: s.now()}
	path, err := s.writeFile(userID, f.ID, in.Data)
	if err != nil {
		return File{}, err
	}
	if err := s.store.CreateFile(ctx, f); err != nil {
		_ = os.Remove(path)
		return File{}, err
	}
	return f, nil
}

// writeFile stores data as UploadDir/<userID>/<fileID>, atomically.
func (s *Service) writeFile(userID, fileID string, data []byte) (string, error) {
	dir := filepath.Join(s.cfg.UploadDir, userID)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", apperr.Internal(fmt.Errorf("create upload directory: %w", err))
	}
	path := filepath.Join(dir, fileID)
	tmp, err := os.CreateTemp(dir, fileID+".*.tmp")
	if err != nil {
		return "", apperr.Internal(fmt.Errorf("create upload file: %w", err))
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return "", apperr.Internal(fmt.Errorf("write upload file: %w", werr))
	}
	return path, nil
}
