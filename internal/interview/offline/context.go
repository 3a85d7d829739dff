package offline

import (
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// Keywords count only in context (issue 19): an answer that lists the
// rubric's words without sentences that connect them, or that is mostly
// about something else with the words dropped in, has not explained
// anything. Such an answer meets no anchor fully (met becomes partial), so
// it cannot reach the qualified level however many words it holds.
//
// Measured on the committed pairs (testdata/pairs_*.json, TestStuffedAnswers):
// good answers have at most a third of their words in list-like sentences
// and every sentence on topic; keyword lists are all list, the off-topic
// answers a third on topic.

// Why an answer's keywords are out of context.
const (
	outOfContextNone = ""
	keywordList      = "list"      // most words are in list-like sentences
	offTopic         = "off-topic" // most sentences are not about the question
)

// Thresholds of the context check.
const (
	listWordShare  = 0.5  // list-like sentences hold at least this share of the words
	onTopicShare   = 0.5  // fewer than this share of sentences on topic is off topic
	listStopShare  = 0.12 // an English sentence with fewer stop words than this is a list
	listFuncShare  = 0.05 // a Chinese sentence with fewer function characters than this is a list
	listMinWords   = 8    // shorter English sentences are not judged
	listMinHan     = 16   // shorter Chinese sentences are not judged
	listMinItems   = 6    // a Chinese list enumerates at least this many items
	onTopicMinToks = 2    // a sentence is on topic with this many rubric or question tokens
)

// outOfContext says whether the answer's rubric words stand out of
// context, and how (keywordList, offTopic), or outOfContextNone.
func outOfContext(q interview.QuestionSpec, view rubricView, sents []string) string {
	if len(sents) == 0 {
		return outOfContextNone
	}
	vocab := map[string]bool{}
	for _, v := range view.vocab {
		for _, t := range tokens(strings.Join(v, "\n")) {
			vocab[t] = true
		}
	}
	for t := range answerTokens(questionText(q)) {
		vocab[t] = true
	}
	on, listWords, words := 0, 0, 0
	for _, s := range sents {
		if n, _ := overlap(uniqueTokens(s), vocab); n >= onTopicMinToks {
			on++
		}
		w := wordCount(s)
		words += w
		if listLike(s) {
			listWords += w
		}
	}
	switch {
	case len(sents) >= 2 && float64(on) < onTopicShare*float64(len(sents)):
		return offTopic
	case float64(listWords) >= listWordShare*float64(max(1, words)):
		return keywordList
	}
	return outOfContextNone
}

// listLike reports a sentence that enumerates words rather than saying
// something: an English one of listMinWords or more words almost without
// stop words, a Chinese one of listMinHan or more characters almost
// without function characters.
func listLike(s string) bool {
	han, latin := counts(s)
	if han > latin {
		// Terse Chinese often drops 的 and 了, so a list is also one that
		// enumerates: listMinItems or more items between 、.
		if han < listMinHan || strings.Count(s, "、") < listMinItems-1 {
			return false
		}
		f := 0
		for _, r := range s {
			if strings.ContainsRune(funcChars, r) {
				f++
			}
		}
		return float64(f) < listFuncShare*float64(han)
	}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') })
	if len(words) < listMinWords {
		return false
	}
	stop := 0
	for _, w := range words {
		if stopWords[w] {
			stop++
		}
	}
	return float64(stop) < listStopShare*float64(len(words))
}

// capContext lowers the dimensions an out-of-context answer cannot meet:
// its reasoning is not about the question (logic at most partial, missing
// for a bare list) and its depth is at most partial.
func capContext(dims []interview.DimensionJudgment, why string, zh bool) {
	for i, d := range dims {
		switch {
		case d.ID == interview.DimLogic && why == keywordList:
			dims[i] = interview.DimensionJudgment{ID: d.ID, Status: interview.StatusMissing, Confidence: judgedConfidence,
				Evidence: pick(zh, "A list of keywords, without sentences that connect them.", "只是关键词罗列，没有把它们连成句子。")}
		case d.ID == interview.DimLogic && d.Status == interview.StatusMet:
			dims[i] = interview.DimensionJudgment{ID: d.ID, Status: interview.StatusPartial, Confidence: judgedConfidence,
				Evidence: pick(zh, "The reasoning is mostly about something other than the question.", "论述大多与问题无关。")}
		case d.ID == interview.DimDepth && d.Status == interview.StatusMet:
			dims[i].Status = interview.StatusPartial
		}
	}
}

// contextNote is the feedback sentence of an out-of-context answer.
func contextNote(why string, zh bool) string {
	switch why {
	case keywordList:
		return pick(zh, "Your answer lists keywords without explaining how they fit together; say what each one does and why.",
			"回答只是罗列了关键词，没有说明它们之间的关系；请解释每一点是什么、为什么。")
	case offTopic:
		return pick(zh, "Most of your answer is not about the question; answer it directly.",
			"回答的大部分内容与问题无关；请直接回答问题。")
	}
	return ""
}
