package aiconfig

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Store persists configurations.
type Store interface {
	Create(ctx context.Context, p Property) error
	Update(ctx context.Context, p Property) error
	Delete(ctx context.Context, id string) error
	Get(ctx context.Context, id string) (Property, error)
	Page(ctx context.Context, p page.Request, f Filter) (page.Result[Property], error)
	Enabled(ctx context.Context) ([]Property, error)
}

// DefaultID names the provider configured in application.yaml (ai.*): the
// one used when a request names no configuration.
const DefaultID = "default"

// Service manages configurations and resolves them to providers.
type Service struct {
	store Store
	// def is the provider from application.yaml; defName labels it.
	def     llm.Provider
	defName string
	now     func() time.Time

	// inUse lists the stages routed to a configuration (nil: none are).
	inUse func(ctx context.Context, id string) ([]string, error)

	mu sync.Mutex // protects cache
	// cache holds built providers by configuration id; an entry is rebuilt
	// when the row's UpdatedAt changes.
	cache map[string]cachedProvider
}

type cachedProvider struct {
	updatedAt time.Time
	provider  llm.Provider
}

// ServiceOption configures a Service.
type ServiceOption func(*Service)

// WithInUse makes deleting or disabling a configuration that stages are
// routed to a 409 naming them; stagesUsing lists the stages using an id.
func WithInUse(stagesUsing func(ctx context.Context, id string) ([]string, error)) ServiceOption {
	return func(s *Service) { s.inUse = stagesUsing }
}

// NewService returns a service whose default provider is def.
func NewService(store Store, def llm.Provider, opts ...ServiceOption) *Service {
	name := "Default (" + def.Name() + ")"
	if def.Offline() {
		name = "Offline model (built-in)"
	}
	s := &Service{store: store, def: def, defName: name, now: func() time.Time { return time.Now().UTC() },
		cache: map[string]cachedProvider{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// checkUnused fails with a 409 when stages are routed to id.
func (s *Service) checkUnused(ctx context.Context, id, action string) error {
	if s.inUse == nil {
		return nil
	}
	stages, err := s.inUse(ctx, id)
	if err != nil {
		return err
	}
	if len(stages) > 0 {
		return apperr.Conflict("cannot %s ai-property %s: stages %s are routed to it; change their routes under /ai-routing first",
			action, id, strings.Join(stages, ", "))
	}
	return nil
}

// Create stores a new configuration made by actor.
func (s *Service) Create(ctx context.Context, actorID string, in Input) (Property, error) {
	p := Property{ID: ids.New(), IsEnabled: true, CreatedBy: actorID}
	if err := in.apply(&p); err != nil {
		return Property{}, err
	}
	if err := s.check(p); err != nil {
		return Property{}, err
	}
	p.CreatedAt = s.now()
	p.UpdatedAt = p.CreatedAt
	if err := s.store.Create(ctx, p); err != nil {
		return Property{}, err
	}
	return p, nil
}

// check validates p and that a provider can be built from it.
func (s *Service) check(p Property) error {
	if err := p.Validate(); err != nil {
		return err
	}
	_, err := llm.New(toLLMConfig(p))
	return err
}

// Update changes the fields in set on the configuration in.ID.
func (s *Service) Update(ctx context.Context, in Input) (Property, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		return Property{}, apperr.Invalid("id is required")
	}
	p, err := s.store.Get(ctx, id)
	if err != nil {
		return Property{}, err
	}
	wasEnabled := p.IsEnabled
	if err := in.apply(&p); err != nil {
		return Property{}, err
	}
	if err := s.check(p); err != nil {
		return Property{}, err
	}
	if wasEnabled && !p.IsEnabled {
		if err := s.checkUnused(ctx, id, "disable"); err != nil {
			return Property{}, err
		}
	}
	p.UpdatedAt = s.now()
	if err := s.store.Update(ctx, p); err != nil {
		return Property{}, err
	}
	return p, nil
}

// SetEnabled turns a configuration on or off.
func (s *Service) SetEnabled(ctx context.Context, id string, enabled bool) (Property, error) {
	return s.Update(ctx, Input{ID: id, IsEnabled: &enabled})
}

// Delete removes a configuration.
func (s *Service) Delete(ctx context.Context, id string) error {
	if err := s.checkUnused(ctx, id, "delete"); err != nil {
		return err
	}
	if err := s.store.Delete(ctx, id); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
	return nil
}

// Get returns one configuration.
func (s *Service) Get(ctx context.Context, id string) (Property, error) { return s.store.Get(ctx, id) }

// Page lists configurations.
func (s *Service) Page(ctx context.Context, p page.Request, f Filter) (page.Result[Property], error) {
	f.Name = strings.TrimSpace(f.Name)
	f.Type = strings.ToLower(strings.TrimSpace(f.Type))
	if len(f.Name) > 64 {
		return page.Result[Property]{}, apperr.Invalid("aiName filter must be at most 64 characters")
	}
	return s.store.Page(ctx, p.Normalize(), f)
}

// Enabled lists the enabled configurations.
func (s *Service) Enabled(ctx context.Context) ([]Property, error) { return s.store.Enabled(ctx) }

// Options lists what the chat picker offers: the default provider first,
// then every enabled configuration.
func (s *Service) Options(ctx context.Context) ([]Option, error) {
	ps, err := s.store.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	out := []Option{{ID: DefaultID, AIName: s.defName, AIType: s.def.Name(), Offline: s.def.Offline()}}
	for _, p := range ps {
		out = append(out, Option{ID: p.ID, AIName: p.Name, AIType: p.Type, Offline: p.Type == "offline"})
	}
	return out, nil
}

// Resolved is a provider with the configuration it came from.
type Resolved struct {
	Provider     llm.Provider
	ConfigID     string
	Name         string
	SystemPrompt string
	Model        string
	Temperature  *float64
	MaxTokens    int
}

// Default returns the provider from application.yaml.
func (s *Service) Default() Resolved {
	return Resolved{Provider: s.def, ConfigID: DefaultID, Name: s.defName}
}

// Resolve returns the provider of configuration id ("" or DefaultID: the
// default). A disabled or missing configuration is a 404.
func (s *Service) Resolve(ctx context.Context, id string) (Resolved, error) {
	if id == "" || id == DefaultID {
		return s.Default(), nil
	}
	p, err := s.store.Get(ctx, id)
	if err != nil {
		return Resolved{}, err
	}
	if !p.IsEnabled {
		return Resolved{}, apperr.NotFound("enabled ai property")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cache[id]
	if !ok || !c.updatedAt.Equal(p.UpdatedAt) {
		prov, err := llm.New(toLLMConfig(p))
		if err != nil {
			return Resolved{}, err
		}
		c = cachedProvider{updatedAt: p.UpdatedAt, provider: prov}
		s.cache[id] = c
	}
	return Resolved{Provider: c.provider, ConfigID: p.ID, Name: p.Name, SystemPrompt: p.SystemPrompt,
		Model: p.ModelName, Temperature: p.Temperature, MaxTokens: p.MaxTokens}, nil
}

func toLLMConfig(p Property) llm.Config {
	return llm.Config{Type: p.Type, BaseURL: p.APIURL, APIKey: p.APIKey, Model: p.ModelName,
		MaxTokens: p.MaxTokens, Temperature: p.Temperature, Vision: p.SupportsVision}
}
