package offline

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// Question counts of the extraction stage.
const (
	defaultQuestions = 6
	minQuestions     = 5
	maxQuestions     = 8
	// fundamentals is how many generic fundamentals a role interview asks
	// before its role questions.
	fundamentals = 2
)

// roleNamesZH are the Chinese names of the roles.
var roleNamesZH = map[string]string{
	roleGeneric: "通用软件工程师", roleBackend: "后端工程师", roleFrontend: "前端工程师", roleData: "数据工程师",
	roleDevOps: "运维/DevOps 工程师", roleQA: "测试工程师", roleMobile: "移动端工程师", roleML: "机器学习工程师",
}

// roleKeywords map words of a target to a bank role, checked in order.
// Latin keywords match inside words ("frontend", "tester"); short ones
// that would match by accident ("ml" in "html", "ai" in "email") must be
// whole words.
var roleKeywords = []struct {
	role      string
	substr    []string
	wholeWord []string
}{
	{roleFrontend, []string{"front", "web ui", "前端", "小程序"}, []string{"ui", "fe"}},
	{roleMobile, []string{"mobile", "android", "flutter", "移动", "安卓", "客户端"}, []string{"ios", "app"}},
	{roleQA, []string{"test", "quality", "测试", "质量"}, []string{"qa", "sdet"}},
	{roleDevOps, []string{"devops", "reliability", "infrastructure", "运维", "云原生"}, []string{"sre", "ops"}},
	{roleML, []string{"machine learning", "deep learning", "算法", "机器学习", "人工智能", "大模型"}, []string{"ml", "ai", "nlp", "llm", "cv"}},
	{roleData, []string{"data", "数据", "analytics"}, []string{"bi", "etl"}},
	{roleBackend, []string{"back", "server", "后端", "服务端", "java", "golang", "python", "c++"}, []string{"go", "api"}},
}

// roleFor maps a free-text target ("Senior Backend Engineer", "后端开发") to
// a bank role, or the generic role.
func roleFor(target string) string {
	t := strings.ToLower(strings.TrimSpace(target))
	if t == "" {
		return roleGeneric
	}
	words := setOf(strings.FieldsFunc(t, func(r rune) bool { return !asciiAlnum(r) })...)
	for _, k := range roleKeywords {
		for _, s := range k.substr {
			if strings.Contains(t, s) {
				return k.role
			}
		}
		for _, w := range k.wholeWord {
			if words[w] {
				return k.role
			}
		}
	}
	return roleGeneric
}

// buildQuestions is the offline interview-extraction: questionCount (5..8,
// default 6) questions. The first is a deep-dive on the first project the
// resume names, and a second project, if any, gets one after the
// fundamentals (projects.go). The bank fills the rest: for a role, two
// generic fundamentals first, then the role's questions; for the generic
// role, fundamentals only. Within each part pickQuestions prefers the
// questions that suit the resume's role, then the candidate's skills.
func buildQuestions(in interview.ExtractionInput) interview.Questions {
	return buildQuestionsIn(in, "")
}

// buildQuestionsIn is buildQuestions asking in lang ("" for the resume's
// language).
func buildQuestionsIn(in interview.ExtractionInput, lang string) interview.Questions {
	profile := in.Profile
	if len(profile.Skills) == 0 && profile.ResumeScore == 0 && strings.TrimSpace(in.ResumeText) != "" {
		// The caller sent no profile: read the resume ourselves.
		profile = buildProfileIn(interview.ProfileInput{ResumeText: in.ResumeText}, lang)
	}
	n := in.QuestionCount
	if n <= 0 {
		n = defaultQuestions
	}
	n = max(minQuestions, min(maxQuestions, n))

	target := in.Target
	if strings.TrimSpace(target) == "" {
		target = profile.ResumeType
	}
	role := roleFor(target)

	rank := make(map[string]int) // skill → position in the profile
	for i, s := range profile.Skills {
		if _, dup := rank[strings.ToLower(s)]; !dup {
			rank[strings.ToLower(s)] = i
		}
	}
	// Questions are in the session's language; a request without one
	// follows the resume (the target when there is no resume text).
	zh := chineseOutput(lang, in.ResumeText, in.Target)

	// Project deep-dives first: the interview is about the candidate's own
	// resume. The bank fills the rest.
	projects := findProjects(in.ResumeText)
	if len(projects) == 0 {
		// No project named: what the work experience says was done.
		projects = findAchievements(in.ResumeText, zh)
	}
	if len(projects) > maxProjectQuestions {
		projects = projects[:maxProjectQuestions]
	}
	banked := n - len(projects)

	// Fundamentals that suit the resume's role come first: a frontend
	// resume is not asked about database indexes while frontend-friendly
	// fundamentals remain.
	fit := role
	if fit == roleGeneric {
		fit = roleFor(profile.ResumeType)
	}
	var chosen []int
	if role == roleGeneric {
		chosen = pickQuestions(roleGeneric, banked, rank, fit)
	} else {
		own := pickQuestions(role, banked-fundamentals, rank, fit)
		chosen = append(pickQuestions(roleGeneric, banked-len(own), rank, fit), own...)
	}

	out := interview.Questions{
		Questions:     make([]interview.QuestionSpec, 0, len(chosen)),
		Suggestions:   append([]string{}, profile.ResumeSuggestions...),
		InterviewType: role + " (offline question bank)",
		ResumeScore:   profile.ResumeScore,
	}
	if zh {
		out.InterviewType = roleNamesZH[role] + "（离线题库）"
	}
	for _, i := range chosen {
		out.Questions = append(out.Questions, bank[i].spec(zh))
	}
	// The first project opens the interview; a second one follows the
	// fundamentals, so the interview alternates between the resume and
	// the bank.
	for k, p := range projects {
		at := 0
		if k > 0 {
			at = min(len(out.Questions), 1+fundamentals)
		}
		out.Questions = append(out.Questions[:at], append([]interview.QuestionSpec{projectQuestion(p, zh)}, out.Questions[at:]...)...)
	}
	return out
}

