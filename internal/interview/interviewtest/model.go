// Package interviewtest provides the fake interview model of the tests and
// the load generator: an llmtest.Responder that plays every interview stage
// as a real model would, from the JSON inputs of the prompts.
//
// The model recognises a stage by the marker the client sends with every
// request (llm.StageHeader, read by llmtest.RecordedRequest.Stage), never by
// the wording of the system prompts, so prompts can be rewritten freely.
//
// Answers steer the evaluation: an answer containing "WEAK" is judged
// partial on the core anchor (earning a follow-up); "UNSURE" gives the
// first evaluation a low confidence (earning a review); "VAGUE" gives no
// dimension any evidence (the score is hidden); "LEAK" makes the feedback
// carry a credential (LeakedKey), as a model echoing its context might.
package interviewtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
)

// Model is the fake interview model. Its zero value answers every stage at
// once; it is safe for concurrent use.
type Model struct {
	// Latency, when set, is the delay of each reply of stage.
	Latency func(stage string) time.Duration

	mu      sync.Mutex // protects the fields below
	calls   map[string]int
	failing map[string]bool
}

// Reply answers req; it is an llmtest.Responder.
func (m *Model) Reply(req llmtest.RecordedRequest) llmtest.Reply {
	stage := req.Stage()
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[stage]++
	failing := m.failing[stage]
	m.mu.Unlock()

	if failing {
		return llmtest.ErrorReply(500, "upstream overloaded", "server_error")
	}
	reply := m.content(stage, req)
	if m.Latency != nil && reply.Status == 0 {
		reply.Delay = m.Latency(stage)
	}
	return reply
}

// Calls returns how many requests of stage arrived.
func (m *Model) Calls(stage string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[stage]
}

// Fail makes the model answer requests of stage with HTTP 500 (on) or
// normally again (off).
func (m *Model) Fail(stage string, on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing == nil {
		m.failing = map[string]bool{}
	}
	m.failing[stage] = on
}

// Profile is the profile stage's answer: a backend engineer, resume score 72.
const Profile = `{"skills":["Go","MySQL","Redis"],"skillEvidence":[{"skill":"Go","evidence":"Go services"}],
	"roleHypotheses":[{"target":"backend engineer","evidence":"Go services","confidence":"0.8"}],
	"resumeScore":"72","resumeSuggestions":["Quantify your impact."],"projectQuestionHints":["payment service"],"resumeType":"backend"}`

// QuestionCount is how many questions the extraction stage writes.
const QuestionCount = 5

// Extraction is the extraction stage's answer: QuestionCount questions
// ("Question N: how does topic N work?", a 60 % core anchor "core idea N"
// and a "trade-offs" anchor), fenced and with prose around it, as models
// often answer, so that parsing must be lenient.
func Extraction() string {
	var qs []string
	for i := 1; i <= QuestionCount; i++ {
		qs = append(qs, fmt.Sprintf(`{"content":"Question %d: how does topic %d work?","anchors":[
			{"name":"core idea %d","weight":60,"core":true,"acceptableStatements":["explains topic %d"]},
			{"name":"trade-offs","weight":40,"core":false,"acceptableStatements":["names a trade-off"]}],
			"commonMistakes":["confuses it"],"followUpStrategy":"What would you change for topic %d?","rubricVersion":1}`, i, i, i, i, i))
	}
	return "Here you go:\n```json\n{\"questions\":[" + strings.Join(qs, ",") +
		"],\"suggestions\":[\"Add links to code.\"],\"interviewType\":\"backend engineer\",\"resumeScore\":75}\n```\nGood luck!"
}

// FollowUp is the follow-up stage's question.
const FollowUp = "Could you go deeper into the core idea?"

func (m *Model) content(stage string, req llmtest.RecordedRequest) llmtest.Reply {
	switch stage {
	case interview.StageProfile:
		return llmtest.Reply{Content: Profile}
	case interview.StageExtraction:
		return llmtest.Reply{Content: Extraction()}
	case interview.StageEvaluation, interview.StageReview:
		var in interview.EvaluationInput
		if err := json.Unmarshal([]byte(req.LastUserMessage()), &in); err != nil {
			return llmtest.ErrorReply(400, "the user message is not an evaluation input: "+err.Error(), "invalid_request_error")
		}
		return llmtest.Reply{Content: Evaluation(in, stage == interview.StageReview)}
	case interview.StageFollowUp:
		return llmtest.Reply{Content: `{"followUp":"` + FollowUp + `","endInterview":false}`}
	case interview.StageDemeanor:
		if len(req.Messages) == 0 {
			return llmtest.ErrorReply(400, "no messages", "invalid_request_error")
		}
		last := req.Messages[len(req.Messages)-1]
		if len(last.Images) != 1 || !strings.HasPrefix(last.Images[0], "data:image/png;base64,") {
			return llmtest.ErrorReply(400, "expected one PNG image part", "invalid_request_error")
		}
		// A 0-10 scale answer: the backend must scale it to 0-100.
		return llmtest.Reply{Content: `{"panicLevel":8,"seriousnessLevel":9,"emoticonHandling":7,"compositeScore":8}`}
	}
	return llmtest.ErrorReply(400, fmt.Sprintf("unexpected stage %q", stage), "invalid_request_error")
}

// Evaluation is the evaluation (or, with review, the review) of in: every
// dimension met with evidence, score 88, unless the answer says WEAK (core
// anchor, completeness and depth partial) or, on the first evaluation,
// UNSURE (confidence 0.4).
func Evaluation(in interview.EvaluationInput, review bool) string {
	core, conf := "met", 0.95
	if strings.Contains(in.Answer, "WEAK") {
		core = "partial"
	}
	if strings.Contains(in.Answer, "UNSURE") && !review {
		conf = 0.4
	}
	evidence := "said so"
	if strings.Contains(in.Answer, "VAGUE") {
		evidence = ""
	}
	feedback := "Clear answer about the topic."
	if strings.Contains(in.Answer, "LEAK") {
		feedback += " Use api_key=" + LeakedKey + " next time."
	}
	var dims []string
	for _, d := range interview.Dimensions {
		st := "met"
		if core == "partial" && (d == "completeness" || d == "depth") {
			st = "partial"
		}
		dims = append(dims, fmt.Sprintf(`{"id":%q,"status":%q,"evidence":%q,"confidence":%.2f}`, d, st, evidence, conf))
	}
	anchor := "core idea"
	if len(in.Question.Anchors) > 0 {
		anchor = in.Question.Anchors[0].Name
	}
	anchors := fmt.Sprintf(`[{"name":%q,"status":%q,"evidence":"e"},{"name":"trade-offs","status":"met","evidence":"e"}]`, anchor, core)
	return `{"result":{"dimensions":[` + strings.Join(dims, ",") + `],"anchors":` + anchors +
		`,"score":88,"feedback":` + strconvQuote(feedback) + `,"missingPoints":["an example"]}}`
}

// LeakedKey is the credential a "LEAK" answer's feedback carries.
const LeakedKey = "sk-test-leak0123456789abcdef"

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
