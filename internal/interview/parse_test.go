package interview

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// wantUnusable fails unless err is a retryable upstream *apperr.Error whose
// message names stage.
func wantUnusable(tb testing.TB, err error, stage string) {
	tb.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) {
		tb.Fatalf("err = %v (%T), want *apperr.Error", err, err)
	}
	if e.Kind != apperr.KindUpstream || e.Code != apperr.CodeAIUpstream || !e.Retryable {
		tb.Errorf("err = %+v, want retryable KindUpstream %s", e, apperr.CodeAIUpstream)
	}
	if want := "model output for " + stage + " is unusable: "; !strings.HasPrefix(e.Message, want) {
		tb.Errorf("message = %q, want prefix %q", e.Message, want)
	}
}

const evalJSON = `{"dimensions": [
  {"id": "correctness", "status": "met", "evidence": "MVCC snapshots", "confidence": 0.9},
  {"id": "completeness", "status": "partial", "evidence": "no gap locks", "confidence": 0.8},
  {"id": "logic", "status": "met", "evidence": "ordered", "confidence": 0.95},
  {"id": "depth", "status": "partial", "evidence": "shallow", "confidence": 0.75},
  {"id": "clarity", "status": "met", "evidence": "clear", "confidence": 1}],
 "anchors": [{"name": "Gap Locks", "status": "partial", "evidence": "mentions locks"}],
 "score": 78, "feedback": "Good; add gap locks.", "missingPoints": ["gap locks"]}`

var evalWant = Evaluation{
	Dimensions: []DimensionJudgment{
		{ID: "correctness", Status: "met", Evidence: "MVCC snapshots", Confidence: 0.9},
		{ID: "completeness", Status: "partial", Evidence: "no gap locks", Confidence: 0.8},
		{ID: "logic", Status: "met", Evidence: "ordered", Confidence: 0.95},
		{ID: "depth", Status: "partial", Evidence: "shallow", Confidence: 0.75},
		{ID: "clarity", Status: "met", Evidence: "clear", Confidence: 1},
	},
	Anchors:       []AnchorJudgment{{Name: "Gap Locks", Status: "partial", Evidence: "mentions locks"}},
	Score:         78,
	Feedback:      "Good; add gap locks.",
	MissingPoints: []string{"gap locks"},
}

