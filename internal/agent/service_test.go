package agent

import (
	"context"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// defaultResolver knows only the default (offline) provider.
type defaultResolver struct{}

func (defaultResolver) Resolve(_ context.Context, id string) (aiconfig.Resolved, error) {
	if id != "" && id != aiconfig.DefaultID {
		return aiconfig.Resolved{}, apperr.NotFound("enabled ai property")
	}
	return aiconfig.Resolved{Provider: llm.NewOffline(), ConfigID: aiconfig.DefaultID, Name: "offline"}, nil
}

func MustService(tb testing.TB, gdb *gorm.DB) *Service {
	tb.Helper()
	chats := chat.NewService(chat.NewGormStore(gdb), defaultResolver{}, chat.Config{})
	svc, err := NewService(NewGormStore(gdb), chats, defaultResolver{}, Config{Files: s3test.Files(tb, tb.TempDir())})
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

func ptr[T any](v T) *T { return &v }

func TestAgentStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := MustService(t, gdb)
		for _, in := range []Input{
			{AgentName: ptr("frontend-helper"), SystemPrompt: ptr("p"), TagCodes: ptr([]int{1, 9})},
			{AgentName: ptr("backend-helper"), SystemPrompt: ptr("p"), TagCodes: ptr([]int{2})},
			{AgentName: ptr("other"), SystemPrompt: ptr("p"), TagCodes: ptr([]int{99, 10})},
		} {
			if _, err := svc.Create(ctx, "admin", in); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.Create(ctx, "admin", Input{AgentName: ptr("other"), SystemPrompt: ptr("p")}); !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("duplicate name: %v, want conflict", err)
		}
		tests := []struct {
			name string
			f    Filter
			want []string
		}{
			{"all by name", Filter{}, []string{"backend-helper", "frontend-helper", "other"}},
			{"tag 1 does not match 10", Filter{TagCodes: []int{1}}, []string{"frontend-helper"}},
			{"any of the tags", Filter{TagCodes: []int{2, 10}}, []string{"backend-helper", "other"}},
			{"name", Filter{Name: "helper"}, []string{"backend-helper", "frontend-helper"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, err := svc.Page(ctx, page.Request{Current: 1, Size: 10}, tt.f)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range res.Records {
					got = append(got, a.Name)
				}
				if len(got) != len(tt.want) || int(res.Total) != len(tt.want) {
					t.Fatalf("got %v (total %d), want %v", got, res.Total, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Fatalf("got %v, want %v", got, tt.want)
					}
				}
			})
		}
	})
}

// TestDefaultAgentCreatedOnce starts default sessions concurrently: the
// built-in agent is created once and every session uses it.
func TestDefaultAgentCreatedOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := MustService(t, gdb)
		const n = 6
		agents := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				conv, err := svc.CreateSession(ctx, "user", SessionInput{})
				agents[i], errs[i] = conv.AgentID, err
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			if errs[i] != nil || agents[i] != agents[0] || agents[i] == "" {
				t.Fatalf("session %d: agent %q, %v; want %q", i, agents[i], errs[i], agents[0])
			}
		}
		a, err := svc.ByName(ctx, DefaultAgentName)
		if err != nil || !a.BuiltIn || a.ID != agents[0] {
			t.Fatalf("default agent = %+v, %v", a, err)
		}
	})
}
