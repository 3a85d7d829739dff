package chat

import (
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

func TestDeriveTitle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"blank", " \n\t ", ""},
		{"short", "Hello there", "Hello there"},
		{"exactly 20", "12345678901234567890", "12345678901234567890"},
		{"21 chars", "123456789012345678901", "12345678901234567890..."},
		{"whitespace collapsed", "  How  do\nI   write Go tests well?", "How do I write Go te..."},
		{"CJK counted by character", "如何在面试中介绍自己的项目经验并且突出重点呢", "如何在面试中介绍自己的项目经验并且突出重..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeriveTitle(tt.in); got != tt.want {
				t.Fatalf("DeriveTitle(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateTitle(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"trimmed", "  My chat ", "My chat", true},
		{"empty", "  ", "", false},
		{"100 chars", strings.Repeat("a", 100), strings.Repeat("a", 100), true},
		{"101 chars", strings.Repeat("a", 101), "", false},
		{"two lines", "a\nb", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateTitle(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ValidateTitle(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"你好", 2},
		{"你好 abcd", 4}, // 2 CJK + ceil(5/4)
		{"こんにちは", 5},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// msg makes a history message of n*4 ASCII characters: n tokens of text,
// n+messageOverhead in the context.
func msg(typ int, tag string, n int) Message {
	return Message{Type: typ, Content: tag + strings.Repeat("x", n*4-len(tag))}
}

func TestBuildContext(t *testing.T) {
	system := strings.Repeat("s", 40) // 10 tokens + 4
	user := strings.Repeat("u", 40)   // 10 tokens + 4
	history := []Message{
		msg(TypeUser, "u1", 10), msg(TypeAI, "a1", 10), // 14 each in context
		msg(TypeUser, "u2", 10), {Type: TypeAI, ErrorMessage: "model error"}, // failed answer: skipped
		msg(TypeUser, "u3", 10), msg(TypeAI, "a3", 10),
	}
	tests := []struct {
		name    string
		system  string
		history []Message
		budget  int
		want    []string // role:first two characters of content
	}{
		{"no history", system, nil, 1000, []string{"system:ss", "user:uu"}},
		{"everything fits", system, history, 1000,
			[]string{"system:ss", "user:u1", "assistant:a1", "user:u2", "user:u3", "assistant:a3", "user:uu"}},
		{"oldest trimmed first", system, history, 14 + 14 + 3*14, // system + user + 3 history
			[]string{"system:ss", "user:u2", "user:u3", "assistant:a3", "user:uu"}},
		{"one short of a message", system, history, 14 + 14 + 14 - 1,
			[]string{"system:ss", "user:uu"}},
		{"exactly one message", system, history, 14 + 14 + 14,
			[]string{"system:ss", "assistant:a3", "user:uu"}},
		{"budget below system and user keeps both", system, history, 5,
			[]string{"system:ss", "user:uu"}},
		{"zero budget", system, history, 0, []string{"system:ss", "user:uu"}},
		{"no system prompt", "", history, 14 + 2*14,
			[]string{"user:u3", "assistant:a3", "user:uu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BuildContext(tt.system, tt.history, user, tt.budget)
			var roles []string
			for _, m := range got {
				roles = append(roles, string(m.Role)+":"+m.Content[:2])
			}
			if strings.Join(roles, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("BuildContext = %v, want %v", roles, tt.want)
			}
			if last := got[len(got)-1]; last.Role != llm.RoleUser || last.Content != user {
				t.Fatalf("last message = %+v, want the new user message", last)
			}
		})
	}
}
