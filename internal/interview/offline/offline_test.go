package offline_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/offline"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

// newModel returns an offline model with the interview stages registered.
func newModel() *llm.Offline {
	o := llm.NewOffline()
	offline.Register(o)
	return o
}

// mustGenerate sends input to stage in the language of its text (the
// resume, else the target; the answer, else the question), as a session
// whose language was detected from that text would.
func mustGenerate(tb testing.TB, o *llm.Offline, stage string, input any) string {
	tb.Helper()
	return mustGenerateIn(tb, o, stage, inputLanguage(input), input)
}

// inputLanguage is the language of input's main text.
func inputLanguage(input any) string {
	var texts []string
	switch in := input.(type) {
	case interview.ProfileInput:
		texts = []string{in.ResumeText}
	case interview.ExtractionInput:
		texts = []string{in.ResumeText, in.Target}
	case interview.EvaluationInput:
		texts = []string{in.Answer, in.Question.Content}
	case interview.FollowUpInput:
		texts = []string{in.Answer, in.Question.Content}
	}
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			if offline.IsChinese(t) {
				return interview.LangZH
			}
			return interview.LangEN
		}
	}
	return interview.LangEN
}

// mustGenerateIn sends input to stage the way the interview service does
// (the stage's prompt asking for lang, input as the JSON user message) and
// returns the text.
func mustGenerateIn(tb testing.TB, o *llm.Offline, stage, lang string, input any) string {
	tb.Helper()
	p, err := interview.LoadPrompt(stage)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := p.In(lang).Request(input)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := o.Generate(context.Background(), req)
	if err != nil {
		tb.Fatalf("%s: %v", stage, err)
	}
	if !resp.Offline {
		tb.Errorf("%s: response not marked offline", stage)
	}
	return resp.Content
}

// mustDecode parses text strictly into the contract type T.
func mustDecode[T any](tb testing.TB, text string) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %T: %v\n%s", v, err, text)
	}
	return v
}

func mustReadFile(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// cacheQuestion is the bank's Redis cache question, as the tests use it.
func cacheQuestion() interview.QuestionSpec {
	return interview.QuestionSpec{
		Content: "How would you put a Redis cache in front of a MySQL database, and how do you keep them consistent?",
		Anchors: []interview.Anchor{
			{Name: "Cache-aside pattern", Weight: 35, Core: true, AcceptableStatements: []string{
				"read from the cache first, and on a miss load from the database and fill the cache", "set a TTL on cached keys"}},
			{Name: "Consistency on writes", Weight: 40, Core: true, AcceptableStatements: []string{
				"update the database then delete the cache key", "delayed double delete or binlog-based invalidation", "accept eventual consistency with a short TTL"}},
			{Name: "Cache failure modes", Weight: 25, AcceptableStatements: []string{
				"cache penetration: cache empty results or use a bloom filter", "cache avalanche: add random jitter to TTLs", "hot key breakdown: rebuild with a mutex or single-flight"}},
		},
		CommonMistakes:   []string{"updating the cache before the database is always consistent", "a cache never needs an expiration time"},
		FollowUpStrategy: "What happens if deleting the cache key fails after the database update?",
		RubricVersion:    1,
	}
}

func TestDeterministic(t *testing.T) {
	o := newModel()
	resume := mustReadFile(t, "testdata/backend_resume.txt")
	profile := mustDecode[interview.Profile](t, mustGenerate(t, o, interview.StageProfile, interview.ProfileInput{ResumeText: resume}))
	q := cacheQuestion()
	answer := "First I read from the cache, and on a miss I load from MySQL and fill the cache with a TTL. " +
		"On writes I update the database then delete the cache key, because updating the cache first races."
	tests := []struct {
		stage string
		input any
	}{
		{interview.StageProfile, interview.ProfileInput{ResumeText: resume, ConfirmedTarget: "Backend Engineer"}},
		{interview.StageExtraction, interview.ExtractionInput{ResumeText: resume, Target: "backend engineer", Profile: profile, QuestionCount: 6}},
		{interview.StageEvaluation, interview.EvaluationInput{QuestionNumber: "1", Question: q, Answer: answer}},
		{interview.StageReview, interview.EvaluationInput{QuestionNumber: "1", Question: q, Answer: answer, Review: true}},
		{interview.StageFollowUp, interview.FollowUpInput{QuestionNumber: "1", Question: q, Answer: answer, Targets: []string{"Cache failure modes"}}},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			first := mustGenerate(t, o, tt.stage, tt.input)
			// A fresh model too: nothing may depend on earlier calls.
			if second := mustGenerate(t, newModel(), tt.stage, tt.input); second != first {
				t.Errorf("outputs differ:\n%s\n%s", first, second)
			}
			if !json.Valid([]byte(first)) {
				t.Errorf("not JSON: %s", first)
			}
		})
	}
	// The review repeats the evaluation, so the rule engine sees agreement.
	eval := mustGenerate(t, o, interview.StageEvaluation, tests[2].input)
	if review := mustGenerate(t, o, interview.StageReview, tests[3].input); review != eval {
		t.Errorf("review differs from evaluation:\n%s\n%s", eval, review)
	}
}

