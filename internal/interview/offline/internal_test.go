package offline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// TestBankIsValid checks every bank question against the contract a real
// model is held to.
func TestBankIsValid(t *testing.T) {
	perRole := make(map[string]int)
	for i, e := range bank {
		q := e.spec(false)
		t.Run(fmt.Sprintf("%d %s", i, clip(q.Content, 40)), func(t *testing.T) {
			zq := e.spec(true)
			if zq.Content == q.Content || !isChinese(zq.Content) || !strings.HasSuffix(zq.FollowUpStrategy, "？") ||
				!usableQuestion(zq.FollowUpStrategy) {
				t.Errorf("Chinese wording missing or unusable: %q / %q", zq.Content, zq.FollowUpStrategy)
			}
			if q.Content == "" || q.RubricVersion != 1 {
				t.Errorf("content %q, rubricVersion %d", q.Content, q.RubricVersion)
			}
			if n := len(q.Anchors); n < 2 || n > 4 {
				t.Errorf("%d anchors, want 2-4", n)
			}
			sum, core := 0, 0
			for _, a := range q.Anchors {
				sum += a.Weight
				if a.Core {
					core++
				}
				if a.Name == "" || a.Weight <= 0 {
					t.Errorf("anchor %+v: empty name or weight", a)
				}
				if n := len(a.AcceptableStatements); n < 2 || n > 4 {
					t.Errorf("anchor %q: %d statements, want 2-4", a.Name, n)
				}
				for _, s := range a.AcceptableStatements {
					if len(uniqueTokens(s)) == 0 {
						t.Errorf("anchor %q: statement %q has no significant tokens", a.Name, s)
					}
				}
			}
			if sum != 100 {
				t.Errorf("weights sum to %d, want 100", sum)
			}
			if core == 0 {
				t.Error("no core anchor")
			}
			if n := len(q.CommonMistakes); n < 1 || n > 3 {
				t.Errorf("%d common mistakes, want 1-3", n)
			}
			if !usableQuestion(q.FollowUpStrategy) {
				t.Errorf("followUpStrategy %q is not a question of at most 100 characters", q.FollowUpStrategy)
			}
		})
		perRole[e.role]++
	}
	if len(bankZH) != len(bank) {
		t.Errorf("%d Chinese wordings for %d questions", len(bankZH), len(bank))
	}
	for _, r := range roles {
		if roleNamesZH[r] == "" {
			t.Errorf("role %s has no Chinese name", r)
		}
		if perRole[r] < 8 {
			t.Errorf("role %s has %d questions, want at least 8", r, perRole[r])
		}
	}
}

