package offline

// IsChinese exposes isChinese to the external tests: mustGenerate gives a
// request the language a session would have for its text.
var IsChinese = isChinese
