package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// Project deep-dives: the interview is about the candidate's own resume,
// so the question stage opens with a question on a project the resume
// names, and asks about a second one when there is one. Everything the
// question and its rubric quote (the project's name, its technologies, its
// numbers) is copied from the resume text: nothing is made up.

// maxProjectQuestions is how many project deep-dives an interview asks.
const maxProjectQuestions = 2

var (
	// projectHeading is the heading of a resume's projects section.
	projectHeading = regexp.MustCompile(`(?i)^(projects?|project experience|personal projects|selected projects|key projects|项目经历|项目经验|主要项目|个人项目|项目)$`)
	// otherHeading is the heading of a section that ends the projects section.
	otherHeading = regexp.MustCompile(`(?i)^(summary|profile|about me|experience|work experience|professional experience|employment|work history|education|skills|technical skills|technologies|tech stack|awards|honors|certifications?|publications|languages|interests|contact|工作经历|工作经验|实习经历|教育经历|教育背景|专业技能|技能|技术栈|自我评价|个人总结|个人简介|获奖情况|荣誉奖项|证书|个人信息|联系方式|求职意向)$`)
	// nameLabel starts a line that names a project anywhere in the resume.
	nameLabel = regexp.MustCompile(`(?i)^(项目名称|项目名|project name|project)\s*[:：]\s*`)
	// descLabel starts a line that describes the current project.
	descLabel = regexp.MustCompile(`(?i)^(技术栈|技术|职责|项目描述|项目职责|项目成果|项目介绍|成果|描述|角色|担任角色|时间|主要工作|工作内容|tech stack|stack|technologies|role|responsibilities|results?|description|impact|period|duration)\s*[:：]`)
	// leadingDate is a date or date range before a project's name.
	leadingDate = regexp.MustCompile(`^[\d.\-/年月至今～~–— ]+(present|now)?\s*`)
	// sentenceStart starts a description, not a name.
	sentenceStart = regexp.MustCompile(`(?i)^(基于|使用|通过|采用|利用|参与)|^(using|based on|with|for)\b`)
	// nameEnd is where a project's name ends on its title line.
	nameEnd = regexp.MustCompile(` [-–—] |[—–｜|（(：:，,\t]|  `)
	// clauseSep splits a project line into clauses.
	clauseSep = regexp.MustCompile(`[，,；;。！？!?]|\.\s`)
	// lowerWord is an English prose word, which Chinese text does not show.
	lowerWord = regexp.MustCompile(`\b[a-z]{3,}\b`)
	// experienceHeading is the heading of a work-experience section.
	experienceHeading = regexp.MustCompile(`(?i)^(experience|work experience|professional experience|employment|employment history|work history|工作经历|工作经验|实习经历)$`)
	// achievementVerb starts a line that says what the candidate did.
	achievementVerb = regexp.MustCompile(`(?i)^(built|rebuilt|designed|redesigned|developed|implemented|led|created|migrated|optimi[sz]ed|improved|reduced|cut|launched|refactored|owned|architected|automated|scaled|introduced|delivered|shipped|increased|drove|wrote|added|replaced)\b|^(负责|设计|开发|实现|优化|主导|搭建|重构|提升|降低|引入|推动|完成)`)
	// datedTitle is an employer's or a school's line ("Northwind Retail,
	// Web Developer (2019 - 2021)"): a year, and no end of a sentence.
	datedTitle = regexp.MustCompile(`\b(19|20)\d{2}\b[^.。!?！？]*$`)
	// actionClause ends the clause of an achievement that says what was
	// done, before its result ("…in React; cut the bundle from 2.4 MB…").
	actionClause = regexp.MustCompile(`[，；;。！？!?]|\.\s`)
	// hasDigit finds a number: an achievement with one is preferred.
	hasDigit = regexp.MustCompile(`\d`)
)

// maxQuoteRunes bounds the resume line an achievement question quotes.
const maxQuoteRunes = 120

// quoted is line as an achievement question quotes it: clipped, without a
// list's trailing separator, and (in English) ending a sentence.
func quoted(line string, zh bool) string {
	trim := ";；,，、 "
	if zh {
		trim += "。" // the question closes the quote with its own
	}
	q := clip(strings.TrimRight(line, trim), maxQuoteRunes)
	if last, _ := utf8.DecodeLastRuneInString(q); !zh && !strings.ContainsRune(".!?…", last) {
		q += "."
	}
	return q
}

// project is a project the resume names, with the lines that describe it.
type project struct {
	name  string
	lines []string // the title line's rest and the description lines
	// quote, for a resume that names no project, is what the question
	// quotes of the line of its work experience in lines (findAchievements:
	// the line's first clause); name is then "".
	quote string
}

