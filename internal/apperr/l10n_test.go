package apperr

import (
	"fmt"
	"testing"
)

func TestMessageIn(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		lang string
		want string
	}{
		{"english", Invalid("title must be at most %d characters", 200), LangEN, "title must be at most 200 characters"},
		{"unknown language is english", Invalid("title is required"), "fr", "title is required"},
		{"chinese with args", Invalid("title must be at most %d characters", 200), LangZH, "title 最多 200 个字符"},
		{"field name kept, words translated", Invalid("field %q must be %s, not %s", "age", Word("a number"), Word("string")), LangZH, `字段 "age" 必须是数字，而不是字符串`},
		{"word translated", NotFound("conversation"), LangZH, "会话不存在"},
		{"list in english", New(KindUnprocessable, "upload a %s file", List{"PDF", "TXT", "MD"}), LangEN, "upload a PDF, TXT or MD file"},
		{"list in chinese", New(KindUnprocessable, "%sunsupported file type: upload a %s file", `"cv.docx": `, List{"PDF", "TXT", "MD", "JPEG"}), LangZH, `"cv.docx": 不支持的文件类型：请上传 PDF、TXT、MD 或 JPEG 文件`},
		{"one-item list", New(KindUnprocessable, "%sunsupported file type: upload a %s file", "", List{"PDF"}), LangZH, "不支持的文件类型：请上传 PDF 文件"},
		{"replayed list", &Error{Kind: KindUnprocessable, Message: `"a.doc": unsupported file type: upload a PDF, TXT or MD file`}, LangZH, `"a.doc": 不支持的文件类型：请上传 PDF、TXT 或 MD 文件`},
		{"internal", Internal(fmt.Errorf("boom")), LangZH, "服务器内部错误"},
		{"internal with a message for the candidate", &Error{Kind: KindInternal, Message: "the AI took too long to read your resume; please try again"}, LangZH, "AI 读取简历耗时过长，请重试"},
		{"internal, unknown text", &Error{Kind: KindInternal, Message: "boom"}, LangZH, "服务器内部错误"},
		{"passed through", New(KindTimeout, "%s", "model did not answer in time"), LangZH, "模型未能及时响应"},
		{"replayed: matched by text", &Error{Kind: KindConflict, Message: "the audio of tts task t1 is not ready yet (40%)"}, LangZH, "语音合成任务 t1 的音频尚未就绪（40%）"},
		{"replayed word", &Error{Kind: KindNotFound, Message: "interview session not found"}, LangZH, "面试会话不存在"},
		{"unknown stays english", &Error{Kind: KindUpstream, Message: "upstream said no"}, LangZH, "upstream said no"},
		{"nested guard message", New(KindTimeout, "%s", fmt.Sprintf("the AI model did not answer stage %q within %s", "interview-evaluation", "30s")), LangZH, `AI 模型未能完成阶段 "interview-evaluation"（超过 30s）`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.MessageIn(tt.lang); got != tt.want {
				t.Errorf("MessageIn(%q) = %q, want %q", tt.lang, got, tt.want)
			}
		})
	}
}

// The English message does not change: logs and old clients read it.
func TestMessageUnchanged(t *testing.T) {
	e := NotFound("conversation").WithCode(CodeSessionMissing)
	if got, want := e.Message, "conversation not found"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if got, want := e.MessageIn(LangZH), "会话不存在"; got != want {
		t.Errorf("a copy lost its format: MessageIn = %q, want %q", got, want)
	}
}

func TestVerbs(t *testing.T) {
	for _, tt := range []struct {
		format string
		want   string
	}{
		{"plain", "[]"},
		{"%q is %d%% of %.200s", "[q d s]"},
		{"%-5v and %g", "[v g]"},
	} {
		if got := fmt.Sprint(Verbs(tt.format)); got != tt.want {
			t.Errorf("Verbs(%q) = %s, want %s", tt.format, got, tt.want)
		}
	}
}
