package interview_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
)

// pointCount is how many strengths and improvements the answers list.
func pointCount(answers []interview.AnswerResp) int {
	n := 0
	for _, a := range answers {
		n += len(a.Strengths) + len(a.Improvements)
	}
	return n
}

// Issue 19: an answer's response lists what was good and what to improve,
// from the judgments that scored it; the replay of the same request and the
// report's playback carry the same lists; a hidden score lists nothing.
func TestAnswerStrengthsAndImprovements(t *testing.T) {
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	s := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test", "AI_OPENAI_MODEL=fake-gpt")
	c := MustClient(t, s.URL, "points")
	sid := c.newSession()
	wantOK(t, c.upload(sid, "resume.pdf", resumePDF(t), ""))
	wantOK(t, c.do("GET", "/sessions/"+sid+"/current-question", nil))

	// The fake judges a WEAK answer's core point and its completeness and
	// depth partial, the rest met, and always misses "an example".
	body := map[string]string{"questionNumber": "1", "answerContent": "WEAK answer about topic 1", "requestId": "points-1"}
	r := c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	wantOK(t, r)
	if !strings.Contains(string(r.Data), `"strengths":[`) || !strings.Contains(string(r.Data), `"improvements":[`) {
		t.Fatalf("answer response without both lists: %s", r.Data)
	}
	var a interview.AnswerResp
	r.Decode(t, &a)
	wantStrengths := []string{"Covered the key point: trade-offs.", "The answer is technically correct.",
		"The reasoning is well structured.", "The answer is clearly expressed."}
	wantImprovements := []string{"Develop the key point further: core idea 1.", "Also cover: an example.",
		"Cover every part of the question.", "Go deeper: explain why it works and the trade-offs."}
	if !slices.Equal(a.Strengths, wantStrengths) || !slices.Equal(a.Improvements, wantImprovements) {
		t.Fatalf("strengths %q\nimprovements %q\nwant %q\nand %q", a.Strengths, a.Improvements, wantStrengths, wantImprovements)
	}

	// The same request again: the stored response, lists included.
	r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", body)
	wantOK(t, r)
	var replay interview.AnswerResp
	r.Decode(t, &replay)
	if !slices.Equal(replay.Strengths, wantStrengths) || !slices.Equal(replay.Improvements, wantImprovements) {
		t.Fatalf("replay lists: %s", r.Data)
	}

	// Restore carries the last feedback, lists included, for a client
	// that did not keep it.
	r = c.do("GET", "/sessions/"+sid+"/restore", nil)
	wantOK(t, r)
	var rs interview.Restore
	r.Decode(t, &rs)
	if lf := rs.LastFeedback; lf == nil || lf.AnswerContent != body["answerContent"] || lf.Response.QuestionNumber != "1" ||
		!slices.Equal(lf.Response.Strengths, wantStrengths) || !slices.Equal(lf.Response.Improvements, wantImprovements) {
		t.Fatalf("restore's last feedback: %s", r.Data)
	}

	// A VAGUE answer gives no evidence: no score, and nothing listed.
	r = c.do("POST", "/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": a.NextQuestionNumber, "answerContent": "VAGUE"})
	wantOK(t, r)
	var vague interview.AnswerResp
	r.Decode(t, &vague)
	if vague.Score != nil || vague.ScoreHidden == "" || !strings.Contains(string(r.Data), `"strengths":[],"improvements":[]`) {
		t.Fatalf("hidden score response: %s", r.Data)
	}

	r = c.do("GET", "/sessions/"+sid+"/restore", nil)
	rs = interview.Restore{}
	r.Decode(t, &rs)
	if lf := rs.LastFeedback; lf == nil || lf.Response.QuestionNumber != vague.QuestionNumber || lf.Response.Score != nil ||
		len(lf.Response.Strengths)+len(lf.Response.Improvements) != 0 {
		t.Fatalf("restore's last feedback after a hidden score: %s", r.Data)
	}

	// The live report plays the answers back with the same lists.
	rep := c.record(sid)
	if len(rep.PlaybackItems) != 2 {
		t.Fatalf("playback: %+v", rep.PlaybackItems)
	}
	first, second := rep.PlaybackItems[0], rep.PlaybackItems[1]
	if !slices.Equal(first.Strengths, wantStrengths) || !slices.Equal(first.Improvements, wantImprovements) ||
		len(second.Strengths) != 0 || len(second.Improvements) != 0 || second.Strengths == nil {
		t.Fatalf("playback lists: %+v / %+v", first, second)
	}
}
