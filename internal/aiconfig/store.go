package aiconfig

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

type row struct {
	ID             string `gorm:"primaryKey"`
	AIName         string
	AIType         string
	APIKey         string
	APISecret      string
	ProjectID      string
	OrganizationID string
	APIURL         string `gorm:"column:api_url"`
	ModelName      string
	MaxTokens      int
	Temperature    *float64
	SystemPrompt   *string
	SupportsVision bool
	IsEnabled      bool
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (row) TableName() string { return "ai_properties" }

func toRow(p Property) row {
	return row{ID: p.ID, AIName: p.Name, AIType: p.Type, APIKey: p.APIKey, APISecret: p.APISecret, ProjectID: p.ProjectID,
		OrganizationID: p.OrganizationID, APIURL: p.APIURL, ModelName: p.ModelName,
		MaxTokens: p.MaxTokens, Temperature: p.Temperature, SystemPrompt: &p.SystemPrompt, SupportsVision: p.SupportsVision,
		IsEnabled: p.IsEnabled, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func (r row) toProperty() Property {
	p := Property{ID: r.ID, Name: r.AIName, Type: r.AIType, APIKey: r.APIKey, APISecret: r.APISecret, ProjectID: r.ProjectID,
		OrganizationID: r.OrganizationID, APIURL: r.APIURL, ModelName: r.ModelName,
		MaxTokens: r.MaxTokens, Temperature: r.Temperature, SupportsVision: r.SupportsVision, IsEnabled: r.IsEnabled,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.SystemPrompt != nil {
		p.SystemPrompt = *r.SystemPrompt
	}
	return p
}

// GormStore keeps configurations in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var _ Store = (*GormStore)(nil)

var errDuplicateName = apperr.Conflict("a configuration with this aiName already exists")

// Create inserts p.
func (s *GormStore) Create(ctx context.Context, p Property) error {
	r := toRow(p)
	err := s.db.WithContext(ctx).Create(&r).Error
	if db.IsDuplicate(err) {
		return errDuplicateName
	}
	if err != nil {
		return fmt.Errorf("create ai property: %w", err)
	}
	return nil
}

// Update saves every field of p.
func (s *GormStore) Update(ctx context.Context, p Property) error {
	r := toRow(p)
	res := s.db.WithContext(ctx).Select("*").Omit("created_at", "created_by").Where("id = ?", p.ID).Updates(&r)
	if db.IsDuplicate(res.Error) {
		return errDuplicateName
	}
	if res.Error != nil {
		return fmt.Errorf("update ai property: %w", res.Error)
	}
	return nil
}

// Delete removes the configuration.
func (s *GormStore) Delete(ctx context.Context, id string) error {
	res := s.db.WithContext(ctx).Where("id = ?", id).Delete(&row{})
	if res.Error != nil {
		return fmt.Errorf("delete ai property: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("ai property")
	}
	return nil
}

// Get loads one configuration.
func (s *GormStore) Get(ctx context.Context, id string) (Property, error) {
	var r row
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&r).Error
	if db.IsNotFound(err) {
		return Property{}, apperr.NotFound("ai property")
	}
	if err != nil {
		return Property{}, fmt.Errorf("load ai property: %w", err)
	}
	return r.toProperty(), nil
}

// Page lists configurations matching f, newest first.
func (s *GormStore) Page(ctx context.Context, p page.Request, f Filter) (page.Result[Property], error) {
	q := s.db.WithContext(ctx).Model(&row{})
	if f.Name != "" {
		q = q.Where("ai_name LIKE ?"+db.LikeEscape, db.LikePattern(f.Name))
	}
	if f.Type != "" {
		q = q.Where("ai_type = ?", f.Type)
	}
	if f.Enabled != nil {
		q = q.Where("is_enabled = ?", *f.Enabled)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Property]{}, fmt.Errorf("count ai properties: %w", err)
	}
	var rows []row
	if err := q.Order("created_at DESC, id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Property]{}, fmt.Errorf("list ai properties: %w", err)
	}
	out := make([]Property, len(rows))
	for i, r := range rows {
		out[i] = r.toProperty()
	}
	return page.NewResult(p, out, total), nil
}

// Enabled lists the enabled configurations by name.
func (s *GormStore) Enabled(ctx context.Context) ([]Property, error) {
	var rows []row
	if err := s.db.WithContext(ctx).Where("is_enabled = ?", true).Order("ai_name").Limit(1000).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list enabled ai properties: %w", err)
	}
	out := make([]Property, len(rows))
	for i, r := range rows {
		out[i] = r.toProperty()
	}
	return out, nil
}
