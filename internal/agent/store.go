package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

var (
	errAgentMissing   = apperr.NotFound("agent")
	errDuplicateAgent = apperr.Conflict("an agent with this agentName already exists")
)

type agentRow struct {
	ID           string `gorm:"primaryKey"`
	AgentName    string
	Description  *string
	SystemPrompt *string
	AIID         string `gorm:"column:ai_id"`
	ModelName    string
	Temperature  *float64
	TagCodes     string
	BuiltIn      bool
	CreatedBy    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func (agentRow) TableName() string { return "agent_properties" }

// encodeTags stores codes as ",1,5," (see the migration).
func encodeTags(codes []int) string {
	if len(codes) == 0 {
		return ""
	}
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c)
	}
	return "," + strings.Join(parts, ",") + ","
}

func decodeTags(s string) []int {
	var out []int
	for _, p := range strings.Split(s, ",") {
		if c, err := strconv.Atoi(p); err == nil {
			out = append(out, c)
		}
	}
	return out
}

func toAgentRow(a Agent) agentRow {
	return agentRow{ID: a.ID, AgentName: a.Name, Description: &a.Description, SystemPrompt: &a.SystemPrompt,
		AIID: a.AIID, ModelName: a.ModelName, Temperature: a.Temperature, TagCodes: encodeTags(a.TagCodes),
		BuiltIn: a.BuiltIn, CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

func (r agentRow) toAgent() Agent {
	a := Agent{ID: r.ID, Name: r.AgentName, AIID: r.AIID, ModelName: r.ModelName, Temperature: r.Temperature,
		TagCodes: decodeTags(r.TagCodes), BuiltIn: r.BuiltIn, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt}
	if r.Description != nil {
		a.Description = *r.Description
	}
	if r.SystemPrompt != nil {
		a.SystemPrompt = *r.SystemPrompt
	}
	return a
}

type fileRow struct {
	ID        string `gorm:"primaryKey"`
	UserID    string
	SessionID string
	BizType   string
	FileName  string
	MIME      string `gorm:"column:mime"`
	Size      int64
	SHA256    string `gorm:"column:sha256"`
	Chars     int
	Truncated bool
	Text      *string
	CreatedAt time.Time
}

func (fileRow) TableName() string { return "agent_files" }

func toFileRow(f File) fileRow {
	return fileRow{ID: f.ID, UserID: f.UserID, SessionID: f.SessionID, BizType: f.BizType, FileName: f.FileName,
		MIME: f.MIME, Size: f.Size, SHA256: f.SHA256, Chars: f.Chars, Truncated: f.Truncated, Text: &f.Text,
		CreatedAt: f.CreatedAt}
}

func (r fileRow) toFile() File {
	f := File{ID: r.ID, UserID: r.UserID, SessionID: r.SessionID, BizType: r.BizType, FileName: r.FileName,
		MIME: r.MIME, Size: r.Size, SHA256: r.SHA256, Chars: r.Chars, Truncated: r.Truncated, CreatedAt: r.CreatedAt}
	if r.Text != nil {
		f.Text = *r.Text
	}
	return f
}

// GormStore keeps agents and files in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var _ Store = (*GormStore)(nil)

// Create inserts a; a taken name is a 409.
func (s *GormStore) Create(ctx context.Context, a Agent) error {
	r := toAgentRow(a)
	err := s.db.WithContext(ctx).Create(&r).Error
	if db.IsDuplicate(err) {
		return errDuplicateAgent
	}
	if err != nil {
		return fmt.Errorf("create agent: %w", err)
	}
	return nil
}

// Update saves every field of a.
func (s *GormStore) Update(ctx context.Context, a Agent) error {
	r := toAgentRow(a)
	res := s.db.WithContext(ctx).Select("*").Omit("created_at", "created_by", "built_in").Where("id = ?", a.ID).Updates(&r)
	if db.IsDuplicate(res.Error) {
		return errDuplicateAgent
	}
	if res.Error != nil {
		return fmt.Errorf("update agent: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errAgentMissing
	}
	return nil
}

// Delete removes an agent.
func (s *GormStore) Delete(ctx context.Context, id string) error {
	res := s.db.WithContext(ctx).Where("id = ?", id).Delete(&agentRow{})
	if res.Error != nil {
		return fmt.Errorf("delete agent: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errAgentMissing
	}
	return nil
}

// Get returns one agent.
func (s *GormStore) Get(ctx context.Context, id string) (Agent, error) {
	return s.take(ctx, "id = ?", id)
}

// ByName returns the agent named name.
func (s *GormStore) ByName(ctx context.Context, name string) (Agent, error) {
	return s.take(ctx, "agent_name = ?", name)
}

func (s *GormStore) take(ctx context.Context, where string, arg string) (Agent, error) {
	var r agentRow
	err := s.db.WithContext(ctx).Where(where, arg).Take(&r).Error
	if db.IsNotFound(err) {
		return Agent{}, errAgentMissing
	}
	if err != nil {
		return Agent{}, fmt.Errorf("get agent: %w", err)
	}
	return r.toAgent(), nil
}

// Page lists agents by name.
func (s *GormStore) Page(ctx context.Context, p page.Request, f Filter) (page.Result[Agent], error) {
	q := s.db.WithContext(ctx).Model(&agentRow{})
	if f.Name != "" {
		q = q.Where("agent_name LIKE ?"+db.LikeEscape, db.LikePattern(f.Name))
	}
	if len(f.TagCodes) > 0 {
		conds := make([]string, len(f.TagCodes))
		args := make([]any, len(f.TagCodes))
		for i, c := range f.TagCodes {
			conds[i] = "tag_codes LIKE ?"
			args[i] = "%," + strconv.Itoa(c) + ",%"
		}
		q = q.Where("("+strings.Join(conds, " OR ")+")", args...)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Agent]{}, fmt.Errorf("count agents: %w", err)
	}
	var rows []agentRow
	if err := q.Order("agent_name, id").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Agent]{}, fmt.Errorf("list agents: %w", err)
	}
	out := make([]Agent, len(rows))
	for i, r := range rows {
		out[i] = r.toAgent()
	}
	return page.NewResult(p, out, total), nil
}

// CreateFile inserts f.
func (s *GormStore) CreateFile(ctx context.Context, f File) error {
	r := toFileRow(f)
	if err := s.db.WithContext(ctx).Create(&r).Error; err != nil {
		return fmt.Errorf("create agent file: %w", err)
	}
	return nil
}

// SessionFiles returns the caller's files of a session, newest first (at
// most limit).
func (s *GormStore) SessionFiles(ctx context.Context, userID, sessionID string, limit int) ([]File, error) {
	var rows []fileRow
	err := s.db.WithContext(ctx).Where("user_id = ? AND session_id = ?", userID, sessionID).
		Order("created_at DESC, id DESC").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list agent files: %w", err)
	}
	out := make([]File, len(rows))
	for i, r := range rows {
		out[i] = r.toFile()
	}
	return out, nil
}

