package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestParseTagCodes(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"", nil, true},
		{"5", []int{5}, true},
		{" 5, 1 ,5,99", []int{1, 5, 99}, true},
		{"1,,2", []int{1, 2}, true},
		{"11", nil, false},
		{"x", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTagCodes(tt.in)
			if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseTagCodes(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	temp := func(v float64) *float64 { return &v }
	valid := Agent{Name: "coder", SystemPrompt: "You write Go.", TagCodes: []int{2, 5}}
	tests := []struct {
		name   string
		change func(*Agent)
		ok     bool
	}{
		{"valid", func(*Agent) {}, true},
		{"no name", func(a *Agent) { a.Name = "" }, false},
		{"long name", func(a *Agent) { a.Name = strings.Repeat("n", 65) }, false},
		{"no prompt", func(a *Agent) { a.SystemPrompt = " " }, false},
		{"unknown tag", func(a *Agent) { a.TagCodes = []int{12} }, false},
		{"tag 99", func(a *Agent) { a.TagCodes = []int{99} }, true},
		{"temperature 2", func(a *Agent) { a.Temperature = temp(2) }, true},
		{"temperature too high", func(a *Agent) { a.Temperature = temp(2.5) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := valid
			tt.change(&a)
			if err := a.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestTagsRoundTrip(t *testing.T) {
	for _, codes := range [][]int{nil, {1}, {1, 5, 99}} {
		if got := decodeTags(encodeTags(codes)); !slices.Equal(got, codes) {
			t.Errorf("decodeTags(encodeTags(%v)) = %v", codes, got)
		}
	}
}

func TestFilesSection(t *testing.T) {
	newest := File{FileName: "new.md", Text: "NEWEST TEXT"}     // 11 chars
	older := File{FileName: "old.txt", Text: "older file text"} // 15 chars
	oldest := File{FileName: "oldest.pdf", Text: "x"}
	tests := []struct {
		name        string
		files       []File
		limit       int
		contains    []string
		notContains []string
	}{
		{"no files", nil, 100, nil, []string{FilesHeading}},
		{"all fit, newest first", []File{newest, older}, 100,
			[]string{FilesHeading, "### new.md\nNEWEST TEXT\n\n### old.txt\nolder file text\n"}, []string{"truncated"}},
		{"second cut at the budget", []File{newest, older, oldest}, 16,
			[]string{"### new.md\nNEWEST TEXT\n", "### old.txt\nolder\n[... truncated]", "Not included for lack of room: oldest.pdf"},
			[]string{"older file"}},
		{"extraction truncated is marked", []File{{FileName: "big.pdf", Text: "abc", Truncated: true}}, 100,
			[]string{"abc\n[... truncated]"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FilesSection(tt.files, tt.limit)
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("section lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.notContains {
				if strings.Contains(got, s) {
					t.Errorf("section has %q:\n%s", s, got)
				}
			}
			if tt.files == nil && got != "" {
				t.Errorf("section without files = %q", got)
			}
		})
	}
}