// TestBankAnswers: for every bank question, an answer made of its
// acceptable statements meets every anchor and trips no common mistake, and
// an answer stating a common mistake is contradicted.
func TestBankAnswers(t *testing.T) {
	for i, e := range bank {
		q := e.spec(false)
		var parts []string
		for _, a := range q.Anchors {
			parts = append(parts, a.AcceptableStatements...)
		}
		strong := strings.Join(parts, ". ") + "."
		t.Run(fmt.Sprintf("%d strong", i), func(t *testing.T) {
			ev := evaluate(interview.EvaluationInput{Question: q, Answer: strong})
			for _, a := range ev.Anchors {
				if a.Status != interview.StatusMet {
					t.Errorf("anchor %q: %s (%s)", a.Name, a.Status, a.Evidence)
				}
			}
			if got := ev.Dimensions[0]; got.Status != interview.StatusMet {
				t.Errorf("correctness %s: %s", got.Status, got.Evidence)
			}
			if ev.Score < 85 {
				t.Errorf("score %d, want ≥ 85", ev.Score)
			}
		})
		for j, m := range q.CommonMistakes {
			t.Run(fmt.Sprintf("%d mistake %d", i, j), func(t *testing.T) {
				answer := q.Anchors[0].AcceptableStatements[0] + ". Also, " + m + "."
				ev := evaluate(interview.EvaluationInput{Question: q, Answer: answer})
				if got := ev.Dimensions[0].Status; got != interview.StatusContradicted {
					t.Errorf("correctness %s for %q", got, answer)
				}
				if ev.Score > contradictionCap {
					t.Errorf("score %d above the cap", ev.Score)
				}
			})
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Indexes slow down INSERTS", "index slow down insert"},
		{"caching cached caches cache", "cach cach cach cach"},
		{"The TCP three-way handshake", "tcp thre handshak"},
		{"don't use Redis", "redis"},
		{"HTTP 429 with Retry-After", "http 429 retry after"},
		{"数据库的索引", "数据 据库 索引"},
		{"用B+树", "用 树"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := strings.Join(tokens(tt.in), " "); got != tt.want {
				t.Errorf("tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSentences(t *testing.T) {
	got := sentences("Use node.js 3.5 here. Then stop!第二句。第三句；last")
	want := []string{"Use node.js 3.5 here", "Then stop", "第二句", "第三句", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences = %q, want %q", got, want)
	}
}

func TestNegated(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"indexes speed up writes", false},
		{"indexes do not speed up writes", true},
		{"indexes don't speed up writes", true},
		{"it is not true that it never fails", false},
		{"索引不会加快写入", true},
		{"索引会让写入变慢", false},
	}
	for _, tt := range tests {
		if got := negated(tt.in); got != tt.want {
			t.Errorf("negated(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRoleFor(t *testing.T) {
	tests := []struct{ target, want string }{
		{"Senior Backend Engineer", roleBackend},
		{"后端开发工程师", roleBackend},
		{"Frontend developer", roleFrontend},
		{"HTML/CSS specialist", roleGeneric},
		{"ML engineer", roleML},
		{"AI researcher", roleML},
		{"Data Engineer", roleData},
		{"SRE", roleDevOps},
		{"QA engineer", roleQA},
		{"Software Tester", roleQA},
		{"iOS developer", roleMobile},
		{"Android 工程师", roleMobile},
		{"", roleGeneric},
		{"generic software engineer", roleGeneric},
	}
	for _, tt := range tests {
		if got := roleFor(tt.target); got != tt.want {
			t.Errorf("roleFor(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

func TestQuote(t *testing.T) {
	line := "  " + strings.Repeat("word ", 40) + "Redis " + strings.Repeat("more ", 20)
	got := quote(line, strings.Index(line, "Redis"))
	if !strings.Contains(got, "Redis") || len([]rune(got)) > 120 {
		t.Errorf("quote = %q (%d runes)", got, len([]rune(got)))
	}
}

func TestDetectSkills(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"Go, Golang and MySQL; some JavaScript but no Java", []string{"Go", "MySQL", "JavaScript", "Java"}},
		{"Let's go to the rest of the team and react to feedback", nil},
		{"C++ and C# on .NET, Node.js with React", []string{"C++", "C#", "Node.js", "React"}},
		{"熟悉后端开发，使用 Redis 和 MySQL 数据库，做过单元测试", []string{"backend", "Redis", "MySQL", "database", "unit testing", "testing"}},
		{"HTML5 and CSS3, no html-ish mlops", []string{"HTML", "CSS", "MLOps"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var got []string
			for _, f := range detectSkills([]string{tt.line}) {
				got = append(got, skills[f.def].name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("detectSkills = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInProse: English anchor names read as words inside a sentence, with
// acronyms, mixed-case words and proper nouns kept.
func TestInProse(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Write and storage cost", "write and storage cost"},
		{"Single-threaded call stack", "single-threaded call stack"},
		{"Measure", "measure"},
		{"DNS resolution", "DNS resolution"},
		{"B+ tree lookup", "B+ tree lookup"},
		{"InnoDB implementation", "InnoDB implementation"},
		{"Terraform workflow", "Terraform workflow"},
		{"GROUP BY", "GROUP BY"},
		{"Layer 4 and layer 7", "layer 4 and layer 7"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inProse(tt.name); got != tt.want {
				t.Errorf("inProse(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
	if got, want := joinList([]string{"Measure", "Reduce and defer", "Critical rendering path"}, false), "measure, reduce and defer and critical rendering path"; got != want {
		t.Errorf("joinList = %q, want %q", got, want)
	}
}
