package llm_test

import (
	"context"
	"fmt"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

func Example() {
	// In tests a fake server stands in for DeepSeek, OpenAI, vLLM...
	srv := llmtest.Start(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"Channels ", "pass ", "values."}}
	}))
	defer srv.Close()

	model, err := llm.New(llm.Config{Type: "deepseek", BaseURL: srv.URL(), APIKey: "sk-...", Model: "deepseek-chat"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	resp, err := model.Stream(ctx, llm.Request{
		Stage: "chat",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are an interviewer."},
			{Role: llm.RoleUser, Content: "What is a channel?"},
		},
	}, func(ch llm.Chunk) error {
		fmt.Printf("chunk %q\n", ch.Content)
		return nil
	})
	if apperr.IsRetryable(err) {
		fmt.Println("worth another try:", err)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Content)
	// Output:
	// chunk "Channels "
	// chunk "pass "
	// chunk "values."
	// Channels pass values.
}

func ExampleOffline_Handle() {
	offline := llm.NewOffline()
	offline.Handle("interview-followup", func(ctx context.Context, req llm.Request) (string, error) {
		return `{"followUp": "Can you give an example?", "endInterview": false}`, nil
	})
	resp, _ := offline.Generate(context.Background(), llm.Request{Stage: "interview-followup"})
	fmt.Println(resp.Offline, resp.Content)

	_, err := offline.Generate(context.Background(), llm.Request{Stage: "interview-demeanor"})
	fmt.Println(err)
	// Output:
	// true {"followUp": "Can you give an example?", "endInterview": false}
	// the offline model cannot do stage "interview-demeanor"; configure a real model
}
