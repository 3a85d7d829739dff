package offline_test

import (
	"context"
	"fmt"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/offline"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

func Example() {
	model := llm.NewOffline()
	offline.Register(model)

	// The interview service builds each stage's request from its prompt and
	// a JSON input; the offline model reads that input.
	prompt, err := interview.LoadPrompt(interview.StageFollowUp)
	if err != nil {
		fmt.Println(err)
		return
	}
	req, err := prompt.Request(interview.FollowUpInput{
		QuestionNumber: "3",
		Question: interview.QuestionSpec{
			Content: "What is a race condition and how do you prevent one?",
			Anchors: []interview.Anchor{
				{Name: "Synchronization", Weight: 60, Core: true, AcceptableStatements: []string{"protect shared state with a mutex or lock"}},
				{Name: "Detection", Weight: 40, AcceptableStatements: []string{"run a race detector"}},
			},
			FollowUpStrategy: "How would you find a race condition that only shows up in production?",
		},
		Answer:  "Two threads write the same variable at once.",
		Targets: []string{"Synchronization"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Offline, resp.Content)
	// Output: true {"followUp":"Could you expand on synchronization?","endInterview":false}
}
