package offline_test

import (
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// TestThroughInterviewParsers feeds the offline outputs to the interview
// package's own parsers and rules, as the service does: nothing degrades,
// and the evaluation's judgments give a rule score.
func TestThroughInterviewParsers(t *testing.T) {
	o := newModel()
	resume := mustReadFile(t, "testdata/backend_resume.txt")
	profile, err := interview.ParseProfile(mustGenerate(t, o, interview.StageProfile, interview.ProfileInput{ResumeText: resume}))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := interview.ParseQuestions(mustGenerate(t, o, interview.StageExtraction,
		interview.ExtractionInput{ResumeText: resume, Target: profile.ResumeType, Profile: profile, QuestionCount: 6}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs.Questions {
		if q.Degraded != "" {
			t.Errorf("question %q degraded: %s", q.Content, q.Degraded)
		}
	}
	for _, answer := range []string{"", "An index is a B+ tree of sorted keys, so lookups avoid a full table scan; but indexes slow down inserts."} {
		ev, err := interview.ParseEvaluation(mustGenerate(t, o, interview.StageEvaluation,
			interview.EvaluationInput{QuestionNumber: "1", Question: qs.Questions[0], Answer: answer}))
		if err != nil {
			t.Fatal(err)
		}
		if s := interview.Score(ev); s.Reason != "rule" {
			t.Errorf("answer %q: scored by %q, want the rule score", answer, s.Reason)
		}
	}
	fu, err := interview.ParseFollowUp(mustGenerate(t, o, interview.StageFollowUp,
		interview.FollowUpInput{QuestionNumber: "1", Question: qs.Questions[0], Answer: "B+ tree.", Targets: []string{qs.Questions[0].Anchors[0].Name}}))
	if err != nil || fu.FollowUp == "" {
		t.Errorf("follow-up %+v, %v", fu, err)
	}
}