// findAchievements returns, for a resume without projects, what its work
// experience says the candidate did: the lines of that section that are
// bullet points or start with a verb of doing ("Rebuilt the patient
// portal…", "负责订单中心…"), a line wrapped by the document's width joined
// to the one it continues. Those with a number come first (they have a
// result to talk about), then resume order; a line in the other script
// than the session's (English prose in a Chinese interview, Chinese in an
// English one) is left out, so the question quoting it is not mixed.
//
// The question quotes the line's first clause, what was done; its result
// stays in the rubric only: an answer's words that the question already
// holds earn nothing (evaluate), so a question quoting "2.4 MB to 780 KB"
// would leave the candidate no way to earn the result with those numbers.
func findAchievements(text string, zh bool) []project {
	var found []string
	inSection := false
	open := false // the last found line may go on in the next one
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			open = false
			continue
		}
		h := headingText(line)
		switch {
		case experienceHeading.MatchString(h):
			inSection, open = true, false
			continue
		case projectHeading.MatchString(h), otherHeading.MatchString(h):
			inSection, open = false, false
			continue
		}
		if !inSection {
			continue
		}
		body, isBullet := cutBullet(line)
		if !isBullet && open && !datedTitle.MatchString(body) && continuesSentence(found[len(found)-1:], body) {
			found[len(found)-1] += " " + body
			continue
		}
		open = false
		if (isBullet || achievementVerb.MatchString(body)) && utf8.RuneCountInString(body) >= 12 {
			found = append(found, body)
			open = true
		}
	}
	var out []project
	for _, numbered := range []bool{true, false} {
		for _, f := range found {
			if hasDigit.MatchString(f) != numbered || zh && lowerWord.MatchString(f) || !zh && strings.ContainsFunc(f, isHan) {
				continue
			}
			out = append(out, project{lines: []string{f}, quote: quoted(actionClause.Split(f, 2)[0], zh)})
		}
	}
	return out
}

// headingText is a line without heading markup (#, **, 【】, a final colon).
func headingText(line string) string {
	t := strings.TrimSpace(line)
	t = strings.TrimLeft(t, "#* ")
	t = strings.TrimRight(t, "*:： ")
	t = strings.TrimPrefix(t, "【")
	t = strings.TrimSuffix(t, "】")
	return strings.TrimSpace(t)
}

// findProjects returns the projects of a resume, in resume order: the
// titles of its projects section (lines that are not bullets) and the lines
// labelled "项目名称：" or "Project:" anywhere.
func findProjects(text string) []project {
	var out []project
	inSection := false
	seen := map[string]bool{}
	cur := -1 // index in out of the project being described
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		h := headingText(line)
		switch {
		case projectHeading.MatchString(h):
			inSection, cur = true, -1
			continue
		case otherHeading.MatchString(h):
			inSection, cur = false, -1
			continue
		}
		body, isBullet := cutBullet(line)
		if m := nameLabel.FindString(body); m != "" && !isBullet {
			inSection = true
			if name := projectName(body[len(m):]); name != "" && !seen[name] {
				seen[name] = true
				out = append(out, project{name: name})
				cur = len(out) - 1
			}
			continue
		}
		if !inSection {
			continue
		}
		if !isBullet && cur >= 0 && continuesSentence(out[cur].lines, body) {
			// The rest of a description wrapped by the document's line
			// width (a PDF's text layer), not a title.
			last := len(out[cur].lines) - 1
			out[cur].lines[last] += " " + body
			continue
		}
		if !isBullet && !descLabel.MatchString(body) {
			if name := projectName(body); name != "" {
				if seen[name] {
					cur = -1
					continue
				}
				seen[name] = true
				out = append(out, project{name: name})
				cur = len(out) - 1
				if rest := strings.TrimSpace(strings.TrimPrefix(body, name)); rest != "" {
					out[cur].lines = append(out[cur].lines, rest)
				}
				continue
			}
		}
		if cur >= 0 {
			out[cur].lines = append(out[cur].lines, body)
		}
	}
	return out
}

// continuesSentence reports whether line carries on the last of lines: that
// one stops mid-sentence and line reads as a sentence's tail (it has a
// comma or ends a sentence), which a title does not.
func continuesSentence(lines []string, line string) bool {
	if len(lines) == 0 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(lines[len(lines)-1])
	if strings.ContainsRune(sentenceEnd, last) {
		return false
	}
	end, _ := utf8.DecodeLastRuneInString(line)
	return strings.ContainsRune(sentenceEnd, end) || strings.ContainsAny(line, "，,、")
}