func TestBackendResume(t *testing.T) {
	o := newModel()
	resume := mustReadFile(t, "testdata/backend_resume.txt")
	p := mustDecode[interview.Profile](t, mustGenerate(t, o, interview.StageProfile, interview.ProfileInput{ResumeText: resume}))

	for _, s := range []string{"Go", "MySQL", "Redis", "Kafka", "Kubernetes"} {
		if !slices.Contains(p.Skills, s) {
			t.Errorf("skills %v lack %s", p.Skills, s)
		}
	}
	if len(p.SkillEvidence) != len(p.Skills) {
		t.Errorf("%d evidence for %d skills", len(p.SkillEvidence), len(p.Skills))
	}
	for _, e := range p.SkillEvidence {
		if e.Evidence == "" || utf8.RuneCountInString(e.Evidence) > 120 {
			t.Errorf("evidence of %s: %q", e.Skill, e.Evidence)
		}
	}
	if len(p.RoleHypotheses) == 0 || p.RoleHypotheses[0].Target != "backend engineer" {
		t.Fatalf("hypotheses %+v, want backend engineer first", p.RoleHypotheses)
	}
	for i, h := range p.RoleHypotheses {
		if h.Confidence < 0 || h.Confidence > 1 || (i > 0 && h.Confidence > p.RoleHypotheses[i-1].Confidence) {
			t.Errorf("hypothesis %+v out of range or order", h)
		}
	}
	if p.ResumeType != "backend engineer" {
		t.Errorf("resumeType %q", p.ResumeType)
	}
	if p.ResumeScore < 0 || p.ResumeScore > 100 {
		t.Errorf("resumeScore %d", p.ResumeScore)
	}
	if p.ResumeScore < 80 {
		t.Errorf("resumeScore %d: a complete, quantified resume should score high", p.ResumeScore)
	}
	if len(p.ProjectQuestionHints) == 0 || len(p.ProjectQuestionHints) > 5 {
		t.Errorf("hints %q", p.ProjectQuestionHints)
	}

	qs := mustDecode[interview.Questions](t, mustGenerate(t, o, interview.StageExtraction,
		interview.ExtractionInput{ResumeText: resume, Target: p.RoleHypotheses[0].Target, Profile: p, QuestionCount: 6}))
	if len(qs.Questions) != 6 {
		t.Fatalf("%d questions, want 6", len(qs.Questions))
	}
	for _, q := range qs.Questions {
		sum, core := 0, false
		for _, a := range q.Anchors {
			sum += a.Weight
			core = core || a.Core
		}
		if sum != 100 || !core || q.RubricVersion != 1 {
			t.Errorf("question %q: weights %d, core %v, rubricVersion %d", q.Content, sum, core, q.RubricVersion)
		}
	}
	if qs.InterviewType != "backend engineer (offline question bank)" || qs.ResumeScore != p.ResumeScore {
		t.Errorf("interviewType %q, resumeScore %d", qs.InterviewType, qs.ResumeScore)
	}
	if !slices.Equal(qs.Suggestions, p.ResumeSuggestions) {
		t.Errorf("suggestions %q, want the profile's %q", qs.Suggestions, p.ResumeSuggestions)
	}
	// The Go resume gets the Go question.
	if !slices.ContainsFunc(qs.Questions, func(q interview.QuestionSpec) bool { return strings.Contains(q.Content, "goroutines") }) {
		t.Errorf("no goroutine question for a Go resume: %v", contents(qs.Questions))
	}
}

