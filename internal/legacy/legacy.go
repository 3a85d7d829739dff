// Package legacy imports the data of an existing AI-Meeting (the Java
// original) deployment from its MySQL database: accounts (t_user, with
// admin_permission when present), AI provider configurations
// (ai_properties) and agents (agent_properties). Rows the original deleted
// logically (del_flag = 1) are left out. Importing is idempotent: a row
// whose name already exists here is skipped, so running it twice creates
// nothing twice.
package legacy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/agent"
	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/users"
)

// Accounts creates imported users (users.Service).
type Accounts interface {
	Import(ctx context.Context, in users.ImportInput) (users.ImportOutcome, error)
	AdminExists(ctx context.Context) (bool, error)
}

// Providers creates provider configurations (aiconfig.Service).
type Providers interface {
	Create(ctx context.Context, actorID string, in aiconfig.Input) (aiconfig.Property, error)
}

// Agents creates agents (agent.Service).
type Agents interface {
	Create(ctx context.Context, actorID string, in agent.Input) (agent.Agent, error)
}

// Targets are where the imported rows go.
type Targets struct {
	Accounts  Accounts
	Providers Providers
	Agents    Agents
}

// Tables read, in order.
const (
	TableUsers     = "t_user"
	TableProviders = "ai_properties"
	TableAgents    = "agent_properties"
)

// Count is what happened to the rows of one table.
type Count struct {
	Table    string
	Read     int
	Imported int
	Skipped  int // already here (same name)
	Failed   int // not valid here; see Summary.Problems
}

// Summary is the outcome of an import.
type Summary struct {
	Counts []Count // one per table, in the order read
	// Problems explain each failed row and what was changed on an imported
	// one (a dropped field), one line each.
	Problems []string
	// Notes are general remarks (a missing table, no admin imported).
	Notes []string
}

// String formats the summary for a terminal.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %6s %8s %8s %6s\n", "table", "read", "imported", "skipped", "failed")
	for _, c := range s.Counts {
		fmt.Fprintf(&b, "%-18s %6d %8d %8d %6d\n", c.Table, c.Read, c.Imported, c.Skipped, c.Failed)
	}
	for _, p := range s.Problems {
		b.WriteString("  - " + p + "\n")
	}
	for _, n := range s.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}

// Progress reports after each row: done of total rows of all tables.
type Progress func(done, total int)

// ImportedBy is the creator recorded on imported configurations and agents.
const ImportedBy = "import"

// XingChenURL is the API root of the XingChen (iFlytek) workflows that the
// original's agents ran on, recorded on the provider configuration kept for
// each imported agent.
const XingChenURL = "https://xingchen-api.xf-yun.com/workflow/v1"

// Run reads the original's tables from src and creates what is missing in
// dst, reporting progress after each row. A table missing from src is
// noted and skipped; a row that cannot be imported is counted as failed
// with its reason, and the import goes on. Only a database error stops it.
func Run(ctx context.Context, src *sql.DB, dst Targets, progress Progress) (Summary, error) {
	if progress == nil {
		progress = func(int, int) {}
	}
	var sum Summary
	userRows, err := readUsers(ctx, src, &sum)
	if err != nil {
		return sum, err
	}
	providerRows, err := readProviders(ctx, src, &sum)
	if err != nil {
		return sum, err
	}
	agentRows, err := readAgents(ctx, src, &sum)
	if err != nil {
		return sum, err
	}
	total, done := len(userRows)+len(providerRows)+len(agentRows), 0
	progress(0, total)
	step := func() { done++; progress(done, total) }

	c := Count{Table: TableUsers, Read: len(userRows)}
	for _, u := range userRows {
		out, err := dst.Accounts.Import(ctx, u.in)
		tally(&c, &sum, fmt.Sprintf("t_user id %d (%s)", u.id, u.in.Username), err)
		if err == nil && len(out.Dropped) > 0 {
			sum.Problems = append(sum.Problems, fmt.Sprintf("t_user id %d (%s): imported without %s (not valid here)",
				u.id, u.in.Username, strings.Join(out.Dropped, ", ")))
		}
		if isFatal(err) {
			return sum, err
		}
		step()
	}
	sum.Counts = append(sum.Counts, c)
	if ok, err := dst.Accounts.AdminExists(ctx); err != nil {
		return sum, err
	} else if !ok {
		sum.Notes = append(sum.Notes, "no admin was imported: the next user to register becomes admin")
	}

	c = Count{Table: TableProviders, Read: len(providerRows)}
	for _, p := range providerRows {
		_, err := dst.Providers.Create(ctx, ImportedBy, p.in)
		tally(&c, &sum, fmt.Sprintf("ai_properties id %d (%s)", p.id, *p.in.AIName), err)
		if isFatal(err) {
			return sum, err
		}
		step()
	}
	sum.Counts = append(sum.Counts, c)

	c = Count{Table: TableAgents, Read: len(agentRows)}
	for _, a := range agentRows {
		err := importAgent(ctx, dst, a)
		tally(&c, &sum, fmt.Sprintf("agent_properties id %d (%s)", a.id, a.name), err)
		if isFatal(err) {
			return sum, err
		}
		step()
	}
	sum.Counts = append(sum.Counts, c)
	return sum, nil
}

