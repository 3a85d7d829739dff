package aiguard_test

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/aiguard"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

func ExampleDo() {
	guard, err := aiguard.New(aiguard.DefaultConfig(), prometheus.NewRegistry())
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// fn gets a context that the stage timeout (20 s here) cancels; pass it
	// to the HTTP request to the model.
	followUp, err := aiguard.Do(ctx, guard, aiguard.StageInterviewFollowup,
		func(ctx context.Context) (string, error) {
			return "How did you size the connection pool?", nil
		})
	fmt.Println(followUp, err)

	// A model error is returned as fn classified it, after the stage's one
	// retry if it is retryable.
	attempts := 0
	_, err = aiguard.Do(ctx, guard, aiguard.StageInterviewFollowup,
		func(ctx context.Context) (string, error) {
			attempts++
			return "", apperr.New(apperr.KindUnavailable, "model unreachable").AsRetryable()
		})
	fmt.Println(attempts, apperr.As(err).Code, guard.State(aiguard.StageInterviewFollowup))
	// Output:
	// How did you size the connection pool? <nil>
	// 2 B000417 closed
}