func contents(qs []interview.QuestionSpec) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Content)
	}
	return out
}

func TestConfirmedTargetLeads(t *testing.T) {
	resume := mustReadFile(t, "testdata/backend_resume.txt")
	p := mustDecode[interview.Profile](t, mustGenerate(t, newModel(), interview.StageProfile,
		interview.ProfileInput{ResumeText: resume, ConfirmedTarget: "Platform Engineer"}))
	if h := p.RoleHypotheses[0]; h.Target != "Platform Engineer" || h.Confidence != 1 {
		t.Errorf("first hypothesis %+v, want the confirmed target with confidence 1", h)
	}
}

func TestChineseResume(t *testing.T) {
	o := newModel()
	resume := mustReadFile(t, "testdata/frontend_resume_zh.txt")
	p := mustDecode[interview.Profile](t, mustGenerate(t, o, interview.StageProfile, interview.ProfileInput{ResumeText: resume}))
	if len(p.RoleHypotheses) == 0 || p.RoleHypotheses[0].Target != "前端工程师" {
		t.Errorf("hypotheses %+v, want 前端工程师 (frontend engineer) first", p.RoleHypotheses)
	}
	for _, s := range []string{"React", "TypeScript", "mini program"} {
		if !slices.Contains(p.Skills, s) {
			t.Errorf("skills %v lack %s", p.Skills, s)
		}
	}
	qs := mustDecode[interview.Questions](t, mustGenerate(t, o, interview.StageExtraction,
		interview.ExtractionInput{ResumeText: resume, Target: "前端开发", Profile: p, QuestionCount: 9}))
	if len(qs.Questions) != 8 {
		t.Errorf("%d questions for questionCount 9, want 8", len(qs.Questions))
	}
	if qs.InterviewType != "前端工程师（离线题库）" {
		t.Errorf("interviewType %q", qs.InterviewType)
	}
	for _, q := range qs.Questions {
		if !strings.ContainsFunc(q.Content, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) || !strings.HasSuffix(q.FollowUpStrategy, "？") {
			t.Errorf("question %q / %q not in Chinese for a Chinese resume", q.Content, q.FollowUpStrategy)
		}
	}
}

func TestQuestionCount(t *testing.T) {
	tests := []struct{ ask, want int }{{0, 6}, {1, 5}, {5, 5}, {7, 7}, {8, 8}, {20, 8}}
	for _, tt := range tests {
		qs := mustDecode[interview.Questions](t, mustGenerate(t, newModel(), interview.StageExtraction,
			interview.ExtractionInput{Target: "", QuestionCount: tt.ask}))
		if got := len(qs.Questions); got != tt.want {
			t.Errorf("questionCount %d: got %d questions, want %d", tt.ask, got, tt.want)
		}
		if qs.InterviewType != "generic software engineer (offline question bank)" {
			t.Errorf("interviewType %q", qs.InterviewType)
		}
	}
}

func evaluate(tb testing.TB, q interview.QuestionSpec, answer string) interview.Evaluation {
	tb.Helper()
	return mustDecode[interview.Evaluation](tb, mustGenerate(tb, newModel(), interview.StageEvaluation,
		interview.EvaluationInput{QuestionNumber: "1", Question: q, Answer: answer}))
}

func statuses(ev interview.Evaluation) (anchors, dims map[string]string) {
	anchors, dims = make(map[string]string), make(map[string]string)
	for _, a := range ev.Anchors {
		anchors[a.Name] = a.Status
	}
	for _, d := range ev.Dimensions {
		dims[d.ID] = d.Status
	}
	return anchors, dims
}

