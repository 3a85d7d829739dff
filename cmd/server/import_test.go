package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// MustOriginalDB creates a MariaDB database with the original's tables
// (testdata/original_schema.sql) and rows, and returns its DSN.
func MustOriginalDB(t *testing.T, rows ...string) string {
	t.Helper()
	dsn := testenv.MySQL(t)
	src, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ddl, err := os.ReadFile("testdata/original_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	// Drop the comments, then split on the semicolons that end lines.
	text := regexp.MustCompile(`(?m)^--.*$`).ReplaceAllString(string(ddl), "")
	for _, stmt := range append(strings.Split(text, ";\n"), rows...) {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := src.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return dsn
}

// importCmd runs `aimeeting import` against the database dst.
func importCmd(t *testing.T, dst string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(servertest.Binary(t), append([]string{"import"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "AUTH_BCRYPT_COST=4",
		"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + dst}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// countLine matches a summary line: table read imported skipped failed.
func countLine(t *testing.T, summary, table string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + table + `\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("no %s line in the summary:\n%s", table, summary)
	}
	return strings.Join(m[1:], " ")
}

func TestImportFromOriginal(t *testing.T) {
	src := MustOriginalDB(t,
		`INSERT INTO t_user (id, username, password, real_name, phone, mail, create_time, del_flag) VALUES
		 (1, 'lihua', 'plain-pass-1', '李华', '13800001111', 'lihua@example.com', NOW(), 0),
		 (2, 'wangwei', '123456', 'Wang Wei', 'not a phone!', 'bad-mail', NOW(), NULL),
		 (3, 'gone', 'x', NULL, NULL, NULL, NOW(), 1),
		 (4, 'has space', 'pw', NULL, NULL, NULL, NOW(), 0)`,
		`INSERT INTO admin_permission (user_id, username, is_admin, del_flag) VALUES (1, 'lihua', 1, 0)`,
		`INSERT INTO ai_properties (id, ai_name, ai_type, api_key, api_secret, api_url, model_name, max_tokens,
		  temperature, system_prompt, is_enabled, del_flag, project_id, organization_id) VALUES
		 (1, 'openai-main', 'OpenAI', 'sk-orig-key', 'orig-secret', NULL, 'gpt-4o-mini', 2048, 0.70, 'Be kind.', 1, 0, 'proj_x', 'org_y'),
		 (2, 'tongyi', 'dashscope', 'sk-qwen', NULL, '', 'qwen-plus', 4096, 0.50, NULL, 0, 0, NULL, NULL),
		 (3, 'mystery', 'acme', 'k', NULL, NULL, 'm', 4096, 0.70, NULL, 1, 0, NULL, NULL),
		 (4, 'deleted', 'openai', 'k', NULL, NULL, 'm', 4096, 0.70, NULL, 1, 1, NULL, NULL)`,
		`INSERT INTO agent_properties (id, agent_name, api_secret, api_key, api_flow_id, del_flag) VALUES
		 (1, 'resume-helper', 'xc-secret', 'xc-key', '7300000000000000001', 0),
		 (2, 'old-agent', 's', 'k', 'f', 1)`)
	dst := testenv.MySQL(t)

	stdout, stderr, err := importCmd(t, dst, "--from-mysql", src)
	if err != nil {
		t.Fatalf("import: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr, "importing [") || !strings.Contains(stderr, "] 7/7") {
		t.Errorf("no progress bar on stderr: %q", stderr)
	}
	// read imported skipped failed
	for table, want := range map[string]string{"t_user": "3 2 0 1", "ai_properties": "3 2 0 1", "agent_properties": "1 1 0 0"} {
		if got := countLine(t, stdout, table); got != want {
			t.Errorf("%s: %s, want %s\n%s", table, got, want, stdout)
		}
	}
	for _, want := range []string{"has space", "wangwei): imported without phone, mail", "mystery", "apiUrl is required"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, "sk-orig-key") || strings.Contains(stdout+stderr, "orig-secret") {
		t.Errorf("the import printed a secret")
	}

	// Twice: nothing new, everything skipped.
	stdout, _, err = importCmd(t, dst, "--from-mysql", src)
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, stdout)
	}
	for table, want := range map[string]string{"t_user": "3 0 2 1", "ai_properties": "3 0 2 1", "agent_properties": "1 0 1 0"} {
		if got := countLine(t, stdout, table); got != want {
			t.Errorf("second run %s: %s, want %s\n%s", table, got, want, stdout)
		}
	}

	// The imported data in the running server.
	srv := servertest.Start(t, "", "DATABASE_DRIVER=mysql", "DATABASE_DSN="+dst)
	var l struct {
		Token              string
		IsAdmin            bool
		MustChangePassword bool
	}
	r := servertest.Do(t, "POST", srv.URL+api+"/users/login", "", map[string]string{"username": "lihua", "password": "plain-pass-1"})
	r.Decode(t, &l)
	if r.Status != 200 || !l.IsAdmin || !l.MustChangePassword {
		t.Fatalf("imported admin login: %s", r.Raw)
	}
	var users struct{ Total int }
	servertest.Do(t, "GET", srv.URL+api+"/users/page", l.Token, nil).Decode(t, &users)
	if users.Total != 2 {
		t.Errorf("%d users after two imports, want 2", users.Total)
	}
	r = servertest.Do(t, "PUT", srv.URL+api+"/users", l.Token, map[string]string{"password": "a-new-password"})
	var me struct{ MustChangePassword bool }
	r.Decode(t, &me)
	if r.Status != 200 || me.MustChangePassword {
		t.Fatalf("after changing the password: %s", r.Raw)
	}
	// Registering no longer makes anyone admin: the import made one.
	reg := MustRegisterLogin(t, srv.URL, "newcomer")
	if reg.IsAdmin {
		t.Error("a user registered after the import became admin")
	}
	// A short original password still logs in, flagged.
	r = servertest.Do(t, "POST", srv.URL+api+"/users/login", "", map[string]string{"username": "wangwei", "password": "123456"})
	r.Decode(t, &l)
	if r.Status != 200 || l.IsAdmin || !l.MustChangePassword {
		t.Fatalf("imported user login: %s", r.Raw)
	}

	var props struct {
		Records []struct {
			AIName, AIType, APIKey, APISecret, ProjectID, OrganizationID string
			IsEnabled                                                    bool
		}
	}
	r = servertest.Do(t, "GET", srv.URL+api+"/ai-properties?pageSize=50", l.Token, nil)
	r.Decode(t, &props)
	got := map[string]string{}
	for _, p := range props.Records {
		got[p.AIName] = strings.Join([]string{p.AIType, p.APIKey, p.APISecret, p.ProjectID, p.OrganizationID,
			map[bool]string{true: "on", false: "off"}[p.IsEnabled]}, "|")
	}
	want := map[string]string{
		"openai-main":            "openai|******|******|proj_x|org_y|on",
		"tongyi":                 "qwen|******||||off",
		"xingchen-resume-helper": "other|******|******|||off",
	}
	if len(got) != len(want) {
		t.Errorf("provider configurations = %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %q, want %q", name, got[name], w)
		}
	}
	var ag struct{ AgentName, Description, AIID string }
	r = servertest.Do(t, "GET", srv.URL+api+"/agent-properties/byName?name=resume-helper", l.Token, nil)
	r.Decode(t, &ag)
	if r.Status != 200 || ag.AIID != "" || !strings.Contains(ag.Description, "7300000000000000001") {
		t.Errorf("imported agent: %s", r.Raw)
	}
}

func TestImportNeedsADSN(t *testing.T) {
	for _, args := range [][]string{nil, {"--from-mysql", "root@tcp(127.0.0.1:3306)/"}} {
		_, stderr, err := importCmd(t, "root@tcp(127.0.0.1:1)/x", args...)
		if err == nil || !strings.Contains(stderr, "from-mysql") {
			t.Errorf("import %v: err %v, stderr %q", args, err, stderr)
		}
	}
}
