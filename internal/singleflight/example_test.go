package singleflight_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/xunzhi-ai/aimeeting/internal/singleflight"
)

// Concurrent requests for the same answer share one model call; a repeat
// is replayed from the in-process cache. With a Redis client (hybrid or
// distributed mode) the same holds across instances.
func Example() {
	cfg := singleflight.DefaultConfig()
	cfg.Mode = singleflight.ModeLocal // no Redis in this example
	g, err := singleflight.New(cfg, nil, nil)
	if err != nil {
		panic(err)
	}
	defer g.Close()

	key := "interview-evaluation|session-42|3|9f86d081884c7d65"
	var (
		mu    sync.Mutex
		calls int
	)
	evaluate := func(ctx context.Context) ([]byte, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return []byte(`{"score":87}`), nil
	}

	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Do(context.Background(), "interview-evaluation", key, evaluate); err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()

	res, err := g.Do(context.Background(), "interview-evaluation", key, evaluate)
	fmt.Println(string(res.Value), res.Outcome, err)
	fmt.Println("model calls:", calls)
	// Output:
	// {"score":87} replay_l1 <nil>
	// model calls: 1
}
