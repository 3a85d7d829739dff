package offline

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// skillDef is a skill of the built-in dictionary. Aliases are matched
// case-insensitively at word boundaries; an alias starting with "=" is
// matched case-sensitively ("=Go" finds "Go" but not "go to"). Roles are the
// role clusters the skill is evidence for (none for cross-cutting skills).
type skillDef struct {
	name    string
	aliases []string
	roles   []string
}

// Short role names for the dictionary below.
const (
	be = roleBackend
	fe = roleFrontend
	da = roleData
	do = roleDevOps
	qa = roleQA
	mo = roleMobile
	ml = roleML
)

func rs(r ...string) []string { return r }

// skills is the dictionary, in a fixed order (languages, frameworks,
// databases, cloud/devops, testing, data/ML, mobile, frontend, Chinese
// role words). The order breaks ties between skills found at the same place.
var skills = []skillDef{
	// languages
	{"Go", []string{"=Go", "=GO", "golang"}, rs(be)},
	{"Java", []string{"java"}, rs(be)},
	{"Python", []string{"python"}, rs(be, da, ml)},
	{"C++", []string{"c++", "cpp"}, rs(be)},
	{"C#", []string{"c#", ".net"}, rs(be)},
	{"Rust", []string{"rust"}, rs(be)},
	{"PHP", []string{"php"}, rs(be)},
	{"Ruby", []string{"ruby", "rails"}, rs(be)},
	{"Scala", []string{"scala"}, rs(da)},
	{"Shell", []string{"shell", "bash"}, rs(do)},
	{"SQL", []string{"sql"}, rs(be, da)},
	{"JavaScript", []string{"javascript", "=JS", "es6"}, rs(fe)},
	{"TypeScript", []string{"typescript"}, rs(fe)},
	{"Node.js", []string{"node.js", "nodejs"}, rs(be, fe)},
	{"Kotlin", []string{"kotlin"}, rs(mo)},
	{"Swift", []string{"swift"}, rs(mo)},
	{"Objective-C", []string{"objective-c", "objc"}, rs(mo)},
	{"Dart", []string{"dart"}, rs(mo)},
	// backend frameworks and middleware
	{"Spring", []string{"spring boot", "spring cloud", "spring"}, rs(be)},
	{"Gin", []string{"gin"}, rs(be)},
	{"Django", []string{"django"}, rs(be)},
	{"Flask", []string{"flask"}, rs(be)},
	{"FastAPI", []string{"fastapi"}, rs(be)},
	{"Express", []string{"express.js", "expressjs"}, rs(be)},
	{"gRPC", []string{"grpc", "protobuf"}, rs(be)},
	{"REST", []string{"=REST", "restful"}, rs(be)}, // not "the rest of"
	{"HTTP", []string{"http", "https"}, nil},
	{"Kafka", []string{"kafka"}, rs(be, da)},
	{"RabbitMQ", []string{"rabbitmq"}, rs(be)},
	{"RocketMQ", []string{"rocketmq"}, rs(be)},
	{"microservices", []string{"microservices", "microservice", "微服务"}, rs(be)},
	{"distributed systems", []string{"distributed system", "distributed systems", "分布式"}, rs(be)},
	{"high concurrency", []string{"high concurrency", "high-concurrency", "高并发"}, rs(be)},
	{"multithreading", []string{"multithreading", "multi-threading", "多线程"}, rs(be)},
	// databases
	{"MySQL", []string{"mysql", "innodb"}, rs(be)},
	{"PostgreSQL", []string{"postgresql", "postgres"}, rs(be)},
	{"Oracle", []string{"oracle"}, rs(be)},
	{"SQLite", []string{"sqlite"}, rs(mo)},
	{"Redis", []string{"redis"}, rs(be)},
	{"Memcached", []string{"memcached"}, rs(be)},
	{"MongoDB", []string{"mongodb", "mongo"}, rs(be)},
	{"Elasticsearch", []string{"elasticsearch"}, rs(be, da)},
	{"ClickHouse", []string{"clickhouse"}, rs(da)},
	{"database", []string{"database", "databases", "数据库"}, nil},
	// cloud and devops
	{"Docker", []string{"docker"}, rs(do)},
	{"Kubernetes", []string{"kubernetes", "k8s"}, rs(do)},
	{"Helm", []string{"helm"}, rs(do)},
	{"Terraform", []string{"terraform"}, rs(do)},
	{"Ansible", []string{"ansible"}, rs(do)},
	{"Jenkins", []string{"jenkins"}, rs(do)},
	{"GitHub Actions", []string{"github actions"}, rs(do)},
	{"GitLab CI", []string{"gitlab ci", "gitlab-ci"}, rs(do)},
	{"CI/CD", []string{"ci/cd", "cicd", "continuous integration", "持续集成"}, rs(do)},
	{"AWS", []string{"aws", "amazon web services"}, rs(do)},
	{"GCP", []string{"gcp", "google cloud"}, rs(do)},
	{"Azure", []string{"azure"}, rs(do)},
	{"Alibaba Cloud", []string{"alibaba cloud", "aliyun", "阿里云"}, rs(do)},
	{"Linux", []string{"linux"}, rs(do)},
	{"Nginx", []string{"nginx"}, rs(do, be)},
	{"Prometheus", []string{"prometheus"}, rs(do)},
	{"Grafana", []string{"grafana"}, rs(do)},
	{"ELK", []string{"elk"}, rs(do)},
	{"Git", []string{"git"}, nil},
	{"DevOps", []string{"devops", "运维"}, rs(do)},
	{"SRE", []string{"sre"}, rs(do)},
	// testing
	{"unit testing", []string{"unit test", "unit tests", "unit testing", "单元测试"}, nil},
	{"testing", []string{"qa", "quality assurance", "test cases", "test plan", "测试"}, rs(qa)},
	{"test automation", []string{"test automation", "automated testing", "automation testing", "自动化测试"}, rs(qa)},
	{"JUnit", []string{"junit"}, rs(qa)},
	{"pytest", []string{"pytest"}, rs(qa)},
	{"Jest", []string{"jest"}, rs(qa, fe)},
	{"Selenium", []string{"selenium"}, rs(qa)},
	{"Cypress", []string{"cypress"}, rs(qa)},
	{"Playwright", []string{"playwright"}, rs(qa)},
	{"Appium", []string{"appium"}, rs(qa)},
	{"JMeter", []string{"jmeter"}, rs(qa)},
	{"Locust", []string{"locust"}, rs(qa)},
	{"LoadRunner", []string{"loadrunner"}, rs(qa)},
	{"Postman", []string{"postman"}, rs(qa)},
	{"performance testing", []string{"performance testing", "load testing", "性能测试", "压测"}, rs(qa)},
	{"API testing", []string{"api testing", "接口测试"}, rs(qa)},
	{"Jira", []string{"jira"}, nil},
	{"agile", []string{"agile", "scrum", "敏捷"}, nil},
	// data and ML
	{"Spark", []string{"spark", "pyspark"}, rs(da)},
	{"Hadoop", []string{"hadoop", "hdfs", "mapreduce"}, rs(da)},
	{"Hive", []string{"hive"}, rs(da)},
	{"HBase", []string{"hbase"}, rs(da)},
	{"Flink", []string{"flink"}, rs(da)},
	{"Airflow", []string{"airflow"}, rs(da)},
	{"ETL", []string{"etl"}, rs(da)},
	{"data warehouse", []string{"data warehouse", "data warehousing", "数据仓库", "数仓"}, rs(da)},
	{"data analysis", []string{"data analysis", "data analytics", "数据分析"}, rs(da)},
	{"big data", []string{"big data", "大数据", "数据开发", "数据工程"}, rs(da)},
	{"pandas", []string{"pandas"}, rs(da, ml)},
	{"NumPy", []string{"numpy"}, rs(da, ml)},
	{"scikit-learn", []string{"scikit-learn", "sklearn"}, rs(ml)},
	{"TensorFlow", []string{"tensorflow"}, rs(ml)},
	{"PyTorch", []string{"pytorch"}, rs(ml)},
	{"Keras", []string{"keras"}, rs(ml)},
	{"XGBoost", []string{"xgboost", "lightgbm"}, rs(ml)},
	{"machine learning", []string{"machine learning", "=ML", "机器学习"}, rs(ml)},
	{"deep learning", []string{"deep learning", "深度学习", "神经网络"}, rs(ml)},
	{"NLP", []string{"nlp", "natural language processing", "自然语言处理"}, rs(ml)},
	{"computer vision", []string{"computer vision", "opencv", "计算机视觉"}, rs(ml)},
	{"LLM", []string{"llm", "llms", "large language model", "大模型"}, rs(ml)},
	{"MLOps", []string{"mlops", "mlflow"}, rs(ml)},
	{"algorithms", []string{"算法"}, rs(ml)},
	// mobile
	{"Android", []string{"android", "安卓"}, rs(mo)},
	{"iOS", []string{"ios"}, rs(mo)},
	{"Flutter", []string{"flutter"}, rs(mo)},
	{"React Native", []string{"react native"}, rs(mo)},
	{"SwiftUI", []string{"swiftui"}, rs(mo)},
	{"Jetpack Compose", []string{"jetpack compose"}, rs(mo)},
	{"Firebase", []string{"firebase"}, rs(mo)},
	{"mobile", []string{"mobile app", "mobile apps", "移动端", "移动开发"}, rs(mo)},
	// frontend
	{"React", []string{"=React", "=REACT", "react.js", "reactjs"}, rs(fe)}, // not "react to"
	{"Vue", []string{"vue", "vue.js", "vuejs", "vue3"}, rs(fe)},
	{"Angular", []string{"angular"}, rs(fe)},
	{"Next.js", []string{"next.js", "nextjs"}, rs(fe)},
	{"Redux", []string{"redux"}, rs(fe)},
	{"HTML", []string{"html", "html5"}, rs(fe)},
	{"CSS", []string{"css", "css3"}, rs(fe)},
	{"Sass", []string{"sass", "scss"}, rs(fe)},
	{"Tailwind", []string{"tailwind", "tailwindcss"}, rs(fe)},
	{"Webpack", []string{"webpack"}, rs(fe)},
	{"Vite", []string{"vite"}, rs(fe)},
	{"mini program", []string{"mini program", "小程序"}, rs(fe)},
	// role words
	{"backend", []string{"backend", "back-end", "back end", "后端", "服务端"}, rs(be)},
	{"frontend", []string{"frontend", "front-end", "front end", "前端"}, rs(fe)},
	{"web security", []string{"xss", "csrf", "owasp"}, nil},
}