// tally counts the outcome of one row.
func tally(c *Count, sum *Summary, what string, err error) {
	switch {
	case err == nil:
		c.Imported++
	case apperr.Is(err, apperr.KindConflict):
		c.Skipped++
	case isFatal(err):
	default:
		c.Failed++
		sum.Problems = append(sum.Problems, what+": "+err.Error())
	}
}

// isFatal reports an error that is not about the row: the database.
func isFatal(err error) bool {
	if err == nil {
		return false
	}
	var ae *apperr.Error
	return !errors.As(err, &ae) || ae.Kind == apperr.KindInternal || ae.Kind == apperr.KindUnavailable
}

// importAgent keeps an original agent (a XingChen workflow) as an agent of
// the same name on the default provider, and its workflow credentials in a
// disabled provider configuration "xingchen-<name>": the workflow API is
// not a chat completions API, so the configuration cannot serve chats, but
// nothing of the original is lost.
func importAgent(ctx context.Context, dst Targets, a agentRow) error {
	name := strings.TrimSpace(a.name)
	if name == "" {
		return apperr.Invalid("agent_name is empty")
	}
	if utf8.RuneCountInString(name) > agent.MaxNameChars {
		return apperr.Invalid("agent_name must be at most %d characters here", agent.MaxNameChars)
	}
	desc := "Imported from AI-Meeting, where it ran the XingChen workflow " + a.flowID + "."
	prompt := "You are " + name + ", an assistant. Answer accurately and concisely, in the language of the user."
	if _, err := dst.Agents.Create(ctx, ImportedBy, agent.Input{AgentName: &name, Description: &desc,
		SystemPrompt: &prompt, TagCodes: &[]int{99}}); err != nil {
		return err
	}
	if a.key == "" && a.secret == "" && a.flowID == "" {
		return nil
	}
	cfgName := truncateRunes("xingchen-"+name, 64)
	typ, url, model, off := "other", XingChenURL, a.flowID, false
	if model == "" {
		model = "workflow"
	}
	_, err := dst.Providers.Create(ctx, ImportedBy, aiconfig.Input{AIName: &cfgName, AIType: &typ, APIKey: &a.key,
		APISecret: &a.secret, APIURL: &url, ModelName: &model, IsEnabled: &off})
	if apperr.Is(err, apperr.KindConflict) {
		return nil // imported before, with the agent
	}
	return err
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// typeAliases maps the vendor names the original's ai_type may hold to the
// types here; a name that is neither becomes "other".
var typeAliases = map[string]string{
	"dashscope": "qwen", "tongyi": "qwen", "qianwen": "qwen", "aliyun": "qwen",
	"glm": "zhipu", "chatglm": "zhipu", "bigmodel": "zhipu",
	"kimi":   "moonshot",
	"xunfei": "spark", "iflytek": "spark", "xinghuo": "spark",
	"volcengine": "doubao", "ark": "doubao",
}

// MapType returns the type here of the original's ai_type.
func MapType(original string) string {
	t := strings.ToLower(strings.TrimSpace(original))
	for _, known := range aiconfig.Types {
		if t == known {
			return t
		}
	}
	if a, ok := typeAliases[t]; ok {
		return a
	}
	return "other"
}