// sentenceEnd are the runes that end a sentence.
const sentenceEnd = "。.!！?？;；"

// projectName returns the project's name from its title line, or "" when
// the line does not look like a title (a sentence, a date).
func projectName(line string) string {
	t := headingText(line)
	t = strings.TrimSpace(leadingDate.ReplaceAllString(t, ""))
	for _, q := range [][2]string{{"「", "」"}, {"“", "”"}, {"《", "》"}, {`"`, `"`}} {
		if rest, ok := strings.CutPrefix(t, q[0]); ok {
			if name, _, ok := strings.Cut(rest, q[1]); ok {
				t = name
			}
		}
	}
	if loc := nameEnd.FindStringIndex(t); loc != nil {
		t = t[:loc[0]]
	}
	t = strings.TrimSpace(strings.Trim(t, "*「」“”《》\""))
	n := utf8.RuneCountInString(t)
	if n < 2 || n > 30 || wordCount(t) > 6 || !strings.ContainsFunc(t, func(r rune) bool { return isHan(r) || unicode.IsLetter(r) }) {
		return ""
	}
	if loc := actionVerb.FindStringIndex(t); loc != nil && (loc[0] == 0 || n > 10) || sentenceStart.MatchString(t) {
		return "" // a sentence about the work ("负责…", "基于 Go 实现…", "Built …"), not a name
	}
	if projectHeading.MatchString(t) || otherHeading.MatchString(t) {
		return ""
	}
	return t
}

// projectFacts are what a project's lines say: its technologies (the
// dictionary's names, in order of appearance), its numbers, and the clauses
// that mention a technology, a number or the candidate's own work.
type projectFacts struct {
	tech                              []string
	metrics                           []string
	techClauses, metricClauses, roles []string
}