// roleWords are dictionary entries that name a role, not a skill: they
// count as evidence for the role but are not listed as skills.
var roleWords = setOf("backend", "frontend")

// findAlias returns the byte offset of the first occurrence of alias in
// line (lower is line lower-cased) at word boundaries, or -1. A boundary is
// only required next to an ASCII letter or digit, so Chinese aliases match
// anywhere and "c++" or ".net" need no boundary on their symbol side.
func findAlias(line, lower, alias string) int {
	hay := lower
	if a, ok := strings.CutPrefix(alias, "="); ok {
		hay, alias = line, a
	}
	for from := 0; from < len(hay); {
		i := strings.Index(hay[from:], alias)
		if i < 0 {
			return -1
		}
		i += from
		j := i + len(alias)
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[j:])
		first, _ := utf8.DecodeRuneInString(alias)
		last, _ := utf8.DecodeLastRuneInString(alias)
		okBefore := i == 0 || !asciiAlnum(first) || !asciiAlnum(before)
		okAfter := j == len(hay) || !asciiAlnum(last) || !asciiAlnum(after)
		if okBefore && okAfter {
			return i
		}
		from = i + 1
	}
	return -1
}

func asciiAlnum(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// foundSkill is a dictionary skill found in the resume.
type foundSkill struct {
	def       int // index in skills
	line, pos int
	evidence  string
}

// detectSkills finds the dictionary skills in text, in order of first
// appearance (line, then position, then dictionary order).
func detectSkills(lines []string) []foundSkill {
	var found []foundSkill
	for d, def := range skills {
		for li, line := range lines {
			lower := strings.ToLower(line)
			best := -1
			for _, a := range def.aliases {
				if p := findAlias(line, lower, a); p >= 0 && (best < 0 || p < best) {
					best = p
				}
			}
			if best >= 0 {
				found = append(found, foundSkill{def: d, line: li, pos: best, evidence: quote(line, best)})
				break
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.line != b.line {
			return a.line < b.line
		}
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		return a.def < b.def
	})
	return found
}

// quote returns the resume line, trimmed to about 120 characters around
// the byte offset pos so that the quoted skill stays visible.
func quote(line string, pos int) string {
	trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
	pos -= len(line) - len(trimmed)
	line = strings.TrimRightFunc(trimmed, unicode.IsSpace)
	const limit = 120
	rs := []rune(line)
	if len(rs) <= limit {
		return line
	}
	at := utf8.RuneCountInString(line[:max(0, min(pos, len(line)))])
	start := max(0, at-40)
	end := min(len(rs), start+limit-2)
	if end-start < limit-2 {
		start = max(0, end-(limit-2))
	}
	s := strings.TrimSpace(string(rs[start:end]))
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}

var (
	// quantified finds results with a unit: 30%, 3x, 10k, 200ms, 780 KB, 5000 QPS,
	// 2万, 3倍, 100 users. Plain years and dates do not count.
	quantified = regexp.MustCompile(`(?i)\d+(\.\d+)?\s*(%|％|x\b|k\b|w\b|m\b|ms\b|[kmgt]b\b|qps\b|tps\b|rps\b|users?\b|requests?\b|万|千|倍|人|ms|秒|毫秒)`)
	// bullet marks a list item: -, *, •, ·, or "1." / "1)".
	bullet = regexp.MustCompile(`^\s*([-*•·▪●]|\d{1,2}[.)、])\s*`)
	// actionVerb marks a line that describes what the candidate did.
	actionVerb = regexp.MustCompile(`(?i)\b(built|designed|developed|implemented|led|created|migrated|optimi[sz]ed|improved|reduced|launched|refactored|owned|architected|automated|scaled)\b|负责|设计|开发|实现|优化|主导|搭建|重构|提升|降低`)
)

// cutBullet returns line, trimmed, without its list marker, and whether it
// had one. A number marks an item only when no digit follows its ".":
// "2.4 MB to 780 KB…" is a line wrapped inside a sentence, not item 2.
func cutBullet(line string) (string, bool) {
	loc := bullet.FindStringSubmatchIndex(line)
	if loc == nil || line[loc[3]-1] == '.' && loc[1] < len(line) && line[loc[1]] >= '0' && line[loc[1]] <= '9' {
		return strings.TrimSpace(line), false
	}
	return strings.TrimSpace(line[loc[1]:]), true
}

// sections are the resume sections the score looks for, with their points.
var sections = []struct {
	name    string
	points  int
	pattern *regexp.Regexp
}{
	{"experience", 10, regexp.MustCompile(`(?i)\b(experience|employment|work history)\b|工作经历|工作经验|实习经历`)},
	{"projects", 10, regexp.MustCompile(`(?i)\bprojects?\b|项目`)},
	{"education", 5, regexp.MustCompile(`(?i)\b(education|university|college|bachelor|master|b\.?sc|m\.?sc|ph\.?d)\b|教育|大学|学院|本科|硕士|博士`)},
	{"skills", 5, regexp.MustCompile(`(?i)\b(skills|technologies|tech stack)\b|技能|技术栈|专业技能`)},
}

// buildProfile is the offline resume-profile-extraction, in the resume's
// language.
func buildProfile(in interview.ProfileInput) interview.Profile { return buildProfileIn(in, "") }

// buildProfileIn is buildProfile writing its suggestions in lang ("" for
// the resume's language).
func buildProfileIn(in interview.ProfileInput, lang string) interview.Profile {
	text := strings.ReplaceAll(in.ResumeText, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	zh := chineseOutput(lang, text)
	p := interview.Profile{
		Skills: []string{}, SkillEvidence: []interview.SkillEvidence{}, RoleHypotheses: []interview.RoleHypothesis{},
		ResumeSuggestions: []string{}, ProjectQuestionHints: []string{},
	}

	found := detectSkills(lines)
	evidence := make(map[string][]string) // role → dictionary names, in resume order
	total := 0
	for _, f := range found {
		def := skills[f.def]
		if !roleWords[def.name] {
			p.Skills = append(p.Skills, def.name)
			p.SkillEvidence = append(p.SkillEvidence, interview.SkillEvidence{Skill: def.name, Evidence: f.evidence})
		}
		for _, r := range def.roles {
			evidence[r] = append(evidence[r], def.name)
			total++
		}
	}

	// Role hypotheses: each skill is one piece of evidence for each role it
	// belongs to; confidence is the role's share of all that evidence.
	var hyps []interview.RoleHypothesis
	for _, r := range roles { // fixed order: no dependence on map iteration
		names := evidence[r]
		if len(names) == 0 {
			continue
		}
		conf := math.Round(float64(len(names))/float64(total)*100) / 100
		hyps = append(hyps, interview.RoleHypothesis{Target: roleName(r, zh), Evidence: skillsEvidence(names, zh), Confidence: conf})
	}
	sort.SliceStable(hyps, func(i, j int) bool {
		if hyps[i].Confidence != hyps[j].Confidence {
			return hyps[i].Confidence > hyps[j].Confidence
		}
		return strings.ToLower(hyps[i].Target) < strings.ToLower(hyps[j].Target)
	})
	p.ResumeType = roleName(roleGeneric, zh)
	if len(hyps) > 0 {
		p.ResumeType = hyps[0].Target
	}
	if t := strings.TrimSpace(in.ConfirmedTarget); t != "" {
		ev := "confirmed by the candidate"
		if zh {
			ev = "候选人确认的目标岗位"
		}
		lead := interview.RoleHypothesis{Target: t, Evidence: ev, Confidence: 1}
		rest := hyps[:0:0]
		for _, h := range hyps {
			if !strings.EqualFold(h.Target, t) {
				rest = append(rest, h)
			}
		}
		hyps = append([]interview.RoleHypothesis{lead}, rest...)
	}
	p.RoleHypotheses = append(p.RoleHypotheses, hyps...)

	// Signals of the resume score.
	words := wordCount(text)
	quantifiedLines := 0
	for _, l := range lines {
		if quantified.MatchString(l) {
			quantifiedLines++
		}
	}
	has := make(map[string]bool)
	for _, s := range sections {
		has[s.name] = s.pattern.MatchString(text)
	}

	// resumeScore (0..100) adds four objective signals:
	//   length:     min(20, words/10)         — 200+ words earn the full 20
	//   skills:     min(30, 3 × skills found) — 10+ dictionary skills earn 30
	//   quantified: min(20, 7 × lines with a number and a unit) — 3 lines earn 20
	//   sections:   experience 10, projects 10, education 5, skills 5
	// Words count Latin words plus one per two Chinese characters.
	score := min(20, words/10) + min(30, 3*len(p.Skills)) + min(20, 7*quantifiedLines)
	for _, s := range sections {
		if has[s.name] {
			score += s.points
		}
	}
	p.ResumeScore = max(0, min(100, score))

	// Suggestions from the missing signals, most valuable first, at most 5.
	suggest := func(ok bool, en, cn string) {
		if !ok && len(p.ResumeSuggestions) < 5 {
			p.ResumeSuggestions = append(p.ResumeSuggestions, pick(zh, en, cn))
		}
	}
	suggest(quantifiedLines > 0, "Quantify the impact of your projects (numbers, %).", "用数字量化项目成果（如性能提升百分比、用户量、QPS）。")
	suggest(has["projects"], "Add a Projects section: what you built, your role, the technologies and the result.", "增加项目经历：做了什么、你的职责、使用的技术和结果。")
	suggest(has["experience"], "Add a Work Experience section with company, dates and responsibilities.", "增加工作/实习经历：公司、时间和职责。")
	suggest(len(p.Skills) >= 5, "Name the concrete technologies you used (languages, frameworks, databases, tools).", "写明具体使用的技术（语言、框架、数据库、工具）。")
	suggest(words >= 150, "Expand the resume: describe your responsibilities and results in more detail.", "简历内容偏少，请更详细地描述职责和成果。")
	suggest(has["education"], "Add an Education section.", "增加教育经历。")
	suggest(has["skills"], "Add a Skills section that groups your technologies.", "增加专业技能一栏，分类列出技术栈。")

	// Project question hints: bullet or action lines long enough to probe.
	for _, l := range lines {
		if len(p.ProjectQuestionHints) == 5 {
			break
		}
		t, isBullet := cutBullet(l)
		if utf8.RuneCountInString(t) < 20 || wordCount(t) < 5 {
			continue
		}
		if isBullet || actionVerb.MatchString(t) {
			p.ProjectQuestionHints = append(p.ProjectQuestionHints, clip(t, 120))
		}
	}
	return p
}

func skillsEvidence(names []string, zh bool) string {
	if len(names) > 6 {
		names = names[:6]
	}
	if zh {
		shown := make([]string, len(names))
		for i, n := range names {
			shown[i] = skillNameZH(n)
		}
		return "简历提及：" + strings.Join(shown, "、")
	}
	return fmt.Sprintf("resume mentions %s", strings.Join(names, ", "))
}

// pick returns cn when zh, else en.
func pick(zh bool, en, cn string) string {
	if zh {
		return cn
	}
	return en
}

// roleName is how a Chinese profile names a role (roleFor reads it back).
func roleName(role string, zh bool) string {
	if zh {
		return roleNamesZH[role]
	}
	return role
}

// skillNameZH is how Chinese text names a skill: a skill named by common
// English words ("frontend", "unit testing") by its Chinese alias, a
// technical term ("React", "Redis") as it is.
func skillNameZH(name string) string {
	if name != strings.ToLower(name) {
		return name
	}
	for _, d := range skills {
		if d.name != name {
			continue
		}
		for _, a := range d.aliases {
			if strings.ContainsFunc(a, isHan) {
				return a
			}
		}
	}
	return name
}
