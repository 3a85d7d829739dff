package airouting

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// Store persists routes.
type Store interface {
	Routes(ctx context.Context) (Routes, error)
	SetRoutes(ctx context.Context, set Routes, now time.Time) error
}

// Properties are the ai-properties a route names (aiconfig.Service).
type Properties interface {
	Get(ctx context.Context, id string) (aiconfig.Property, error)
	Resolve(ctx context.Context, id string) (aiconfig.Resolved, error)
	Default() aiconfig.Resolved
}

// Config tunes a Service.
type Config struct {
	// Refresh is how old the cached routes may get before a call re-reads
	// them from the database: the bound on how long a change made on
	// another instance takes to apply here.
	Refresh time.Duration
	// DefaultModel names the default provider's model in usage records.
	DefaultModel string
}

// Service keeps the routes and resolves a stage to its targets.
type Service struct {
	store Store
	props Properties
	usage *Recorder // records chat calls; nil: not recorded
	cfg   Config
	now   func() time.Time

	mu     sync.Mutex // protects routes and loaded
	routes Routes
	loaded time.Time // when routes were read; zero: never
}

// NewService returns a service. usage may be nil.
func NewService(store Store, props Properties, usage *Recorder, cfg Config) *Service {
	if cfg.Refresh <= 0 {
		cfg.Refresh = time.Second
	}
	return &Service{store: store, props: props, usage: usage, cfg: cfg, now: time.Now}
}

// Routes returns the routes in effect, re-read from the database when the
// cached copy is older than the refresh interval.
func (s *Service) Routes(ctx context.Context) (Routes, error) {
	s.mu.Lock()
	if !s.loaded.IsZero() && s.now().Sub(s.loaded) < s.cfg.Refresh {
		r := s.routes
		s.mu.Unlock()
		return r, nil
	}
	s.mu.Unlock()
	r, err := s.store.Routes(ctx)
	if err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.routes != nil {
			// The database hiccupped: keep serving the last known routes.
			return s.routes, nil
		}
		return nil, err
	}
	s.mu.Lock()
	s.routes, s.loaded = r, s.now()
	s.mu.Unlock()
	return r, nil
}

// Put sets the routes of the stages in set (an empty list removes a
// stage's route; stages not in set keep theirs) and returns the routes in
// effect. Every id must name an enabled ai-property, and the demeanor
// stage accepts only models that support vision.
func (s *Service) Put(ctx context.Context, set Routes) (Routes, error) {
	if len(set) == 0 {
		return nil, apperr.Invalid("routes is required: give at least one stage, e.g. {\"routes\": {\"interview-evaluation\": {\"aiIds\": [\"<id>\"]}}}")
	}
	clean := Routes{}
	for stage, r := range set {
		if !IsStage(stage) {
			return nil, apperr.Invalid("unknown stage %q; stages are %s", stage, strings.Join(Stages, ", "))
		}
		if len(r.AIIDs) > MaxTargets {
			return nil, apperr.Invalid("stage %s: at most %d models per route", stage, MaxTargets)
		}
		var idsOut []string
		for _, id := range r.AIIDs {
			id = strings.TrimSpace(id)
			if slices.Contains(idsOut, id) {
				return nil, apperr.Invalid("stage %s: ai-property %q is listed twice", stage, id)
			}
			if err := s.check(ctx, stage, id); err != nil {
				return nil, err
			}
			idsOut = append(idsOut, id)
		}
		clean[stage] = Route{AIIDs: idsOut}
	}
	if err := s.store.SetRoutes(ctx, clean, s.now().UTC()); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.loaded = time.Time{} // re-read at once on this instance
	s.mu.Unlock()
	return s.Routes(ctx)
}

// check says why id cannot serve stage, if it cannot.
func (s *Service) check(ctx context.Context, stage, id string) error {
	if id == "" || id == aiconfig.DefaultID {
		return apperr.Invalid("stage %s: give ai-property ids; the default model is what a stage without a route uses", stage)
	}
	p, err := s.props.Get(ctx, id)
	if apperr.Is(err, apperr.KindNotFound) {
		return apperr.Invalid("stage %s: unknown ai-property id %q", stage, id)
	}
	if err != nil {
		return err
	}
	if !p.IsEnabled {
		return apperr.Invalid("stage %s: ai-property %q (%s) is disabled; enable it first", stage, id, p.Name)
	}
	if stage == StageDemeanor && !p.SupportsVision {
		return apperr.Invalid("stage %s needs a vision model: ai-property %q (%s) does not have supportsVision", stage, id, p.Name)
	}
	return nil
}

// Targets returns the models stage tries, in order: the enabled
// ai-properties of its route, or none when it has no route (the caller
// then uses the default provider). A routed id that has since vanished or
// been disabled is skipped.
func (s *Service) Targets(ctx context.Context, stage string) ([]Target, error) {
	routes, err := s.Routes(ctx)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, id := range routes[stage].AIIDs {
		r, err := s.props.Resolve(ctx, id)
		if apperr.Is(err, apperr.KindNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Target{ID: id, Model: r.Model, Provider: r.Provider})
	}
	return out, nil
}

// DefaultTarget is the default provider as a target.
func (s *Service) DefaultTarget() Target {
	d := s.props.Default()
	model := s.cfg.DefaultModel
	if model == "" {
		model = d.Provider.Name()
	}
	return Target{Model: model, Provider: d.Provider}
}

