package airouting

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/ids"
)

type routeRow struct {
	Stage     string `gorm:"primaryKey"`
	AIIDs     string `gorm:"column:ai_ids"`
	UpdatedAt time.Time
}

func (routeRow) TableName() string { return "ai_routes" }

type usageRow struct {
	ID               string `gorm:"primaryKey"`
	CreatedAt        time.Time
	Stage            string
	AIID             string `gorm:"column:ai_id"`
	Model            string
	PromptTokens     int
	CompletionTokens int
	Estimated        bool
	LatencyMs        int
	Outcome          string
	SessionID        string
	ConversationID   string
}

func (usageRow) TableName() string { return "ai_usage" }

// GormStore keeps routes and usage in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var (
	_ Store      = (*GormStore)(nil)
	_ UsageStore = (*GormStore)(nil)
)

// Routes loads every route.
func (s *GormStore) Routes(ctx context.Context) (Routes, error) {
	var rows []routeRow
	if err := s.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load ai routes: %w", err)
	}
	out := Routes{}
	for _, r := range rows {
		if r.AIIDs != "" {
			out[r.Stage] = Route{AIIDs: strings.Split(r.AIIDs, ",")}
		}
	}
	return out, nil
}

// SetRoutes replaces the routes of the stages in set; an empty route
// removes the stage's row.
func (s *GormStore) SetRoutes(ctx context.Context, set Routes, now time.Time) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for stage, r := range set {
			if err := tx.Where("stage = ?", stage).Delete(&routeRow{}).Error; err != nil {
				return err
			}
			if len(r.AIIDs) == 0 {
				continue
			}
			if err := tx.Create(&routeRow{Stage: stage, AIIDs: strings.Join(r.AIIDs, ","), UpdatedAt: now}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save ai routes: %w", err)
	}
	return nil
}

// StagesUsing lists the stages whose route names the ai-property id.
func (s *GormStore) StagesUsing(ctx context.Context, id string) ([]string, error) {
	r, err := s.Routes(ctx)
	if err != nil {
		return nil, err
	}
	return r.StagesUsing(id), nil
}

// InsertUsage stores a batch of events.
func (s *GormStore) InsertUsage(ctx context.Context, events []Event) error {
	rows := make([]usageRow, len(events))
	for i, e := range events {
		rows[i] = usageRow{ID: ids.New(), CreatedAt: e.At, Stage: e.Stage, AIID: e.AIID, Model: truncate(e.Model, 128),
			PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens, Estimated: e.Estimated,
			LatencyMs: int(e.Latency.Milliseconds()), Outcome: e.Outcome, SessionID: e.SessionID, ConversationID: e.ConversationID}
	}
	if err := s.db.WithContext(ctx).CreateInBatches(rows, 200).Error; err != nil {
		return fmt.Errorf("insert ai usage: %w", err)
	}
	return nil
}

// Usage loads the events in [from, to), at most limit of them.
func (s *GormStore) Usage(ctx context.Context, from, to time.Time, limit int) ([]Event, error) {
	var rows []usageRow
	err := s.db.WithContext(ctx).Select("created_at", "stage", "ai_id", "model", "prompt_tokens", "completion_tokens",
		"estimated", "latency_ms", "outcome").Where("created_at >= ? AND created_at < ?", from, to).
		Order("created_at").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load ai usage: %w", err)
	}
	out := make([]Event, len(rows))
	for i, r := range rows {
		out[i] = Event{At: r.CreatedAt, Stage: r.Stage, AIID: r.AIID, Model: r.Model, PromptTokens: r.PromptTokens,
			CompletionTokens: r.CompletionTokens, Estimated: r.Estimated, Latency: time.Duration(r.LatencyMs) * time.Millisecond, Outcome: r.Outcome}
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