func factsOf(p project) projectFacts {
	var f projectFacts
	for _, s := range detectSkills(append([]string{p.name}, p.lines...)) {
		if name := skills[s.def].name; !roleWords[name] && name != strings.ToLower(name) {
			f.tech = append(f.tech, name) // technical terms only, not "database"
		}
	}
	for _, l := range p.lines {
		for _, m := range quantified.FindAllString(l, -1) {
			if m = strings.TrimSpace(m); len(f.metrics) < 4 && !contains(f.metrics, m) {
				f.metrics = append(f.metrics, m)
			}
		}
		for _, c := range clauseSep.Split(l, -1) {
			c = strings.TrimSpace(strings.TrimLeft(c, "—–-|｜:：·• "))
			if n := utf8.RuneCountInString(c); n < 4 || n > 80 {
				continue
			}
			switch {
			case len(detectSkills([]string{c})) > 0:
				f.techClauses = appendMax(f.techClauses, c, 4)
			case quantified.MatchString(c):
				f.metricClauses = appendMax(f.metricClauses, c, 4)
			case actionVerb.MatchString(c):
				f.roles = appendMax(f.roles, c, 3)
			}
			if quantified.MatchString(c) && !contains(f.metricClauses, c) {
				f.metricClauses = appendMax(f.metricClauses, c, 4)
			}
		}
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func appendMax(list []string, s string, n int) []string {
	if len(list) >= n || contains(list, s) {
		return list
	}
	return append(list, s)
}

// projectQuestion is the deep-dive on p, in Chinese with zh. Its rubric
// checks the candidate's own role, the project's technologies (from its
// lines), a design trade-off or hard problem, and a measured result (the
// resume's numbers when it has some). The single-term statements are
// alternatives: one of them met in full meets the anchor.
func projectQuestion(p project, zh bool) interview.QuestionSpec {
	f := factsOf(p)
	shown := f.tech
	if len(shown) > 2 {
		shown = shown[:2]
	}
	var q interview.QuestionSpec
	q.RubricVersion = 1
	q.CommonMistakes = []string{}
	techAnchor := func(first string, generic ...string) interview.Anchor {
		st := append([]string{first}, f.techClauses...)
		st = append(st, f.tech...)
		return interview.Anchor{Weight: 30, Core: true, AcceptableStatements: append(st, generic...)}
	}
	resultFirst := func(en, cn string, metrics []string) string {
		if len(metrics) == 0 {
			return pick(zh, en, cn)
		}
		return pick(zh, en+": "+strings.Join(metrics, ", "), cn+"："+strings.Join(metrics, "、"))
	}
	// The numbers shown to the candidate are in the session's script ("5万"
	// is not shown in English); all of them still count as statements.
	var metrics []string
	for _, m := range f.metrics {
		if len(metrics) < 2 && (zh && !lowerWord.MatchString(m) || !zh && !strings.ContainsFunc(m, isHan)) {
			metrics = append(metrics, m)
		}
	}
	if zh {
		eg := ""
		if len(shown) > 0 {
			eg = "（如 " + strings.Join(shown, "、") + "）"
		}
		q.Content = "请介绍一下你在「" + p.name + "」中承担的部分：你做了哪些关键设计" + eg + "，遇到的最大难点是什么，结果如何衡量？"
		q.FollowUpStrategy = clip("在「"+p.name+"」最难的那个决策上，你还考虑过哪些方案，为什么没有选？", maxFollowUpRunes)
		if p.quote != "" {
			q.Content = "你的简历写到：「" + p.quote + "」。请介绍你在其中承担的部分：你做了哪些关键设计" + eg + "，遇到的最大难点是什么，结果如何衡量？"
			q.FollowUpStrategy = "在这项工作最难的那个决策上，你还考虑过哪些方案，为什么没有选？"
		}
		role := interview.Anchor{Name: "个人角色与职责", Weight: 20, Core: true,
			AcceptableStatements: append([]string{"说明自己在项目中的角色和具体负责的模块", "负责", "主导", "牵头", "我的职责", "独立完成"}, f.roles...)}
		techFirst := "讲清项目用到的关键技术及其作用"
		if len(f.tech) > 0 {
			techFirst = "讲清 " + strings.Join(shown, "、") + " 在项目中的作用"
		}
		tech := techAnchor(techFirst, "架构", "模块")
		tech.Name = "关键技术与设计"
		trade := interview.Anchor{Name: "设计取舍与难点", Weight: 25,
			AcceptableStatements: []string{"说明方案的取舍，以及最大的难点如何定位和解决", "权衡", "取舍", "对比", "瓶颈", "选型", "折中", "代价", "排查", "根因"}}
		result := interview.Anchor{Name: "结果与量化指标", Weight: 25,
			AcceptableStatements: append(append([]string{resultFirst("", "用数据说明结果", metrics)}, f.metricClauses...), f.metrics...)}
		result.AcceptableStatements = append(result.AcceptableStatements, "QPS", "P99", "毫秒", "百分之", "转化率", "错误率", "吞吐量")
		q.Anchors = uniqueStatements(role, tech, trade, result)
		return q
	}
	eg := ""
	if len(shown) > 0 {
		eg = " (e.g. " + strings.Join(shown, ", ") + ")"
	}
	q.Content = "Walk me through your part in “" + p.name + "”: the key design decisions" + eg + ", the hardest problem, and how you measured the result."
	q.FollowUpStrategy = clip("For the hardest decision in “"+p.name+"”, which alternative did you reject, and why?", maxFollowUpRunes)
	if p.quote != "" {
		q.Content = "Your resume says: “" + p.quote + "” Walk me through your part in it: the key design decisions" + eg + ", the hardest problem, and how you measured the result."
		q.FollowUpStrategy = "For the hardest decision in that work, which alternative did you reject, and why?"
	}
	role := interview.Anchor{Name: "Own role and responsibility", Weight: 20, Core: true,
		AcceptableStatements: append([]string{"States their own role and the parts they were responsible for", "I owned", "responsible for", "I led", "my role", "I built", "I implemented"}, f.roles...)}
	techFirst := "Explains the key technologies of the project and what each did"
	if len(f.tech) > 0 {
		techFirst = "Explains what " + strings.Join(shown, " and ") + " did in the project"
	}
	tech := techAnchor(techFirst, "architecture", "component")
	tech.Name = "Key technologies and design"
	trade := interview.Anchor{Name: "Trade-offs and hardest problem", Weight: 25,
		AcceptableStatements: []string{"Explains a design trade-off and how the hardest problem was found and solved", "trade-off", "tradeoff", "instead of", "rather than", "bottleneck", "compared", "alternative", "root cause"}}
	result := interview.Anchor{Name: "Measured result", Weight: 25,
		AcceptableStatements: append(append([]string{resultFirst("Backs the result with numbers", "", metrics)}, f.metricClauses...), f.metrics...)}
	result.AcceptableStatements = append(result.AcceptableStatements, "QPS", "p99", "ms", "percent", "latency", "throughput", "conversion rate", "error rate")
	q.Anchors = uniqueStatements(role, tech, trade, result)
	return q
}

// uniqueStatements returns the anchors with each one's repeated statements
// dropped (a technology named in a clause and on its own, say).
func uniqueStatements(anchors ...interview.Anchor) []interview.Anchor {
	for i, a := range anchors {
		var st []string
		for _, s := range a.AcceptableStatements {
			st = appendMax(st, s, len(a.AcceptableStatements))
		}
		anchors[i].AcceptableStatements = st
	}
	return anchors
}
