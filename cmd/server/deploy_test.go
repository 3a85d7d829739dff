package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/xunzhi-ai/aimeeting"
)

// The deployment files live at the repository root, two levels up.
const repoRoot = "../.."

// compose is the part of docker-compose.yml these tests read.
type compose struct {
	Services map[string]struct {
		Image       string         `yaml:"image"`
		Build       any            `yaml:"build"`
		Environment any            `yaml:"environment"` // a map or a list of KEY=VALUE
		Volumes     []string       `yaml:"volumes"`
		DependsOn   map[string]any `yaml:"depends_on"`
		Healthcheck map[string]any `yaml:"healthcheck"`
		Networks    any            `yaml:"networks"`
	} `yaml:"services"`
}

func mustRead(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustCompose(tb testing.TB) compose {
	tb.Helper()
	var c compose
	if err := yaml.Unmarshal(mustRead(tb, "docker-compose.yml"), &c); err != nil {
		tb.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// appServices are the services running our image.
func appServices(tb testing.TB, c compose) []string {
	tb.Helper()
	var names []string
	for name, s := range c.Services {
		if s.Build != nil || strings.HasPrefix(s.Image, "aimeeting") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) < 2 {
		tb.Fatalf("app services %v: want at least two replicas", names)
	}
	return names
}

// envNames lists the variables a service sets, from either compose syntax.
func envNames(tb testing.TB, env any) []string {
	tb.Helper()
	var names []string
	switch e := env.(type) {
	case map[string]any:
		for k := range e {
			names = append(names, k)
		}
	case []any:
		for _, kv := range e {
			k, _, _ := strings.Cut(kv.(string), "=")
			names = append(names, k)
		}
	case nil:
	default:
		tb.Fatalf("environment is a %T", env)
	}
	slices.Sort(names)
	return names
}

func TestComposeAppEnvironmentIsConfiguration(t *testing.T) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(aimeeting.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, key := range v.AllKeys() {
		known[EnvName(key)] = true
	}
	c := mustCompose(t)
	for _, name := range appServices(t, c) {
		env := envNames(t, c.Services[name].Environment)
		for _, k := range env {
			// AWS_* are the object store's credentials, read by the AWS SDK.
			if !known[k] && !strings.HasPrefix(k, "AWS_") {
				t.Errorf("service %s sets %s, which is not a configuration key of application.yaml", name, k)
			}
		}
		for _, want := range []string{"DATABASE_DRIVER", "DATABASE_DSN", "REDIS_ADDRS", "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE", "DATA_DIR",
			"STORAGE_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			if !slices.Contains(env, want) {
				t.Errorf("service %s does not set %s", name, want)
			}
		}
		// Share nothing but MySQL, Redis and the object store: no volume.
		if len(c.Services[name].Volumes) != 0 {
			t.Errorf("service %s volumes %v: the replicas share no volume (files live in the object store)", name, c.Services[name].Volumes)
		}
		if _, ok := c.Services[name].DependsOn["minio-bucket"]; !ok {
			t.Errorf("service %s does not wait for the object store's bucket", name)
		}
	}
}

// The replicas believe X-Forwarded-For from nginx only: compose gives nginx
// a fixed address and the replicas trust exactly it; scripts/cluster.sh,
// whose nginx runs on loopback, trusts 127.0.0.1.
func TestTrustedProxyIsNginx(t *testing.T) {
	c := mustCompose(t)
	nets, _ := c.Services["nginx"].Networks.(map[string]any)
	def, _ := nets["default"].(map[string]any)
	addr, _ := def["ipv4_address"].(string)
	if addr == "" {
		t.Fatalf("nginx networks %v: want a fixed default ipv4_address", c.Services["nginx"].Networks)
	}
	for _, name := range appServices(t, c) {
		env, _ := c.Services[name].Environment.(map[string]any)
		if got, _ := env["SERVER_TRUSTED_PROXIES"].(string); got != addr {
			t.Errorf("service %s SERVER_TRUSTED_PROXIES = %q, want nginx's %s", name, got, addr)
		}
	}
	if script := string(mustRead(t, "scripts/cluster.sh")); !strings.Contains(script, "SERVER_TRUSTED_PROXIES=127.0.0.1") {
		t.Errorf("scripts/cluster.sh does not trust its loopback nginx (SERVER_TRUSTED_PROXIES=127.0.0.1)")
	}
}

func TestComposeDependsOnHealthyServices(t *testing.T) {
	c := mustCompose(t)
	for name, s := range c.Services {
		if s.Healthcheck == nil {
			t.Errorf("service %s has no healthcheck", name)
		}
		for dep, cond := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("service %s depends on unknown %s", name, dep)
			}
			if m, _ := cond.(map[string]any); m["condition"] != "service_healthy" {
				t.Errorf("service %s depends on %s without condition: service_healthy", name, dep)
			}
		}
	}
}

