package interview

import "strings"

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
	stop                            string            // ends a sentence split from feedback
	// reviewNotice is the line added to an answer's feedback after a
	// second review, by the verdict's reason code.
	reviewNotice map[string]string
	// hiddenScore says why an answer's score is not shown.
	hiddenScore string
	// cannedHighlight and cannedTip are the per-dimension sentences used
	// when no answer gives a highlight or a tip, by radar dimension
	// (resume, interview, demeanor, skills).
	cannedHighlight, cannedTip map[string]string
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
		stop:             ".",
		reviewNotice: map[string]string{
			"review:agree":                "Note: this answer went to a second review, which confirmed the first evaluation.",
			"review:second-run":           "Note: this answer went to a second review; its score comes from that review.",
			"review:correctness-disputed": "Note: this answer went to a second review that disagreed on correctness; the lower score was kept and flagged for a human check.",
			"review:invalid-second":       "Note: this answer went to a second review that gave no usable result; the first evaluation stands.",
			"review:failed":               "Note: a second review of this answer could not be run; the first evaluation stands.",
		},
		hiddenScore: "Not scored: the answer gave too little evidence to judge it.",
		cannedHighlight: map[string]string{
			"resume":    "Your resume fits the target role well.",
			"interview": "Your answers were accurate and well organised.",
			"demeanor":  "You came across as calm and focused.",
			"skills":    "You showed solid professional skills for the role.",
		},
		cannedTip: map[string]string{
			"resume":    "Tailor your resume to the target role and quantify your results.",
			"interview": "Answer with the conclusion first, then the reasoning, then an example.",
			"demeanor":  "Practise answering on camera to stay calm and keep eye contact.",
			"skills":    "Deepen the core knowledge of the role and practise explaining trade-offs.",
		},
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
		sep:  "",
		stop: "。",
		reviewNotice: map[string]string{
			"review:agree":                "提示：该回答经过了二次复核，复核结果与首次评估一致。",
			"review:second-run":           "提示：该回答经过了二次复核，得分以复核结果为准。",
			"review:correctness-disputed": "提示：该回答经过了二次复核，两次评估对正确性判断不一致，已取较低分并标记待人工复核。",
			"review:invalid-second":       "提示：该回答经过了二次复核，但复核结果不可用，保留首次评估。",
			"review:failed":               "提示：该回答的二次复核未能完成，保留首次评估。",
		},
		hiddenScore: "暂不评分：回答中可作为依据的内容不足。",
		cannedHighlight: map[string]string{
			"resume":    "简历与目标岗位匹配度高。",
			"interview": "答题准确，条理清晰。",
			"demeanor":  "神态从容，表达专注。",
			"skills":    "专业能力呈现扎实。",
		},
		cannedTip: map[string]string{
			"resume":    "针对目标岗位完善简历，并量化项目成果。",
			"interview": "回答时先给结论，再讲原因，最后举例。",
			"demeanor":  "多对着镜头练习，保持从容并注视镜头。",
			"skills":    "加深岗位核心知识，多练习讲清技术取舍。",
		},
	},
}

// textsIn returns the report prose of lang (English for anything else).
func textsIn(lang string) reportText {
	if t, ok := reportTexts[lang]; ok {
		return t
	}
	return reportTexts[LangEN]
}

// ReviewNotice is the one-line notice added to an answer's feedback after
// a second review, in lang; "" when the verdict (its reason code) did not
// come from one.
func ReviewNotice(lang, scoredReason string) string {
	return textsIn(lang).reviewNotice[scoredReason]
}

// hiddenScoreText says, in lang, why an answer's score is not shown.
func hiddenScoreText(lang string) string { return textsIn(lang).hiddenScore }

// withReviewNotice is feedback with the review notice of reason on its own
// line (feedback unchanged when there is none).
func withReviewNotice(lang, feedback, reason string) string {
	if n := ReviewNotice(lang, reason); n != "" {
		return strings.TrimSpace(feedback + "\n" + n)
	}
	return feedback
}