// Resolve resolves a chat's provider configuration (chat.Resolver): a chat
// naming no configuration ("" or "default") uses the chat route, else the
// default provider; a named one is resolved as usual. The chat route's
// models are tried in order (a model that fails unavailable before it
// streamed anything hands over to the next), with the first one's system
// prompt and settings, under the id "default". The provider returned
// records each call's usage.
func (s *Service) Resolve(ctx context.Context, id string) (aiconfig.Resolved, error) {
	if id == "" || id == aiconfig.DefaultID {
		ts, err := s.Targets(ctx, StageChat)
		if err != nil {
			return aiconfig.Resolved{}, err
		}
		if len(ts) > 0 {
			r, err := s.props.Resolve(ctx, ts[0].ID)
			if err != nil {
				return aiconfig.Resolved{}, err
			}
			r.Provider = chatFallback{targets: ts, rec: s.usage}
			// A conversation keeps "default", so that each message follows
			// the route in effect, not the one it was created under.
			r.ConfigID, r.Name = aiconfig.DefaultID, s.props.Default().Name
			return r, nil
		}
	}
	return s.Unrouted().Resolve(ctx, id)
}

// Unrouted resolves configurations as the ai-properties do, ignoring the
// chat route ("" is the default provider), with usage recorded: the
// resolver of agents, whose default is their own configuration.
func (s *Service) Unrouted() Unrouted { return Unrouted{s: s} }

// Unrouted is a resolver that records usage but does not route.
type Unrouted struct{ s *Service }

// Resolve resolves configuration id ("" or "default": the default provider).
func (u Unrouted) Resolve(ctx context.Context, id string) (aiconfig.Resolved, error) {
	r, err := u.s.props.Resolve(ctx, id)
	if err != nil {
		return aiconfig.Resolved{}, err
	}
	if u.s.usage != nil {
		aiID, model := r.ConfigID, r.Model
		if aiID == aiconfig.DefaultID {
			aiID, model = "", u.s.DefaultTarget().Model
		}
		r.Provider = u.s.usage.Recorded(r.Provider, aiID, model)
	}
	return r, nil
}

// chatFallback is a chat route as one provider: its targets in order, the
// next taking over when one fails unavailable before sending anything (once
// text has reached the client, switching models would splice two answers).
type chatFallback struct {
	targets []Target
	rec     *Recorder // nil: usage not recorded
}

var _ llm.Provider = chatFallback{}

func (f chatFallback) Name() string         { return f.targets[0].Provider.Name() }
func (f chatFallback) Offline() bool        { return f.targets[0].Provider.Offline() }
func (f chatFallback) SupportsVision() bool { return f.targets[0].Provider.SupportsVision() }

func (f chatFallback) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return f.run(ctx, req, nil)
}

func (f chatFallback) Stream(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	return f.run(ctx, req, onChunk)
}

func (f chatFallback) run(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	var resp llm.Response
	var err error
	for i, tg := range f.targets {
		r := req
		if i > 0 {
			r.Model = "" // the request names the first model; the others use their own
		}
		started := false
		start := time.Now()
		if onChunk == nil {
			resp, err = tg.Provider.Generate(ctx, r)
		} else {
			resp, err = tg.Provider.Stream(ctx, r, func(c llm.Chunk) error { started = true; return onChunk(c) })
		}
		fall := err != nil && !started && i < len(f.targets)-1 && ShouldFallback(ctx, err)
		if f.rec != nil {
			e := UsageOf(r, resp, err)
			e.Latency, e.AIID, e.Model, e.ConversationID = time.Since(start), tg.ID, tg.Model, subjectOf(ctx).conversation
			if fall {
				e.Outcome = OutcomeFallback
			}
			f.rec.Record(e)
		}
		if !fall {
			break
		}
	}
	return resp, err
}

// StagesUsing lists the stages whose route names id (read from the
// database, not the cache: it guards deletes and disables).
func (s *Service) StagesUsing(ctx context.Context, id string) ([]string, error) {
	r, err := s.store.Routes(ctx)
	if err != nil {
		return nil, err
	}
	return r.StagesUsing(id), nil
}

// ShouldFallback reports whether a target's failure err lets the call move
// to the next target: the target is unavailable (timeout, 429, 5xx,
// connection refused, its breaker open or bulkhead full), not a content
// error (a 4xx, a refusal, an output the stage could not parse) and not
// the caller giving up.
func ShouldFallback(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, errContent) {
		return false
	}
	var ge *aiguard.Error
	if errors.As(err, &ge) {
		return true
	}
	if e := apperr.As(err); e != nil {
		switch e.Kind {
		case apperr.KindTimeout, apperr.KindUnavailable, apperr.KindOverloaded, apperr.KindUpstream, apperr.KindRateLimited:
			return e.Retryable
		}
		return false
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// errContent marks an error about what the model said rather than whether
// it could say it (see ContentError).
var errContent = errors.New("airouting: content error")

// ContentError marks err (an output that could not be used) as a content
// error: it keeps err's chain and classification (a guard may still retry
// it on the same model) but never causes a fallback.
func ContentError(err error) error {
	if err == nil {
		return nil
	}
	return contentError{err}
}

type contentError struct{ error }

func (e contentError) Unwrap() []error { return []error{e.error, errContent} }
