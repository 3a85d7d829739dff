// Package offline is the built-in offline interview model: deterministic
// answers to every interview AI stage that needs no eyes, so a mock
// interview runs end to end without an API key.
//
// It reads each stage's JSON user message (interview.UserInput) and returns
// the JSON object the stage's prompt asks a real model for: a resume
// profile from a skill dictionary, rubric questions that open with
// deep-dives on the projects the resume names and go on with a built-in bank,
// evaluations by keyword overlap between the answer and the rubric's
// acceptable statements, and follow-ups from the rubric. The same input
// always gives byte-identical output: there is no randomness, no clock and
// no map iteration in anything that reaches the output.
//
// The model is bilingual (English and Simplified Chinese). It writes in the
// session's language, which every stage's prompt states
// (interview.RequestLanguage): an English resume in a Chinese session gets
// Chinese questions with a Chinese rubric (rubricZH), an English answer
// Chinese feedback, and the other way round. Only a request that states no
// language falls back to the script of the text: a mostly Chinese resume or
// answer gets Chinese. Chinese text is matched by character bigrams (no
// dictionary needed), with synonyms per acceptable statement, and a bank
// question is matched against both its English and its Chinese wording.
//
// The demeanor stage is deliberately not handled: the offline model cannot
// see photos, so the caller records "not assessed" rather than a made-up
// number.
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// Register makes o answer the interview stages resume-profile-extraction,
// interview-extraction, interview-evaluation, interview-review and
// interview-followup. It leaves interview-demeanor unregistered.
func Register(o *llm.Offline) {
	o.Handle(interview.StageProfile, responder(buildProfileIn))
	o.Handle(interview.StageExtraction, responder(buildQuestionsIn))
	o.Handle(interview.StageEvaluation, responder(evaluateIn))
	o.Handle(interview.StageReview, responder(evaluateIn))
	o.Handle(interview.StageFollowUp, responder(buildFollowUpIn))
}

// responder adapts a pure function of the stage's input and the language
// the request asks for to an llm.Responder.
func responder[In, Out any](fn func(In, string) Out) llm.Responder {
	return func(_ context.Context, req llm.Request) (string, error) {
		var in In
		if err := interview.UserInput(req, &in); err != nil {
			return "", fmt.Errorf("offline: decode %s input: %w", req.Stage, err)
		}
		b, err := json.Marshal(fn(in, interview.RequestLanguage(req)))
		if err != nil {
			return "", fmt.Errorf("offline: encode %s output: %w", req.Stage, err)
		}
		return string(b), nil
	}
}

// chineseOutput reports whether to write in Chinese: as lang says when it
// is set, else when the first of texts that is not blank is mostly
// Chinese.
func chineseOutput(lang string, texts ...string) bool {
	switch lang {
	case interview.LangZH:
		return true
	case interview.LangEN:
		return false
	}
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			return isChinese(t)
		}
	}
	return false
}
