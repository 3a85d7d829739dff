package airouting_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/airouting"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

func ptr[T any](v T) *T { return &v }

// The routes on the real store (SQLite and MariaDB): validation, the
// 409 of a routed model, and a second service (another instance) seeing a
// change within its refresh interval; usage rows round-trip.
func TestRoutesOnStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		store := airouting.NewGormStore(gdb)
		props := aiconfig.NewService(aiconfig.NewGormStore(gdb), llm.NewOffline(), aiconfig.WithInUse(store.StagesUsing))
		create := func(name string, vision bool) string {
			p, err := props.Create(ctx, "admin", aiconfig.Input{AIName: ptr(name), AIType: ptr("offline"), SupportsVision: ptr(vision)})
			if err != nil {
				t.Fatal(err)
			}
			return p.ID
		}
		a, v := create("a", false), create("v", true)
		one := airouting.NewService(store, props, nil, airouting.Config{Refresh: 50 * time.Millisecond})
		two := airouting.NewService(store, props, nil, airouting.Config{Refresh: 50 * time.Millisecond})
		if r, err := two.Routes(ctx); err != nil || len(r) != 0 {
			t.Fatalf("no routes yet: %v, %v", r, err)
		}

		bad := []struct {
			name   string
			routes airouting.Routes
		}{
			{"unknown id", airouting.Routes{airouting.StageEvaluation: {AIIDs: []string{"nope"}}}},
			{"demeanor without vision", airouting.Routes{airouting.StageDemeanor: {AIIDs: []string{a}}}},
			{"unknown stage", airouting.Routes{"interview-dance": {AIIDs: []string{a}}}},
			{"repeated id", airouting.Routes{airouting.StageEvaluation: {AIIDs: []string{a, a}}}},
			{"nothing", airouting.Routes{}},
		}
		for _, tt := range bad {
			if _, err := one.Put(ctx, tt.routes); !apperr.Is(err, apperr.KindInvalid) {
				t.Errorf("%s: %v, want 400", tt.name, err)
			}
		}

		if _, err := one.Put(ctx, airouting.Routes{airouting.StageEvaluation: {AIIDs: []string{a, v}}, airouting.StageDemeanor: {AIIDs: []string{v}}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond) // past two's refresh interval
		ts, err := two.Targets(ctx, airouting.StageEvaluation)
		if err != nil || len(ts) != 2 || ts[0].ID != a || ts[1].ID != v || ts[0].Provider == nil {
			t.Fatalf("targets on the other instance = %+v, %v", ts, err)
		}
		if err := props.Delete(ctx, v); !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("delete a routed model: %v, want 409", err)
		}
		if _, err := props.SetEnabled(ctx, a, false); !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("disable a routed model: %v, want 409", err)
		}
		// An empty list removes the route; other stages keep theirs.
		got, err := one.Put(ctx, airouting.Routes{airouting.StageEvaluation: {AIIDs: []string{}}})
		if err != nil || len(got) != 1 || len(got[airouting.StageDemeanor].AIIDs) != 1 {
			t.Fatalf("after removing evaluation: %+v, %v", got, err)
		}
		if _, err := props.SetEnabled(ctx, a, false); err != nil {
			t.Fatalf("disable an unrouted model: %v", err)
		}

		at := time.Now().UTC().Truncate(time.Millisecond)
		events := []airouting.Event{
			{At: at, Stage: airouting.StageEvaluation, AIID: a, Model: "m", PromptTokens: 5, CompletionTokens: 2, Estimated: true, Latency: 40 * time.Millisecond, Outcome: airouting.OutcomeOK, SessionID: "s1"},
			{At: at, Stage: airouting.StageEvaluation, Outcome: airouting.OutcomeSaved, SessionID: "s1"},
		}
		if err := store.InsertUsage(ctx, events); err != nil {
			t.Fatal(err)
		}
		back, err := store.Usage(ctx, at.Add(-time.Second), at.Add(time.Second), 100)
		if err != nil || len(back) != 2 {
			t.Fatalf("usage = %+v, %v", back, err)
		}
		rep := airouting.Aggregate(back, airouting.UsageQuery{GroupBy: airouting.GroupByStage})
		if tot := rep.Totals; tot.Calls != 1 || tot.SavedCalls != 1 || tot.PromptTokens != 5 || tot.EstimatedCalls != 1 || tot.P50Ms != 40 {
			t.Fatalf("totals %+v", tot)
		}
	})
}