// withoutReviewNotice is t's feedback without the review notice the answer
// path added, for the report's highlights and tips.
func withoutReviewNotice(lang string, t Turn) string {
	if t.Scored == nil {
		return t.Feedback
	}
	n := ReviewNotice(lang, t.Scored.Reason)
	if n == "" {
		return t.Feedback
	}
	return strings.TrimSpace(strings.TrimSuffix(t.Feedback, n))
}

// demeanorNotAssessed is the one sentence that says why a photo was not
// assessed, in lang.
func demeanorNotAssessed(lang string) string {
	if lang == LangZH {
		return "当前的 AI 模型无法识别图像，因此不评估仪态。"
	}
	return "Demeanor is not assessed because the AI model in use cannot see images."
}

// pointText is the wording of an answer's strengths and improvements
// (AnswerPointsIn) in one language. The %s is a key point named by the
// question's rubric or a point the evaluator found missing, both in the
// session's language.
type pointText struct {
	// covered, partial, missing and wrong word a rubric key point judged
	// met, partial, missing or contradicted.
	covered, partial, missing, wrong string
	// alsoCover words a point the evaluator found missing.
	alsoCover string
	// further words an optional key point not fully covered, or a point
	// the evaluator found missing, in an answer of the top level: a way
	// to go further rather than a fault.
	further string
	// dimGood and dimWeak say what a dimension judged met, or not met,
	// means for the answer; wrongFacts replaces dimWeak[correctness] when
	// correctness is contradicted.
	dimGood, dimWeak map[string]string
	wrongFacts       string
	// generic is the one improvement of a low score nothing else explains.
	generic string
}

var pointTexts = map[string]pointText{
	LangEN: {
		covered:   "Covered the key point: %s.",
		partial:   "Develop the key point further: %s.",
		missing:   "Missing key point: %s.",
		wrong:     "Got the key point wrong: %s.",
		alsoCover: "Also cover: %s.",
		further:   "To go further, also discuss: %s.",
		dimGood: map[string]string{
			DimCorrectness:  "The answer is technically correct.",
			DimCompleteness: "The answer covers the whole question.",
			DimLogic:        "The reasoning is well structured.",
			DimDepth:        "The answer goes into depth.",
			DimClarity:      "The answer is clearly expressed.",
		},
		dimWeak: map[string]string{
			DimCorrectness:  "Some statements are not quite accurate; check the facts.",
			DimCompleteness: "Cover every part of the question.",
			DimLogic:        "Structure the reasoning: the conclusion first, then the reasons.",
			DimDepth:        "Go deeper: explain why it works and the trade-offs.",
			DimClarity:      "Say it more clearly and concisely.",
		},
		wrongFacts: "Some statements are wrong; check the facts.",
		generic:    "Cover the key points of the question more fully.",
	},
	LangZH: {
		covered:   "讲到了要点：%s。",
		partial:   "要点讲得还不充分：%s。",
		missing:   "遗漏了要点：%s。",
		wrong:     "要点有误：%s。",
		alsoCover: "还可以补充：%s。",
		further:   "想更进一步，还可以谈谈：%s。",
		dimGood: map[string]string{
			DimCorrectness:  "回答内容正确。",
			DimCompleteness: "回答覆盖了问题的各个方面。",
			DimLogic:        "思路清晰，有条理。",
			DimDepth:        "回答有深度。",
			DimClarity:      "表达清楚。",
		},
		dimWeak: map[string]string{
			DimCorrectness:  "部分内容不够准确，请核实相关事实。",
			DimCompleteness: "回答要覆盖问题的各个方面。",
			DimLogic:        "先给结论，再讲原因，让思路更有条理。",
			DimDepth:        "再深入一些：讲清原理和取舍。",
			DimClarity:      "表达可以更清楚、更简洁。",
		},
		wrongFacts: "部分说法有误，请核实相关事实。",
		generic:    "把题目的要点讲得更全面。",
	},
}

// pointTextIn returns the strengths' and improvements' wording of lang
// (English for anything else).
func pointTextIn(lang string) pointText {
	if t, ok := pointTexts[lang]; ok {
		return t
	}
	return pointTexts[LangEN]
}