func TestDeployFilesExist(t *testing.T) {
	c := mustCompose(t)
	for name, s := range c.Services {
		for _, vol := range s.Volumes {
			src, _, _ := strings.Cut(vol, ":")
			if strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../") {
				if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
					t.Errorf("service %s mounts %s: %v", name, src, err)
				}
			}
		}
		if ctx, ok := s.Build.(string); ok {
			if _, err := os.Stat(filepath.Join(repoRoot, ctx, "Dockerfile")); err != nil {
				t.Errorf("service %s builds %s: %v", name, ctx, err)
			}
		}
	}
	// Every COPY source of the Dockerfile (except from another stage).
	for _, ins := range dockerfile(t) {
		if ins.cmd != "COPY" || slices.ContainsFunc(ins.args, func(a string) bool { return strings.HasPrefix(a, "--from") }) {
			continue
		}
		var srcs []string
		for _, a := range ins.args {
			if !strings.HasPrefix(a, "--") {
				srcs = append(srcs, a)
			}
		}
		for _, src := range srcs[:len(srcs)-1] {
			if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
				t.Errorf("Dockerfile COPY %s: %v", src, err)
			}
		}
	}
}

type instruction struct {
	cmd  string
	args []string
	line string
}

// dockerfile returns the instructions, continuation lines joined.
func dockerfile(tb testing.TB) []instruction {
	tb.Helper()
	var out []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(mustRead(tb, "Dockerfile")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		f := strings.Fields(cur.String())
		out = append(out, instruction{cmd: strings.ToUpper(f[0]), args: f[1:], line: cur.String()})
		cur.Reset()
	}
	return out
}

func TestDockerfileRunsAsNonRootWithHealthcheck(t *testing.T) {
	ins := dockerfile(t)
	// Only the last stage (the runtime image) matters.
	last := 0
	for i, in := range ins {
		if in.cmd == "FROM" {
			last = i
		}
	}
	runtime := ins[last:]
	find := func(cmd string) *instruction {
		for i := len(runtime) - 1; i >= 0; i-- {
			if runtime[i].cmd == cmd {
				return &runtime[i]
			}
		}
		return nil
	}
	if u := find("USER"); u == nil || u.args[0] == "root" || u.args[0] == "0" || strings.HasPrefix(u.args[0], "0:") {
		t.Errorf("runtime stage USER = %+v, want a non-root user", u)
	}
	if e := find("EXPOSE"); e == nil || !slices.Contains(e.args, "8080") {
		t.Errorf("runtime stage EXPOSE = %+v, want 8080", e)
	}
	hc := find("HEALTHCHECK")
	if hc == nil {
		t.Fatal("runtime stage has no HEALTHCHECK")
	}
	if !strings.Contains(hc.line, "--healthcheck") || !strings.Contains(hc.line, "/healthz") {
		t.Fatalf("HEALTHCHECK %q: want the binary's --healthcheck on /healthz", hc.line)
	}
	if v := find("VOLUME"); v == nil || !strings.Contains(v.line, "/data") {
		t.Errorf("runtime stage VOLUME = %+v, want /data", v)
	}
}

func TestHealthcheckFlag(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer ok.Close()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"--healthcheck", ok.URL + "/healthz"}, nil, &out, &errOut); err != nil {
		t.Fatalf("healthy: %v", err)
	}
	if err := run(context.Background(), []string{"--healthcheck", ok.URL + "/missing"}, nil, &out, &errOut); err == nil {
		t.Fatal("a 404 passed the health check")
	}
}

var upstreamServer = regexp.MustCompile(`(?m)^(\s*server\s+)([\w.-]+):(\d+)`)

func TestNginxConfig(t *testing.T) {
	conf := string(mustRead(t, "deploy/nginx.conf"))
	for _, want := range []string{
		"proxy_http_version 1.1",
		"proxy_set_header Upgrade $http_upgrade",
		"proxy_set_header Connection $connection_upgrade",
		"proxy_buffering off",
		"proxy_read_timeout",
		"location = /healthz",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("deploy/nginx.conf lacks %q", want)
		}
	}
	// The upstream names exactly the compose replicas.
	var hosts []string
	for _, m := range upstreamServer.FindAllStringSubmatch(conf, -1) {
		hosts = append(hosts, m[2])
	}
	slices.Sort(hosts)
	if want := appServices(t, mustCompose(t)); !slices.Equal(hosts, want) {
		t.Errorf("nginx upstream servers %v, compose app services %v", hosts, want)
	}

	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nginx is not installed (apt-get install nginx-light)")
		}
		t.Skip("nginx not installed: skipping nginx -t (apt-get install nginx-light)")
	}
	dir := t.TempDir()
	local := upstreamServer.ReplaceAllString(conf, "${1}127.0.0.1:$3")
	local = strings.ReplaceAll(local, "pid /tmp/nginx.pid;", "pid "+filepath.Join(dir, "nginx.pid")+";")
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nginx, "-t", "-q", "-p", dir, "-e", "stderr", "-c", path).CombinedOutput()
	if err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
}
