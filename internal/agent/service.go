package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
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
	FileIDsInUse(ctx context.Context, ids []string) (map[string]bool, error)

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
	// Files keeps the uploaded bytes, under FileKey(user id, file id).
	Files *blobstore.Store
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

// NewService returns an agent service. Config.Files is required.
func NewService(store Store, chats *chat.Service, resolver Resolver, cfg Config) (*Service, error) {
	if cfg.Files == nil {
		return nil, fmt.Errorf("agent: Config.Files is required")
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

// PrepareRegenerate starts writing the last answer of the caller's agent
// session again, from the agent's current prompt, model and files (see
// chat.PrepareRegenerate).
func (s *Service) PrepareRegenerate(ctx context.Context, userID, sessionID string) (*chat.Turn, error) {
	return s.chats.PrepareRegenerate(ctx, userID, sessionID, chat.ScopeAgent, chat.RegenerateInput{}, s.profile)
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
func (s *Service) OpenFile(ctx context.Context, userID, id string) (File, *blobstore.Object, error) {
	if !validID.MatchString(id) || !validID.MatchString(userID) {
		return File{}, nil, errFileMissing
	}
	f, err := s.store.File(ctx, userID, id)
	if err != nil {
		return File{}, nil, err
	}
	data, err := s.openBlob(ctx, userID, id)
	if err != nil {
		return File{}, nil, err
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
	// remove them leaves an orphan for the sweep, not an error for the user.
	s.removeBlob(ctx, userID, id)
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
// the caller: the bytes in the file store under FileKey(userID, fileID) (never
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
	// The blob first, then the row that names it; a row that could not be
	// written takes its blob with it (or the orphan sweep does, when this
	// instance dies in between).
	key := FileKey(userID, f.ID)
	if err := s.cfg.Files.PutBytes(ctx, key, in.Data, doc.MIME); err != nil {
		return File{}, blobErr(err)
	}
	if err := s.store.CreateFile(ctx, f); err != nil {
		_ = s.cfg.Files.Delete(context.WithoutCancel(ctx), key)
		return File{}, err
	}
	return f, nil
}

// FilePrefix starts the key of every agent file in the file store.
const FilePrefix = "uploads/agent/"

// FileKey is the file store key of a user's file.
func FileKey(userID, fileID string) string { return FilePrefix + userID + "/" + fileID }

// NamedBlobs reports which of keys (under FilePrefix) a file row names;
// the orphan sweep deletes the others.
func (s *Service) NamedBlobs(ctx context.Context, keys []string) (map[string]bool, error) {
	byID := make(map[string]string, len(keys))
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		id := k[strings.LastIndexByte(k, '/')+1:]
		byID[id] = k
		ids = append(ids, id)
	}
	inUse, err := s.store.FileIDsInUse(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(inUse))
	for id := range inUse {
		out[byID[id]] = true
	}
	return out, nil
}

// openBlob opens the stored bytes of a user's file (ranges are fetched as
// read); the caller closes it.
func (s *Service) openBlob(ctx context.Context, userID, fileID string) (*blobstore.Object, error) {
	obj, err := s.cfg.Files.Open(ctx, FileKey(userID, fileID))
	if err != nil {
		return nil, blobErr(err)
	}
	return obj, nil
}

// removeBlob deletes the stored bytes of a file whose row is gone; a failure
// leaves an orphan for the sweep, not an error for the user.
func (s *Service) removeBlob(ctx context.Context, userID, fileID string) {
	_ = s.cfg.Files.Delete(context.WithoutCancel(ctx), FileKey(userID, fileID))
}

// blobErr maps a file store error: 503 while the store is down.
func blobErr(err error) error {
	switch {
	case errors.Is(err, blobstore.ErrUnavailable):
		return apperr.FileStoreDown(err)
	case errors.Is(err, blobstore.ErrNotFound):
		return apperr.NotFound("the stored bytes of this file")
	}
	return apperr.Internal(fmt.Errorf("agent file: %w", err))
}
