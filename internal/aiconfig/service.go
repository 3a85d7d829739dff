package aiconfig

import (
	"context"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

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
	// probeWrap wraps the provider of a connection check (nil: none).
	probeWrap func(p llm.Provider, id, model string) llm.Provider

	mu sync.Mutex // protects cache
	// cache holds built providers by configuration id; an entry is rebuilt
	// when the row's UpdatedAt changes.
	cache map[string]cachedProvider

	// health is the last connection check of each configuration; checks
	// made while listing are shared by concurrent lists.
	health healthBook
	checks singleflight.Group
	// route, when set, decides what "default" means before the built-in
	// rule (see WithDefaultRoute).
	route DefaultRoute
}

// DefaultRoute picks the provider a request that names none gets (for
// chat: the "chat" route of the model routing, issue 16). ok false means
// the route has no opinion and the built-in rule applies: the provider of
// application.yaml, or when that is the offline model, the first enabled
// configuration that answers.
type DefaultRoute func(ctx context.Context) (r Resolved, ok bool, err error)

// ServiceOption configures a Service.
type ServiceOption func(*Service)

// WithDefaultRoute makes route decide the default provider first. This is
// the hook for the routing of issue 16 (its "chat" route).
func WithDefaultRoute(route DefaultRoute) ServiceOption { return func(s *Service) { s.route = route } }

type cachedProvider struct {
	updatedAt time.Time
	provider  llm.Provider
}

// WithProbeWrap wraps the provider of each connection check (Test, and
// the check on save or listing) with wrap, given the configuration's id and
// model: usage accounting counts those calls too.
func WithProbeWrap(wrap func(p llm.Provider, id, model string) llm.Provider) ServiceOption {
	return func(s *Service) { s.probeWrap = wrap }
}

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
	if len(stages) == 0 {
		return nil
	}
	if action == "delete" {
		return apperr.Conflict("cannot delete ai-property %s: stages %s are routed to it; change their routes under /ai-routing first",
			id, strings.Join(stages, ", "))
	}
	return apperr.Conflict("cannot disable ai-property %s: stages %s are routed to it; change their routes under /ai-routing first",
		id, strings.Join(stages, ", "))
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

// Options lists what the chat picker offers: the default provider first
// (named after what it resolves to), then every enabled configuration that
// answers a connection check (a failing one is left out until it answers;
// see healthy).
func (s *Service) Options(ctx context.Context) ([]Option, error) {
	ps, err := s.usable(ctx)
	if err != nil {
		return nil, err
	}
	def, ok, err := s.routed(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		def = s.firstUsable(ps)
	}
	out := []Option{{ID: DefaultID, AIName: def.Name, AIType: def.Provider.Name(), Offline: def.Provider.Offline()}}
	for _, p := range ps {
		out = append(out, Option{ID: p.ID, AIName: p.Name, AIType: p.Type, Offline: p.Type == "offline"})
	}
	return out, nil
}

// usable returns the enabled configurations that pass their connection
// check, checked in parallel.
func (s *Service) usable(ctx context.Context) ([]Property, error) {
	ps, err := s.store.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	ok := make([]bool, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, _, _ := s.checks.Do(p.ID+"|"+p.UpdatedAt.String(), func() (any, error) { return s.healthy(ctx, p), nil })
			ok[i] = v.(bool)
		}()
	}
	wg.Wait()
	out := ps[:0:0]
	for i, p := range ps {
		if ok[i] {
			out = append(out, p)
		}
	}
	return out, nil
}

// CheckSaved tests a configuration just created or updated (see
// checkSaved): the save stands, the result says whether it answers.
func (s *Service) CheckSaved(ctx context.Context, p Property) Saved { return s.checkSaved(ctx, p) }

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

// resolveDefault is what a request naming no configuration gets: the
// default route's choice when one is set (WithDefaultRoute), else the
// provider of application.yaml, else, when that is the built-in offline
// model, the first enabled configuration that answers (by name), so that
// enabling a provider is enough for "Default model" to use it.
func (s *Service) resolveDefault(ctx context.Context) (Resolved, error) {
	if r, ok, err := s.routed(ctx); err != nil || ok {
		return r, err
	}
	if !s.def.Offline() {
		return s.Default(), nil
	}
	ps, err := s.usable(ctx)
	if err != nil {
		return Resolved{}, err
	}
	return s.firstUsable(ps), nil
}

// routed asks the default route, when one is set.
func (s *Service) routed(ctx context.Context) (Resolved, bool, error) {
	if s.route == nil {
		return Resolved{}, false, nil
	}
	return s.route(ctx)
}

// firstUsable is the default when application.yaml names the offline
// model: the first of the usable configurations ps that is not offline,
// else the offline model.
func (s *Service) firstUsable(ps []Property) Resolved {
	if !s.def.Offline() {
		return s.Default()
	}
	for _, p := range ps {
		if p.Type == "offline" {
			continue
		}
		r, err := s.resolved(p)
		if err != nil {
			continue
		}
		r.ConfigID, r.Name = DefaultID, "Default ("+p.Name+")"
		return r
	}
	return s.Default()
}

// Resolve returns the provider of configuration id ("" or DefaultID: the
// default, see resolveDefault). A disabled or missing configuration is a
// 404.
func (s *Service) Resolve(ctx context.Context, id string) (Resolved, error) {
	if id == "" || id == DefaultID {
		return s.resolveDefault(ctx)
	}
	p, err := s.store.Get(ctx, id)
	if err != nil {
		return Resolved{}, err
	}
	if !p.IsEnabled {
		return Resolved{}, apperr.NotFound("enabled ai property")
	}
	return s.resolved(p)
}

// resolved builds (or takes from the cache) the provider of p.
func (s *Service) resolved(p Property) (Resolved, error) {
	id := p.ID
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
	return llm.Config{Type: p.Type, BaseURL: p.APIURL, APIKey: p.APIKey, APISecret: p.APISecret,
		Organization: p.OrganizationID, Project: p.ProjectID, Model: p.ModelName,
		MaxTokens: p.MaxTokens, Temperature: p.Temperature, Vision: p.SupportsVision}
}
