package apperr

// zhCN is the Simplified Chinese catalog: the English format of every
// message (as passed to New, Invalid, Conflict…) to its Chinese format,
// with the same verbs in the same order. JSON field names, query
// parameters and technical terms stay as they are. TestCatalogCoversSource
// fails when a message in the source has no entry here.
var zhCN = map[string]string{
	"internal error": "服务器内部错误",
	"success":        "成功",
	"%s not found":   "%s不存在",
}

// zhWords translates the closed-set words passed as Word: the nouns of
// NotFound and the names of rate-limit buckets.
var zhWords = map[string]string{
	"conversation": "会话",
}