func TestEvaluation(t *testing.T) {
	q := cacheQuestion()
	t.Run("strong", func(t *testing.T) {
		ev := evaluate(t, q, "First, reads go to the cache: on a miss we load from the database and fill the cache, and every cached key has a TTL. "+
			"For writes we update the database then delete the cache key, because deleting is safer than updating; "+
			"a delayed double delete or binlog-based invalidation closes the remaining race, so we accept eventual consistency with a short TTL. "+
			"Finally we guard against cache penetration with a bloom filter, against avalanche with random jitter on TTLs, "+
			"and against hot key breakdown by rebuilding with a mutex or single-flight.")
		anchors, dims := statuses(ev)
		for name, s := range anchors {
			if s != interview.StatusMet {
				t.Errorf("anchor %q: %s", name, s)
			}
		}
		if dims[interview.DimCorrectness] != interview.StatusMet || ev.Score < 85 {
			t.Errorf("correctness %s, score %d; want met, ≥ 85", dims[interview.DimCorrectness], ev.Score)
		}
		if len(ev.MissingPoints) != 0 {
			t.Errorf("missingPoints %q", ev.MissingPoints)
		}
		for _, d := range ev.Dimensions {
			if d.Confidence != 0.9 {
				t.Errorf("dimension %s confidence %v", d.ID, d.Confidence)
			}
		}
	})
	t.Run("empty", func(t *testing.T) {
		for _, answer := range []string{"", "   ", "no idea", "不知道"} {
			ev := evaluate(t, q, answer)
			anchors, dims := statuses(ev)
			if len(anchors) != 3 || len(dims) != 5 {
				t.Fatalf("%q: %d anchors, %d dimensions", answer, len(anchors), len(dims))
			}
			for name, s := range anchors {
				if s != interview.StatusMissing {
					t.Errorf("%q: anchor %q %s", answer, name, s)
				}
			}
			for _, d := range ev.Dimensions {
				if d.Status != interview.StatusMissing || d.Confidence != 1 {
					t.Errorf("%q: dimension %+v", answer, d)
				}
			}
			if ev.Score != 0 || len(ev.MissingPoints) != 3 || ev.Feedback == "" {
				t.Errorf("%q: score %d, missingPoints %q, feedback %q", answer, ev.Score, ev.MissingPoints, ev.Feedback)
			}
		}
	})
	t.Run("partial", func(t *testing.T) {
		ev := evaluate(t, q, "I would keep hot data in the cache so that reads are fast, and give entries a TTL so they expire. "+
			"When data changes I update the cache too.")
		anchors, dims := statuses(ev)
		if anchors["Cache-aside pattern"] != interview.StatusMet {
			t.Errorf("cache-aside %s", anchors["Cache-aside pattern"])
		}
		if anchors["Consistency on writes"] != interview.StatusPartial {
			t.Errorf("consistency %s, want partial", anchors["Consistency on writes"])
		}
		if dims[interview.DimCorrectness] != interview.StatusPartial || dims[interview.DimCompleteness] != interview.StatusPartial {
			t.Errorf("dimensions %v", dims)
		}
		if ev.Score <= 0 || ev.Score >= 85 {
			t.Errorf("score %d", ev.Score)
		}
		if !slices.Contains(ev.MissingPoints, "update the database then delete the cache key") {
			t.Errorf("missingPoints %q", ev.MissingPoints)
		}
	})
	t.Run("common mistake", func(t *testing.T) {
		ev := evaluate(t, q, "I read from the cache and on a miss load from the database and fill the cache. "+
			"Updating the cache before the database is always consistent, so that is what I do.")
		anchors, dims := statuses(ev)
		if dims[interview.DimCorrectness] != interview.StatusContradicted {
			t.Errorf("correctness %s, want contradicted", dims[interview.DimCorrectness])
		}
		if anchors["Consistency on writes"] != interview.StatusContradicted {
			t.Errorf("anchors %v: the write anchor should be contradicted", anchors)
		}
		if ev.Score > 40 {
			t.Errorf("score %d above the cap of 40", ev.Score)
		}
	})
	t.Run("negated mistake is not asserted", func(t *testing.T) {
		ev := evaluate(t, q, "Updating the cache before the database is not consistent, so I update the database then delete the cache key.")
		_, dims := statuses(ev)
		if dims[interview.DimCorrectness] == interview.StatusContradicted {
			t.Errorf("correctness contradicted by a sentence that denies the mistake")
		}
	})
	t.Run("chinese answer to an english rubric", func(t *testing.T) {
		ev := evaluate(t, q, "先读缓存，没命中再查 MySQL 数据库，然后写回 Redis 缓存并设置 TTL。更新时先更新数据库，再删除缓存。")
		if len(ev.Anchors) != 3 || len(ev.Dimensions) != 5 {
			t.Fatalf("evaluation %+v", ev)
		}
		// The glossary maps 缓存, 数据库, 更新, 删除 … onto the English rubric.
		anchors, _ := statuses(ev)
		if anchors["Cache-aside pattern"] != interview.StatusMet || anchors["Consistency on writes"] != interview.StatusMet {
			t.Errorf("anchors %v, want the first two met", anchors)
		}
		if !strings.ContainsFunc(ev.Feedback, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("feedback %q not in Chinese", ev.Feedback)
		}
	})
	t.Run("chinese rubric", func(t *testing.T) {
		zq := interview.QuestionSpec{
			Content: "数据库索引为什么能加快查询？什么时候索引会变慢？",
			Anchors: []interview.Anchor{
				{Name: "索引结构", Weight: 60, Core: true, AcceptableStatements: []string{"B+树索引让查询不用全表扫描", "索引按键有序存储"}},
				{Name: "写入代价", Weight: 40, AcceptableStatements: []string{"索引会让插入和更新变慢", "索引占用额外的磁盘空间"}},
			},
			CommonMistakes:   []string{"索引越多查询和写入都越快"},
			FollowUpStrategy: "为什么联合索引要遵守最左前缀原则？",
			RubricVersion:    1,
		}
		ev := evaluate(t, zq, "索引一般是B+树结构，按键有序存储，所以查询时不用全表扫描。")
		anchors, dims := statuses(ev)
		if anchors["索引结构"] != interview.StatusMet || anchors["写入代价"] == interview.StatusMet {
			t.Errorf("anchors %v", anchors)
		}
		if dims[interview.DimCorrectness] != interview.StatusMet {
			t.Errorf("correctness %s", dims[interview.DimCorrectness])
		}
		if !strings.Contains(ev.Feedback, "写入代价") {
			t.Errorf("feedback %q should name the missing point", ev.Feedback)
		}
		ev = evaluate(t, zq, "索引是B+树。我认为索引越多，查询和写入都越快。")
		if _, dims := statuses(ev); dims[interview.DimCorrectness] != interview.StatusContradicted {
			t.Errorf("correctness %s, want contradicted", dims[interview.DimCorrectness])
		}
	})
	t.Run("legacy spec", func(t *testing.T) {
		lq := interview.QuestionSpec{Content: "Explain how a hash map handles collisions.",
			Anchors: []interview.Anchor{{Name: "legacy", Weight: 100, Core: true}}, Degraded: "weights"}
		ev := evaluate(t, lq, "A hash map handles collisions by chaining entries in a bucket list, or by open addressing.")
		if len(ev.Anchors) != 1 || ev.Anchors[0].Status == interview.StatusMissing {
			t.Errorf("anchors %+v", ev.Anchors)
		}
		if strings.Contains(ev.Feedback, "legacy") {
			t.Errorf("feedback %q names the internal legacy anchor", ev.Feedback)
		}
	})
}

