package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/users"
)

// columns returns the columns of table in src's current database, lower
// case; none when the table does not exist.
func columns(ctx context.Context, src *sql.DB, table string) (map[string]bool, error) {
	rows, err := src.QueryContext(ctx, "SELECT LOWER(column_name) FROM information_schema.columns "+
		"WHERE table_schema = DATABASE() AND table_name = ?", table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		out[c] = true
	}
	return out, rows.Err()
}

// selectList names the wanted columns, NULL for the absent optional ones
// (added by later versions of the original).
func selectList(have map[string]bool, wanted ...string) string {
	parts := make([]string, len(wanted))
	for i, c := range wanted {
		if have[c] {
			parts[i] = "`" + c + "`"
		} else {
			parts[i] = "NULL"
		}
	}
	return strings.Join(parts, ", ")
}

// live filters out the rows the original deleted logically; its del_flag
// is nullable (t_user, agent_properties) and NULL means live.
func live(have map[string]bool) string {
	if have["del_flag"] {
		return " WHERE COALESCE(del_flag, 0) = 0"
	}
	return ""
}

func str(s sql.NullString) string { return strings.TrimSpace(s.String) }

type userRow struct {
	id int64
	in users.ImportInput
}

// readUsers reads the live t_user rows, each flagged admin when
// admin_permission (looked up by username, as the original did) says so.
func readUsers(ctx context.Context, src *sql.DB, sum *Summary) ([]userRow, error) {
	have, err := columns(ctx, src, TableUsers)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		sum.Notes = append(sum.Notes, "table t_user not found: no users imported")
		return nil, nil
	}
	admins, err := readAdmins(ctx, src, sum)
	if err != nil {
		return nil, err
	}
	rows, err := src.QueryContext(ctx, "SELECT id, "+selectList(have, "username", "password", "real_name", "phone", "mail")+
		" FROM t_user"+live(have)+" ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("read t_user: %w", err)
	}
	defer rows.Close()
	var out []userRow
	for rows.Next() {
		var r userRow
		var name, pw, real, phone, mail sql.NullString
		if err := rows.Scan(&r.id, &name, &pw, &real, &phone, &mail); err != nil {
			return nil, fmt.Errorf("read t_user: %w", err)
		}
		// The password is taken as stored: a plain-text password may
		// legitimately start or end with a space.
		r.in = users.ImportInput{Username: str(name), Password: pw.String, RealName: str(real), Phone: str(phone),
			Mail: str(mail), Admin: admins[str(name)]}
		out = append(out, r)
	}
	return out, rows.Err()
}

// readAdmins returns the usernames admin_permission marks admin; none when
// the table does not exist.
func readAdmins(ctx context.Context, src *sql.DB, sum *Summary) (map[string]bool, error) {
	have, err := columns(ctx, src, "admin_permission")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if len(have) == 0 || !have["username"] || !have["is_admin"] {
		sum.Notes = append(sum.Notes, "table admin_permission not found: nobody imported as admin")
		return out, nil
	}
	where := " WHERE is_admin = 1"
	if have["del_flag"] {
		where += " AND COALESCE(del_flag, 0) = 0"
	}
	rows, err := src.QueryContext(ctx, "SELECT username FROM admin_permission"+where)
	if err != nil {
		return nil, fmt.Errorf("read admin_permission: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read admin_permission: %w", err)
		}
		out[str(name)] = true
	}
	return out, rows.Err()
}

type providerRow struct {
	id int64
	in aiconfig.Input
}

// readProviders reads the live ai_properties rows as configurations here:
// the type mapped (MapType), the original's temperature and system prompt
// kept, project_id and organization_id when the columns exist.
func readProviders(ctx context.Context, src *sql.DB, sum *Summary) ([]providerRow, error) {
	have, err := columns(ctx, src, TableProviders)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		sum.Notes = append(sum.Notes, "table ai_properties not found: no provider configurations imported")
		return nil, nil
	}
	rows, err := src.QueryContext(ctx, "SELECT id, "+selectList(have, "ai_name", "ai_type", "api_key", "api_secret",
		"api_url", "model_name", "max_tokens", "temperature", "system_prompt", "is_enabled", "project_id",
		"organization_id")+" FROM ai_properties"+live(have)+" ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("read ai_properties: %w", err)
	}
	defer rows.Close()
	var out []providerRow
	for rows.Next() {
		var r providerRow
		var name, typ, key, secret, url, model, prompt, project, org sql.NullString
		var maxTokens sql.NullInt64
		var temp sql.NullFloat64
		var enabled sql.NullBool
		if err := rows.Scan(&r.id, &name, &typ, &key, &secret, &url, &model, &maxTokens, &temp, &prompt, &enabled,
			&project, &org); err != nil {
			return nil, fmt.Errorf("read ai_properties: %w", err)
		}
		s := func(v sql.NullString) *string { x := str(v); return &x }
		t := MapType(typ.String)
		in := aiconfig.Input{AIName: s(name), AIType: &t, APIKey: s(key), APISecret: s(secret), APIURL: s(url),
			ModelName: s(model), SystemPrompt: s(prompt), ProjectID: s(project), OrganizationID: s(org)}
		if maxTokens.Valid {
			n := int(maxTokens.Int64)
			in.MaxTokens = &n
		}
		if temp.Valid {
			in.Temperature = &temp.Float64
		}
		on := !enabled.Valid || enabled.Bool
		in.IsEnabled = &on
		r.in = in
		out = append(out, r)
	}
	return out, rows.Err()
}

type agentRow struct {
	id                        int64
	name, key, secret, flowID string
}

// readAgents reads the live agent_properties rows.
func readAgents(ctx context.Context, src *sql.DB, sum *Summary) ([]agentRow, error) {
	have, err := columns(ctx, src, TableAgents)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		sum.Notes = append(sum.Notes, "table agent_properties not found: no agents imported")
		return nil, nil
	}
	rows, err := src.QueryContext(ctx, "SELECT id, "+selectList(have, "agent_name", "api_key", "api_secret", "api_flow_id")+
		" FROM agent_properties"+live(have)+" ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("read agent_properties: %w", err)
	}
	defer rows.Close()
	var out []agentRow
	for rows.Next() {
		var r agentRow
		var name, key, secret, flow sql.NullString
		if err := rows.Scan(&r.id, &name, &key, &secret, &flow); err != nil {
			return nil, fmt.Errorf("read agent_properties: %w", err)
		}
		r.name, r.key, r.secret, r.flowID = str(name), str(key), str(secret), str(flow)
		out = append(out, r)
	}
	return out, rows.Err()
}
