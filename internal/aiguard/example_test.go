package aiguard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
)

func ExampleDo() {
	cfg := aiguard.DefaultConfig()
	cfg.Stages = map[string]aiguard.StagePolicy{
		"interview-followup": {Timeout: 20 * time.Second, MaxConcurrent: 20, Retries: 1, Breaker: aiguard.DefaultBreakerPolicy()},
	}
	guard, err := aiguard.New(cfg, prometheus.NewRegistry())
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// fn gets a context that the stage timeout (20 s here) cancels; pass it
	// to the HTTP request to the model.
	followUp, err := aiguard.Do(ctx, guard, "interview-followup",
		func(ctx context.Context) (string, error) {
			return "How did you size the connection pool?", nil
		})
	fmt.Println(followUp, err)

	// A model error is returned as fn classified it, after the stage's one
	// retry if it is retryable.
	attempts := 0
	_, err = aiguard.Do(ctx, guard, "interview-followup",
		func(ctx context.Context) (string, error) {
			attempts++
			return "", unreachable{}
		})
	fmt.Println(attempts, err, guard.State("interview-followup"))
	// Output:
	// How did you size the connection pool? <nil>
	// 2 model unreachable closed
}

// unreachable is a model error that says a retry may succeed.
type unreachable struct{}

func (unreachable) Error() string     { return "model unreachable" }
func (unreachable) IsRetryable() bool { return true }