func TestFollowUp(t *testing.T) {
	q := cacheQuestion()
	long := interview.QuestionSpec{Anchors: []interview.Anchor{{Name: strings.Repeat("very long anchor name ", 10), Weight: 100, Core: true}}}
	tests := []struct {
		name    string
		q       interview.QuestionSpec
		answer  string
		targets []string
		want    string
	}{
		{"strategy relates", q, "I update the cache.", []string{"Consistency on writes"}, q.FollowUpStrategy},
		{"strategy unrelated", interview.QuestionSpec{Anchors: q.Anchors, FollowUpStrategy: "Which metric would you watch?"},
			"I update the cache.", []string{"Cache failure modes"}, "Could you expand on cache failure modes?"},
		{"chinese", interview.QuestionSpec{Anchors: q.Anchors}, "我会先更新缓存。", []string{"Cache failure modes"}, "能再具体讲讲Cache failure modes吗？"},
		{"no targets", q, "x", nil, q.FollowUpStrategy},
		{"chinese strategy relates through the glossary", interview.QuestionSpec{Anchors: q.Anchors, FollowUpStrategy: "如果数据库更新后删除缓存失败，会发生什么？"},
			"我会先更新缓存。", []string{"Consistency on writes"}, "如果数据库更新后删除缓存失败，会发生什么？"},
		{"long name", long, "answer", []string{long.Anchors[0].Name}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustDecode[interview.FollowUpOutput](t, mustGenerate(t, newModel(), interview.StageFollowUp,
				interview.FollowUpInput{QuestionNumber: "2", Question: tt.q, Answer: tt.answer, Targets: tt.targets}))
			if tt.want != "" && out.FollowUp != tt.want {
				t.Errorf("followUp %q, want %q", out.FollowUp, tt.want)
			}
			if n := utf8.RuneCountInString(out.FollowUp); n == 0 || n > 100 {
				t.Errorf("followUp %q has %d runes", out.FollowUp, n)
			}
			if !strings.HasSuffix(out.FollowUp, "?") && !strings.HasSuffix(out.FollowUp, "？") {
				t.Errorf("followUp %q does not end with a question mark", out.FollowUp)
			}
			if out.EndInterview {
				t.Error("endInterview true")
			}
		})
	}
}

