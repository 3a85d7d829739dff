package interview

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// Each stage's prompt is a system message from prompts/<stage>.txt (its
// first line is "version: N") and a user message that is one JSON object of
// the stage's inputs below. Real models read JSON inputs well, and the
// offline model reads them exactly.

//go:embed prompts/*.txt
var promptFiles embed.FS

// ProfileInput is the user message of resume-profile-extraction.
type ProfileInput struct {
	ResumeText      string `json:"resumeText"`
	ConfirmedTarget string `json:"confirmedTarget,omitempty"`
}

// ExtractionInput is the user message of interview-extraction.
type ExtractionInput struct {
	ResumeText    string  `json:"resumeText"`
	Target        string  `json:"target"`
	Profile       Profile `json:"profile"`
	QuestionCount int     `json:"questionCount"`
}

// EvaluationInput is the user message of interview-evaluation and
// interview-review.
type EvaluationInput struct {
	QuestionNumber string       `json:"questionNumber"`
	Question       QuestionSpec `json:"question"`
	Answer         string       `json:"answer"`
	// Review is set for the second evaluation: look again, strictly.
	Review bool `json:"review,omitempty"`
	// ResumeProfile is what the resume claims (ResumeProfileText), so that
	// an answer is judged against it; "" when the session has no profile.
	ResumeProfile string `json:"resumeProfile,omitempty"`
}

// MaxResumeProfileChars bounds the resume profile sent with every
// evaluation (characters, i.e. Unicode code points).
const MaxResumeProfileChars = 2000

// ResumeProfileText is the candidate's resume profile as evaluation
// prompts carry it: target, resume type, skills with their evidence, role
// hypotheses and project hints, one line each, cut to
// MaxResumeProfileChars. "" for no profile.
func ResumeProfileText(p *Profile, target string) string {
	if p == nil {
		return ""
	}
	var lines []string
	add := func(label string, items []string) {
		if items = trimList(items); len(items) > 0 {
			lines = append(lines, label+": "+strings.Join(items, "; "))
		}
	}
	add("Target role", []string{target})
	add("Resume type", []string{p.ResumeType})
	add("Skills", p.Skills)
	var evidence, roles []string
	for _, e := range p.SkillEvidence {
		if sk, ev := strings.TrimSpace(e.Skill), strings.TrimSpace(e.Evidence); sk != "" && ev != "" {
			evidence = append(evidence, sk+" — "+ev)
		}
	}
	add("Skill evidence", evidence)
	for _, h := range p.RoleHypotheses {
		if t := strings.TrimSpace(h.Target); t != "" {
			roles = append(roles, fmt.Sprintf("%s (%.2f): %s", t, h.Confidence, strings.TrimSpace(h.Evidence)))
		}
	}
	add("Role hypotheses", roles)
	add("Project hints", p.ProjectQuestionHints)
	text := strings.Join(lines, "\n")
	if r := []rune(text); len(r) > MaxResumeProfileChars {
		text = string(r[:MaxResumeProfileChars-1]) + "…"
	}
	return text
}

// FollowUpInput is the user message of interview-followup.
type FollowUpInput struct {
	QuestionNumber string       `json:"questionNumber"`
	Question       QuestionSpec `json:"question"`
	Answer         string       `json:"answer"`
	Targets        []string     `json:"targets"`
	MissingPoints  []string     `json:"missingPoints"`
}

// Prompt is a loaded system prompt.
type Prompt struct {
	Stage   string
	Version string
	Text    string
}

// LoadPrompt returns the embedded prompt of stage.
func LoadPrompt(stage string) (Prompt, error) {
	b, err := promptFiles.ReadFile("prompts/" + stage + ".txt")
	if err != nil {
		return Prompt{}, fmt.Errorf("interview: no prompt for stage %s: %w", stage, err)
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	version, ok := strings.CutPrefix(strings.TrimSpace(first), "version:")
	if !ok {
		return Prompt{}, fmt.Errorf("interview: prompt %s must start with a version line", stage)
	}
	return Prompt{Stage: stage, Version: stage + "@" + strings.TrimSpace(version), Text: strings.TrimSpace(rest)}, nil
}

// languagePlaceholder marks, in a prompt file, the line that says which
// language the candidate-facing text is written in (see Prompt.In).
const languagePlaceholder = "{{language}}"

// LanguageInstruction is the prompt line asking the model to write what
// the candidate reads (questions, feedback, follow-ups, the report) in
// lang (LangZH or LangEN; anything else is English).
func LanguageInstruction(lang string) string {
	if lang == LangZH {
		return "Write all text for the candidate in Simplified Chinese (technical terms such as \"Redis\" may stay as they are); keep JSON keys and enum values in English."
	}
	return "Write all text for the candidate in English; keep JSON keys and enum values in English."
}

// RequestLanguage returns the language a stage request asks the model to
// write in (the LanguageInstruction in its system message): LangZH,
// LangEN, or "" when the request says none. The offline model follows it,
// whatever the script of the resume or the answer.
func RequestLanguage(req llm.Request) string {
	for _, m := range req.Messages {
		if m.Role != llm.RoleSystem {
			continue
		}
		switch {
		case strings.Contains(m.Content, LanguageInstruction(LangZH)):
			return LangZH
		case strings.Contains(m.Content, LanguageInstruction(LangEN)):
			return LangEN
		}
	}
	return ""
}

// In returns p asking for candidate-facing text in lang.
func (p Prompt) In(lang string) Prompt {
	p.Text = strings.ReplaceAll(p.Text, languagePlaceholder, LanguageInstruction(lang))
	return p
}

// Request builds the model request of the prompt with input as the user
// message. A prompt not yet given a language (Prompt.In) asks for English.
func (p Prompt) Request(input any) (llm.Request, error) {
	p = p.In(LangEN)
	b, err := json.Marshal(input)
	if err != nil {
		return llm.Request{}, err
	}
	return llm.Request{Stage: p.Stage, JSON: true, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: p.Text},
		{Role: llm.RoleUser, Content: string(b)},
	}}, nil
}

// UserInput decodes the JSON user message of req into v (used by the
// offline model).
func UserInput(req llm.Request, v any) error {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return json.Unmarshal([]byte(req.Messages[i].Content), v)
		}
	}
	return fmt.Errorf("interview: request has no user message")
}
