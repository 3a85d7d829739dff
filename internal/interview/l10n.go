package interview

// Text the candidate reads that the rules (not the model) write, in the
// session's language. Codes (levels, radar keys) stay stable in the API;
// only their display text is localized.

// levelTextZH is the Chinese display text of each level code.
var levelTextZH = map[string]string{
	LevelExcellent: "优秀",
	LevelQualified: "合格",
	LevelNeedsWork: "需改进",
}

// LevelText is the display text of a level code in lang: the code itself
// in English, its Chinese name in Chinese ("" for "").
func LevelText(level, lang string) string {
	if t, ok := levelTextZH[level]; ok && lang == LangZH {
		return t
	}
	return level
}

// radarLabelZH names the radar axes in Chinese, by key.
var radarLabelZH = map[string]string{
	"resumeScore": "简历", "interviewPerformance": "面试表现", "demeanorEvaluation": "仪态",
	"professionalSkills": "专业技能", "potentialIndex": "潜力",
}

// reportText is the prose of the report's review in one language.
type reportText struct {
	notEnough                       string
	strong, solid, meets, below     string
	comment                         string // grade, potential index
	extremes                        string // strongest name, score, weakest name, score
	revisit                         string // question
	practise                        string // question number: a next action
	noAnswers                       string // why a report without answers has no scores
	turn                            string // question number
	resume, interview, demeanor     string
	skills, potential               string
	feedbackConsider, feedbackEmpty string
	dimension                       map[string]string // dimension id -> name; nil: capitalised id
	sep                             string            // between feedback sentences
}

var reportTexts = map[string]reportText{
	LangEN: {
		notEnough: "Not enough was assessed in this interview to give an overall comment.",
		strong:    "Strong performance", solid: "Solid performance", meets: "Meets the bar", below: "Below expectations",
		comment:   "%s (potential index %d).",
		extremes:  " Strongest: %s (%d); weakest: %s (%d).",
		revisit:   "revisit the question \"%s\"",
		practise:  "Practise Q%s again out loud, covering the points its feedback names.",
		noAnswers: "No question was answered, so there is no interview score, potential index or duration.",
		turn:      "Q%s: ",
		resume:    "resume", interview: "interview performance", demeanor: "demeanor",
		skills: "professional skills", potential: "potential",
		feedbackConsider: "Consider also: %s.",
		feedbackEmpty:    "The answer was evaluated, but no detailed feedback is available for this question.",
		sep:              " ",
	},
	LangZH: {
		notEnough: "本场面试评估的内容不足，暂无法给出总体评价。",
		strong:    "表现出色", solid: "表现扎实", meets: "达到要求", below: "低于预期",
		comment:   "%s（潜力指数 %d）。",
		extremes:  "最强项：%s（%d）；最弱项：%s（%d）。",
		revisit:   "重新复习这道题：“%s”",
		practise:  "把第 %s 题再大声练一遍，讲全反馈里指出的要点。",
		noAnswers: "本场面试没有回答任何问题，因此没有面试得分、潜力指数和用时。",
		turn:      "第 %s 题：",
		resume:    "简历", interview: "面试表现", demeanor: "仪态",
		skills: "专业技能", potential: "潜力",
		feedbackConsider: "还可以补充：%s。",
		feedbackEmpty:    "这道题的回答已评估，但暂无详细反馈。",
		dimension: map[string]string{"correctness": "正确性", "completeness": "完整性", "logic": "逻辑",
			"depth": "深度", "clarity": "清晰度"},
		sep: "",
	},
}

// textsIn returns the report prose of lang (English for anything else).
func textsIn(lang string) reportText {
	if t, ok := reportTexts[lang]; ok {
		return t
	}
	return reportTexts[LangEN]
}

// demeanorNotAssessed is the one sentence that says why a photo was not
// assessed, in lang.
func demeanorNotAssessed(lang string) string {
	if lang == LangZH {
		return "当前的 AI 模型无法识别图像，因此不评估仪态。"
	}
	return "Demeanor is not assessed because the AI model in use cannot see images."
}