func TestParseEvaluation(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    Evaluation
	}{
		{"plain", evalJSON, evalWant},
		{"fenced", "```json\n" + evalJSON + "\n```", evalWant},
		{"text around", "Here is my evaluation:\n" + evalJSON + "\nHope this helps {not json}.", evalWant},
		{"brace in prose before", "Scores use {curly} notes. " + evalJSON, evalWant},
		{"stray quote in prose before", `Note: {" is odd ` + evalJSON, evalWant},
		{"nested under result", `{"result": ` + evalJSON + `, "model": "x"}`, evalWant},
		{"nested under data as a string", `{"data": ` + quoteJSON(evalJSON) + `}`, evalWant},
		{"nested under an unknown key", `{"evaluation_v2": ` + evalJSON + `}`, evalWant},
		{"numbers as strings, upper case, snake case", `{"dimensions": [
			{"id": "Correctness", "status": "MET", "evidence": "MVCC snapshots", "confidence": "0.9"},
			{"id": "COMPLETENESS", "status": "Partial", "evidence": "no gap locks", "confidence": "80%"},
			{"id": "logic", "status": "met", "evidence": "ordered", "confidence": 0.95},
			{"id": "depth", "status": " partial ", "evidence": "shallow", "confidence": "0.75"},
			{"id": "clarity", "status": "met", "evidence": "clear", "confidence": "1"}],
			"anchors": [{"name": " Gap Locks ", "status": "PARTIAL", "evidence": "mentions locks"}],
			"score": "78", "feedback": "Good; add gap locks.", "missing_points": "gap locks", "extra": {"ignored": true}}`, evalWant},
		{"clamped", `{"dimensions": [{"id": "logic", "status": "met", "confidence": 1.5}, {"id": "depth", "status": "met", "confidence": -0.2},
			{"id": "clarity", "status": "met", "confidence": 85}], "score": 130}`,
			Evaluation{Dimensions: []DimensionJudgment{{ID: "logic", Status: "met", Confidence: 0.015}, {ID: "depth", Status: "met", Confidence: 0},
				{ID: "clarity", Status: "met", Confidence: 0.85}}, Score: 100}},
		{"negative score clamped", `{"score": -3}`, Evaluation{Score: 0}},
		{"fractional score rounded", `{"score": "77.5"}`, Evaluation{Score: 78}},
		{"dimensions as a map", `{"dimensions": {"logic": {"status": "met", "confidence": 0.8}, "clarity": "partial"}, "score": 50}`,
			Evaluation{Dimensions: []DimensionJudgment{{ID: "clarity", Status: "partial"}, {ID: "logic", Status: "met", Confidence: 0.8}}, Score: 50}},
		{"status synonyms", `{"dimensions": [{"id": "logic", "status": "partially met"}, {"id": "depth", "status": "not met"}, {"id": "clarity", "status": "wrong"}]}`,
			Evaluation{Dimensions: []DimensionJudgment{{ID: "logic", Status: "partial"}, {ID: "depth", Status: "missing"}, {ID: "clarity", Status: "contradicted"}}}},
		{"unknown status kept for the rules", `{"dimensions": [{"id": "logic", "status": "Great"}]}`,
			Evaluation{Dimensions: []DimensionJudgment{{ID: "logic", Status: "great"}}}},
		{"missing fields", `{"score": 64}`, Evaluation{Score: 64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEvaluation(tt.content)
			if err != nil {
				t.Fatalf("ParseEvaluation: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseEvaluation =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// quoteJSON writes s as a JSON string literal.
func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestParseEvaluationUnusable(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"empty", ""},
		{"white space", "  \n"},
		{"garbage", "I think the candidate did well."},
		{"truncated", evalJSON[:len(evalJSON)/2]},
		{"unbalanced close", "}}}{"},
		{"invalid JSON inside braces", "{score: 80, dimensions: []}"},
		{"array only", `[1, 2, 3]`},
		{"no expected field", `{"verdict": "good", "grade": 80}`},
		{"null fields", `{"dimensions": null, "score": null}`},
		{"fields without dimensions or score", `{"feedback": "nice", "anchors": []}`},
		{"score not a number", `{"score": "high"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvaluation(tt.content)
			wantUnusable(t, err, StageEvaluation)
		})
	}
}

func TestParseEvaluationThenScore(t *testing.T) {
	ev, err := ParseEvaluation("```json\n" + evalJSON + "\n```")
	if err != nil {
		t.Fatal(err)
	}
	// correctness met, completeness partial, logic met, depth partial, clarity met: 30+12.5+20+7.5+10 = 80.
	if got, want := Score(ev), (Scored{Score: 80, Level: LevelQualified, RuleScore: 80, Reason: "rule"}); got != want {
		t.Errorf("Score = %+v, want %+v", got, want)
	}
}

func TestParseProfile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    Profile
	}{
		{"full", `{"skills": ["Go", " MySQL ", ""], "skillEvidence": [{"skill": "Go", "evidence": "wrote a proxy"}, {"evidence": "no skill"}],
			"roleHypotheses": [{"target": "backend engineer", "evidence": "Go services", "confidence": "0.8"}, {"target": " ", "confidence": 1}],
			"resumeScore": "82", "resumeSuggestions": ["Quantify impact"], "projectQuestionHints": ["proxy design"], "resumeType": "backend"}`,
			Profile{Skills: []string{"Go", "MySQL"}, SkillEvidence: []SkillEvidence{{Skill: "Go", Evidence: "wrote a proxy"}},
				RoleHypotheses: []RoleHypothesis{{Target: "backend engineer", Evidence: "Go services", Confidence: 0.8}},
				ResumeScore:    82, ResumeSuggestions: []string{"Quantify impact"}, ProjectQuestionHints: []string{"proxy design"}, ResumeType: "backend"}},
		{"nested and snake case", "```\n{\"data\": {\"resume_score\": 140, \"role_hypotheses\": [{\"role\": \"SRE\", \"confidence\": 70}]}}\n```",
			Profile{ResumeScore: 100, RoleHypotheses: []RoleHypothesis{{Target: "SRE", Confidence: 0.7}}}},
		{"only skills", `{"skills": "Go"}`, Profile{Skills: []string{"Go"}}},
		{"maps and plain strings", `{"skillEvidence": {"Go": "wrote a proxy", "SQL": {"evidence": "tuned queries"}}, "roleHypotheses": ["SRE"]}`,
			Profile{SkillEvidence: []SkillEvidence{{Skill: "Go", Evidence: "wrote a proxy"}, {Skill: "SQL", Evidence: "tuned queries"}},
				RoleHypotheses: []RoleHypothesis{{Target: "SRE"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProfile(tt.content)
			if err != nil {
				t.Fatalf("ParseProfile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseProfile =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "no json", `{"name": "x"}`, `{"skills": ["Go"`} {
		t.Run("unusable "+bad, func(t *testing.T) {
			_, err := ParseProfile(bad)
			wantUnusable(t, err, StageProfile)
		})
	}
}

func TestParseQuestions(t *testing.T) {
	content := "Sure!\n```json\n" + `{"questions": [
	  {"content": " Explain MVCC. ", "anchors": [
	    {"name": "Snapshots", "weight": "60", "core": "true", "acceptableStatements": ["reads see a snapshot"]},
	    {"name": "Undo log", "weight": 40, "core": false}],
	   "commonMistakes": ["locks every read"], "followUpStrategy": "ask about purge", "rubricVersion": 2},
	  {"content": "Design a rate limiter.", "anchors": [{"name": "Token bucket", "weight": 50, "core": true, "acceptableStatements": ["tokens refill"]}]},
	  {"content": "  ", "anchors": []},
	  "What is a goroutine?"],
	 "suggestions": ["Add metrics"], "interviewType": "backend", "resumeScore": "75"}` + "\n```"
	want := Questions{
		Questions: []QuestionSpec{
			{Content: "Explain MVCC.", Anchors: []Anchor{
				{Name: "Snapshots", Weight: 60, Core: true, AcceptableStatements: []string{"reads see a snapshot"}},
				{Name: "Undo log", Weight: 40}},
				CommonMistakes: []string{"locks every read"}, FollowUpStrategy: "ask about purge", RubricVersion: 2},
			{Content: "Design a rate limiter.", Anchors: []Anchor{{Name: "legacy", Weight: 100, Core: true, AcceptableStatements: []string{"tokens refill"}}},
				RubricVersion: 1, Degraded: "weight-sum:50"},
			{Content: "What is a goroutine?", Anchors: []Anchor{{Name: "legacy", Weight: 100, Core: true}}, RubricVersion: 1, Degraded: "no-anchors"},
		},
		Suggestions: []string{"Add metrics"}, InterviewType: "backend", ResumeScore: 75,
	}
	got, err := ParseQuestions(content)
	if err != nil {
		t.Fatalf("ParseQuestions: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseQuestions =\n%+v\nwant\n%+v", got, want)
	}

	for name, bad := range map[string]string{
		"empty":              "",
		"no questions":       `{"questions": []}`,
		"only blank content": `{"questions": [{"content": " "}, ""]}`,
		"other fields":       `{"suggestions": ["x"]}`,
		"truncated":          `{"questions": [{"content": "Explain`,
	} {
		t.Run("unusable "+name, func(t *testing.T) {
			_, err := ParseQuestions(bad)
			wantUnusable(t, err, StageExtraction)
		})
	}
}

func TestParseFollowUp(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    FollowUpOutput
	}{
		{"plain", `{"followUp": "How does purge work?", "endInterview": false}`, FollowUpOutput{FollowUp: "How does purge work?"}},
		{"bool as string", `{"follow_up": "Follow-up: How does purge work?", "endInterview": "true"}`, FollowUpOutput{FollowUp: "How does purge work?", EndInterview: true}},
		{"nested", `{"response": {"followUp": "为什么？"}}`, FollowUpOutput{FollowUp: "为什么？"}},
		{"unusable question becomes empty", `{"followUp": "Explain purge.", "endInterview": false}`, FollowUpOutput{}},
		{"too long becomes empty", `{"followUp": "` + strings.Repeat("x", 120) + `?"}`, FollowUpOutput{}},
		{"plain text question", "How does purge work?", FollowUpOutput{FollowUp: "How does purge work?"}},
		{"fenced text question", "```\nHow does purge work?\n```", FollowUpOutput{FollowUp: "How does purge work?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFollowUp(tt.content)
			if err != nil {
				t.Fatalf("ParseFollowUp: %v", err)
			}
			if got != tt.want {
				t.Errorf("ParseFollowUp = %+v, want %+v", got, tt.want)
			}
		})
	}
	for name, bad := range map[string]string{
		"empty":          "",
		"statement text": "I cannot help with that.",
		"other fields":   `{"text": "How?"}`,
		"truncated":      `{"followUp": "How does`,
	} {
		t.Run("unusable "+name, func(t *testing.T) {
			_, err := ParseFollowUp(bad)
			wantUnusable(t, err, StageFollowUp)
		})
	}
}

func TestParseDemeanor(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    Demeanor
	}{
		{"0-100", `{"panicLevel": 80, "seriousnessLevel": 70, "emoticonHandling": 90, "compositeScore": 82}`, Demeanor{80, 70, 90, 82}},
		{"0-10 scale as strings", "```json\n{\"panicLevel\": \"8\", \"seriousnessLevel\": \"7\", \"emoticonHandling\": 9, \"compositeScore\": \"8\"}\n```", Demeanor{80, 70, 90, 80}},
		{"clamped", `{"panic_level": 180, "seriousnessLevel": 70, "emoticonHandling": -4, "compositeScore": 101}`, Demeanor{100, 70, 0, 100}},
		{"composite missing is the mean", `{"result": {"panicLevel": 80, "seriousnessLevel": 71, "emoticonHandling": 90}}`, Demeanor{80, 71, 90, 80}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDemeanor(tt.content)
			if err != nil {
				t.Fatalf("ParseDemeanor: %v", err)
			}
			if got != tt.want {
				t.Errorf("ParseDemeanor = %+v, want %+v", got, tt.want)
			}
		})
	}
	for name, bad := range map[string]string{
		"empty":        "",
		"not numbers":  `{"panicLevel": "calm", "compositeScore": "good"}`,
		"other fields": `{"mood": 5}`,
		"truncated":    `{"panicLevel": 8`,
	} {
		t.Run("unusable "+name, func(t *testing.T) {
			_, err := ParseDemeanor(bad)
			wantUnusable(t, err, StageDemeanor)
		})
	}
}

// fuzzSeeds are the seeds shared by the parser fuzz targets.
var fuzzSeeds = []string{
	"", "{", "}", "{}", "[]", "null", `"{"`, `{"a":"\"}"}`, "```json\n{}\n```",
	evalJSON, evalJSON[:40], `{"result": {"score": "85"}}`, `{"data": "{\"score\": 1}"}`,
	`{"dimensions": {"logic": "met"}, "score": 1e400}`, `{"score": "-1e308"}`, `{"score": 9223372036854775808}`,
	`{"questions": ["q", {"content": "c", "anchors": [{"name": "a", "weight": "1e30", "core": 1}]}]}`,
	`{"followUp": "“”", "endInterview": "yes"}`, `{"panicLevel": "NaN", "compositeScore": "Inf"}`,
	strings.Repeat("{", 100), strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50),
}

// checkParse fails unless err is nil or a retryable upstream *apperr.Error.
func checkParse(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	e := apperr.As(err)
	if e == nil || e.Kind != apperr.KindUpstream || !e.Retryable {
		t.Fatalf("err = %#v, want retryable KindUpstream *apperr.Error", err)
	}
}

func FuzzParseEvaluation(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		ev, err := ParseEvaluation(content)
		checkParse(t, err)
		if ev.Score < 0 || ev.Score > 100 {
			t.Fatalf("score %d out of range", ev.Score)
		}
		for _, d := range ev.Dimensions {
			if d.Confidence < 0 || d.Confidence > 1 {
				t.Fatalf("confidence %v out of range", d.Confidence)
			}
		}
		s := Score(ev) // the rules must accept whatever the parser returns
		if s.Score < 0 || s.Score > 100 {
			t.Fatalf("scored %d out of range", s.Score)
		}
		_ = GuardFeedback(ev.Feedback, ev, QuestionSpec{})
	})
}

func FuzzParseQuestions(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		q, err := ParseQuestions(content)
		checkParse(t, err)
		for _, spec := range q.Questions {
			if rubricProblem(spec) != "" || spec.Content == "" {
				t.Fatalf("invalid spec returned: %+v", spec)
			}
		}
	})
}

func FuzzParseProfile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		_, err := ParseProfile(content)
		checkParse(t, err)
	})
}

func FuzzParseFollowUp(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		out, err := ParseFollowUp(content)
		checkParse(t, err)
		if out.FollowUp != "" {
			if got, ok := CleanFollowUp(out.FollowUp); !ok || got != out.FollowUp {
				t.Fatalf("follow-up %q is not clean", out.FollowUp)
			}
		}
	})
}

func FuzzParseDemeanor(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		d, err := ParseDemeanor(content)
		checkParse(t, err)
		for _, v := range []int{d.PanicLevel, d.SeriousnessLevel, d.EmoticonHandling, d.CompositeScore} {
			if v < 0 || v > 100 {
				t.Fatalf("demeanor %+v out of range", d)
			}
		}
	})
}
