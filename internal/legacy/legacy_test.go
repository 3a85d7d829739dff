package legacy

import "testing"

func TestMapType(t *testing.T) {
	tests := []struct{ original, want string }{
		{"openai", "openai"},
		{" OpenAI ", "openai"},
		{"DeepSeek", "deepseek"},
		{"dashscope", "qwen"},
		{"tongyi", "qwen"},
		{"GLM", "zhipu"},
		{"kimi", "moonshot"},
		{"xunfei", "spark"},
		{"volcengine", "doubao"},
		{"ollama", "ollama"},
		{"acme", "other"},
		{"", "other"},
	}
	for _, tt := range tests {
		t.Run(tt.original, func(t *testing.T) {
			if got := MapType(tt.original); got != tt.want {
				t.Errorf("MapType(%q) = %q, want %q", tt.original, got, tt.want)
			}
		})
	}
}

func TestTruncateRunes(t *testing.T) {
	if got := truncateRunes("xingchen-简历助手", 11); got != "xingchen-简历" {
		t.Errorf("truncateRunes = %q", got)
	}
}