var errFileMissing = apperr.NotFound("agent file")

// Files lists the caller's files, newest first (at most limit), without
// their text; sessionID "" lists the files of every session.
func (s *GormStore) Files(ctx context.Context, userID, sessionID string, limit int) ([]File, error) {
	q := s.db.WithContext(ctx).Omit("text").Where("user_id = ?", userID)
	if sessionID != "" {
		q = q.Where("session_id = ?", sessionID)
	}
	var rows []fileRow
	if err := q.Order("created_at DESC, id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list agent files: %w", err)
	}
	out := make([]File, len(rows))
	for i, r := range rows {
		out[i] = r.toFile()
	}
	return out, nil
}

// File returns the caller's file id, without its text; another user's
// file is not found.
func (s *GormStore) File(ctx context.Context, userID, id string) (File, error) {
	var r fileRow
	err := s.db.WithContext(ctx).Omit("text").Where("id = ? AND user_id = ?", id, userID).Take(&r).Error
	if db.IsNotFound(err) {
		return File{}, errFileMissing
	}
	if err != nil {
		return File{}, fmt.Errorf("get agent file: %w", err)
	}
	return r.toFile(), nil
}

// DeleteFile removes the caller's file id.
func (s *GormStore) DeleteFile(ctx context.Context, userID, id string) error {
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Delete(&fileRow{})
	if res.Error != nil {
		return fmt.Errorf("delete agent file: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errFileMissing
	}
	return nil
}