func TestDemeanorNotRegistered(t *testing.T) {
	_, err := newModel().Generate(context.Background(), llm.Request{Stage: interview.StageDemeanor,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "{}"}}})
	if err == nil {
		t.Fatal("the offline model answered interview-demeanor; it cannot see photos")
	}
}

func TestBadInput(t *testing.T) {
	_, err := newModel().Generate(context.Background(), llm.Request{Stage: interview.StageEvaluation,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "not json"}}})
	if err == nil {
		t.Fatal("no error for a user message that is not JSON")
	}
}

// TestOddSpecs: specs written by a real model may be degraded or odd; the
// offline evaluator must still answer in the contract, without panicking.
func TestOddSpecs(t *testing.T) {
	long := strings.Repeat("The cache sits in front of the database and we delete keys on update. ", 2000)
	tests := []struct {
		name    string
		q       interview.QuestionSpec
		answer  string
		anchors int
	}{
		{"no anchors", interview.QuestionSpec{Content: "Explain caching."}, "Caching keeps hot data in memory.", 0},
		{"zero weights", interview.QuestionSpec{Anchors: []interview.Anchor{{Name: "a"}, {Name: "b", AcceptableStatements: []string{"", "  "}}}}, "Some answer about a and b.", 2},
		{"empty mistakes", interview.QuestionSpec{Anchors: []interview.Anchor{{Name: "x", Weight: 100, AcceptableStatements: []string{"the"}}}, CommonMistakes: []string{"", "the a an"}}, "the answer is the answer", 1},
		{"long answer", cacheQuestion(), long, 3},
		{"punctuation only", cacheQuestion(), "?!。。……", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := evaluate(t, tt.q, tt.answer)
			if len(ev.Dimensions) != 5 || len(ev.Anchors) != tt.anchors {
				t.Errorf("%d dimensions, %d anchors", len(ev.Dimensions), len(ev.Anchors))
			}
			if ev.Score < 0 || ev.Score > 100 || ev.Feedback == "" {
				t.Errorf("score %d, feedback %q", ev.Score, ev.Feedback)
			}
		})
	}
	out := mustDecode[interview.FollowUpOutput](t, mustGenerate(t, newModel(), interview.StageFollowUp, interview.FollowUpInput{Answer: "我不太清楚。"}))
	if out.FollowUp != "能结合你的实际经历举一个具体的例子吗？" {
		t.Errorf("followUp %q", out.FollowUp)
	}
}
