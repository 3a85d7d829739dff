package interviewtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

func request(stage, user string) llmtest.RecordedRequest {
	h := http.Header{}
	if stage != "" {
		h.Set(llm.StageHeader, stage)
	}
	return llmtest.RecordedRequest{Header: h, Messages: []llmtest.RecordedMessage{
		{Role: "system", Content: "any wording at all"}, {Role: "user", Content: user}}}
}

// The model routes on the stage marker alone and its answers parse as the
// stage's output.
func TestModelRoutesOnStageMarker(t *testing.T) {
	m := &interviewtest.Model{}
	if _, err := interview.ParseProfile(m.Reply(request(interview.StageProfile, "{}")).Content); err != nil {
		t.Fatalf("profile: %v", err)
	}
	qs, err := interview.ParseQuestions(m.Reply(request(interview.StageExtraction, "{}")).Content)
	if err != nil || len(qs.Questions) != interviewtest.QuestionCount || qs.Questions[0].Degraded != "" {
		t.Fatalf("extraction: %+v %v", qs, err)
	}
	in, _ := json.Marshal(interview.EvaluationInput{QuestionNumber: "1", Question: qs.Questions[0], Answer: "WEAK UNSURE"})
	ev, err := interview.ParseEvaluation(m.Reply(request(interview.StageEvaluation, string(in))).Content)
	if err != nil || ev.Anchors[0].Status != interview.StatusPartial || ev.Dimensions[0].Confidence != 0.4 {
		t.Fatalf("evaluation of a WEAK UNSURE answer: %+v %v", ev, err)
	}
	rev, err := interview.ParseEvaluation(m.Reply(request(interview.StageReview, string(in))).Content)
	if err != nil || rev.Dimensions[0].Confidence != 0.95 {
		t.Fatalf("review: %+v %v, want a confident second look", rev, err)
	}
	fu, err := interview.ParseFollowUp(m.Reply(request(interview.StageFollowUp, "{}")).Content)
	if err != nil || fu.FollowUp != interviewtest.FollowUp {
		t.Fatalf("follow-up: %+v %v", fu, err)
	}
	for _, stage := range []string{"", "chat"} {
		if r := m.Reply(request(stage, "{}")); r.Status != 400 || !strings.Contains(r.ErrorBody, "unexpected stage") {
			t.Errorf("stage %q: %+v, want a 400", stage, r)
		}
	}
	if r := m.Reply(request(interview.StageDemeanor, "{}")); r.Status != 400 {
		t.Errorf("demeanor without an image: %+v, want a 400", r)
	}
	m.Fail(interview.StageProfile, true)
	if r := m.Reply(request(interview.StageProfile, "{}")); r.Status != 500 {
		t.Errorf("failing stage answered %+v", r)
	}
	if got := m.Calls(interview.StageProfile); got != 2 {
		t.Errorf("profile calls = %d, want 2", got)
	}
}