// pickQuestions returns up to k bank indexes of role, in bank order (which
// reads from fundamentals to design). It prefers the questions that test
// the most prominent of the candidate's skills: a question ranks by the
// earliest position, in the profile's skill list (resume order), of a skill
// among its tags; then by how many of its tags are skills; then by bank
// order. Questions testing none of the skills come last. Before all that,
// the questions that suit the fit role (see suits) come first.
func pickQuestions(role string, k int, rank map[string]int, fit string) []int {
	type cand struct {
		idx, best, hits int
		suits           bool
	}
	var cands []cand
	for i, e := range bank {
		if e.role != role {
			continue
		}
		c := cand{idx: i, best: math.MaxInt, suits: suits(e, fit)}
		for _, t := range e.tags {
			if r, ok := rank[t]; ok {
				c.hits++
				c.best = min(c.best, r)
			}
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].suits != cands[b].suits {
			return cands[a].suits
		}
		if cands[a].best != cands[b].best {
			return cands[a].best < cands[b].best
		}
		return cands[a].hits > cands[b].hits
	})
	if len(cands) > k {
		cands = cands[:max(0, k)]
	}
	idx := make([]int, len(cands))
	for i, c := range cands {
		idx[i] = c.idx
	}
	sort.Ints(idx)
	return idx
}

// suits reports whether bank question e suits the role fit: a question of
// that role, any question when fit is the generic role, or a fundamental
// with a tag that the skill dictionary files under fit ("javascript" suits
// a frontend interview, "mysql" does not).
func suits(e entry, fit string) bool {
	if fit == roleGeneric || e.role == fit {
		return true
	}
	for _, t := range e.tags {
		for _, d := range skills {
			if strings.ToLower(d.name) == t && slices.Contains(d.roles, fit) {
				return true
			}
		}
	}
	return false
}

// spec returns the contract form of a bank question (fresh slices, so a
// caller may change it freely); with zh, the question and its follow-up are
// worded in Chinese.
func (e entry) spec(zh bool) interview.QuestionSpec {
	content, followUp := e.content, e.followUp
	if t, ok := bankZH[e.content]; ok && zh {
		content, followUp = t.content, t.followUp
	}
	q := interview.QuestionSpec{
		Content:          content,
		Anchors:          make([]interview.Anchor, len(e.anchors)),
		CommonMistakes:   append([]string{}, e.mistakes...),
		FollowUpStrategy: followUp,
		RubricVersion:    1,
	}
	for i, a := range e.anchors {
		q.Anchors[i] = interview.Anchor{Name: a.name, Weight: a.weight, Core: a.core,
			AcceptableStatements: append([]string{}, a.statements...)}
	}
	r, ok := rubricZH[e.content]
	if !zh || !ok || len(r.anchors) != len(e.anchors) {
		return q
	}
	q.CommonMistakes = q.CommonMistakes[:0]
	for _, m := range r.mistakes {
		q.CommonMistakes = append(q.CommonMistakes, firstAlt(m))
	}
	for i, a := range r.anchors {
		q.Anchors[i].Name = a.name
		q.Anchors[i].AcceptableStatements = q.Anchors[i].AcceptableStatements[:0]
		for _, s := range a.statements {
			q.Anchors[i].AcceptableStatements = append(q.Anchors[i].AcceptableStatements, firstAlt(s))
		}
	}
	return q
}
