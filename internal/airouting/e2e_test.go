package airouting_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/airouting"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// The tests in this file run the real server binary against two fake
// OpenAI-compatible servers, A and B, that count the calls they get: the
// interview stages are played by interviewtest.Model, and a stage's reply
// can be replaced (an error status, a delay) per server.

const api = "/api/xunzhi/v1"

// fake is one fake model server.
type fake struct {
	*llmtest.Server
	name  string
	model *interviewtest.Model

	mu       sync.Mutex // protects override
	override map[string]llmtest.Reply
}

func newFake(t *testing.T, name string, latency func(stage string) time.Duration) *fake {
	f := &fake{name: name, model: &interviewtest.Model{Latency: latency}, override: map[string]llmtest.Reply{}}
	f.Server = llmtest.NewServer(t, llmtest.WithResponder(f.reply))
	return f
}

func (f *fake) reply(req llmtest.RecordedRequest) llmtest.Reply {
	f.mu.Lock()
	r, ok := f.override[req.Stage()]
	f.mu.Unlock()
	switch {
	case ok && r.Status != 0:
		return r
	case ok: // a delay on the normal answer
		normal := f.model.Reply(req)
		normal.Delay = r.Delay
		return normal
	case req.Stage() == airouting.StageChat:
		return llmtest.Reply{Chunks: []string{"hello from " + f.name}, PromptTokens: 7, CompletionTokens: 3}
	}
	return f.model.Reply(req)
}

// set replaces the replies of stage (nil: the normal ones again).
func (f *fake) set(stage string, r *llmtest.Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r == nil {
		delete(f.override, stage)
		return
	}
	f.override[stage] = *r
}

// client is a logged-in user of one server.
type client struct {
	t     *testing.T
	base  string
	token string
}

func mustLogin(t *testing.T, base, name string) *client {
	t.Helper()
	r := servertest.Do(t, "POST", base+api+"/users/register", "", map[string]string{"username": name, "password": "password-" + name})
	if r.Status != 200 && r.Status != 409 {
		t.Fatalf("register: %s", r.Raw)
	}
	r = servertest.Do(t, "POST", base+api+"/users/login", "", map[string]string{"username": name, "password": "password-" + name})
	var l struct{ Token string }
	r.Decode(t, &l)
	if l.Token == "" {
		t.Fatalf("login: %s", r.Raw)
	}
	return &client{t: t, base: base, token: l.Token}
}

// on returns the same user talking to another server.
func (c *client) on(base string) *client { cc := *c; cc.base = base; return &cc }

func (c *client) do(method, path string, body any) servertest.Response {
	c.t.Helper()
	return servertest.Do(c.t, method, c.base+api+path, c.token, body)
}

func (c *client) must(method, path string, body any) servertest.Response {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.Status != 200 || r.Code != "0" {
		c.t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	return r
}

// property creates an ai-property on f and returns its id.
func (c *client) property(name string, f *fake, vision bool) string {
	c.t.Helper()
	r := c.must("POST", "/ai-properties", map[string]any{"aiName": name, "aiType": "openai", "apiKey": "sk-" + name,
		"apiUrl": f.URL(), "modelName": "model-" + name, "supportsVision": vision})
	var p struct{ ID string }
	r.Decode(c.t, &p)
	return p.ID
}

// route sets stage's route and fails the test unless it is accepted.
func (c *client) route(stage string, ids ...string) {
	c.t.Helper()
	if ids == nil {
		ids = []string{}
	}
	c.must("PUT", "/ai-routing", map[string]any{"routes": map[string]any{stage: map[string]any{"aiIds": ids}}})
}

const resume = "Jane Doe - Backend Engineer. Built Go services on MySQL and Redis.\n" +
	"Led a payment service handling 2000 requests per second. Education: BSc Computer Science.\n" +
	"Five years in a product team: owned features from design to release, wrote tests and runbooks, " +
	"and mentored two junior engineers.\n"

// session creates an interview session with questions and returns its id
// and current question number.
func (c *client) session() (string, string) {
	c.t.Helper()
	r := c.must("POST", "/interview/sessions", nil)
	var s struct{ SessionID string }
	r.Decode(c.t, &s)
	body, ctype := multipartFile("resumePdf", "resume.txt", resume)
	r = servertest.Send(c.t, c.request("POST", "/interview/sessions/"+s.SessionID+"/interview-questions", body, ctype))
	if r.Status != 200 {
		c.t.Fatalf("upload: %d %s", r.Status, r.Raw)
	}
	r = c.must("GET", "/interview/sessions/"+s.SessionID+"/current-question", nil)
	var cur interview.AnswerResp
	r.Decode(c.t, &cur)
	return s.SessionID, cur.QuestionNumber
}

func (c *client) answer(sid, no, text string) servertest.Response {
	c.t.Helper()
	return c.do("POST", "/interview/sessions/"+sid+"/interview/answer-json", map[string]string{"questionNumber": no, "answerContent": text})
}

// usage reads GET /ai-usage grouped by groupBy.
func (c *client) usage(groupBy string) airouting.UsageReport {
	c.t.Helper()
	r := c.must("GET", "/ai-usage?groupBy="+url.QueryEscape(groupBy), nil)
	var rep airouting.UsageReport
	r.Decode(c.t, &rep)
	return rep
}

// waitUsage polls GET /ai-usage (written in batches) until ok accepts the
// report, for up to 10 s, and returns the last report.
func (c *client) waitUsage(groupBy string, ok func(airouting.UsageReport) bool) airouting.UsageReport {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rep := c.usage(groupBy)
		if ok(rep) || time.Now().After(deadline) {
			return rep
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func row(rep airouting.UsageReport, key string) airouting.UsageRow {
	for _, r := range rep.Rows {
		if r.Key == key {
			return r
		}
	}
	return airouting.UsageRow{Key: key}
}

func wantStatus(t *testing.T, r servertest.Response, status int, contains ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	for _, s := range contains {
		if !strings.Contains(r.Message, s) {
			t.Fatalf("message %q does not name %q", r.Message, s)
		}
	}
}

func TestRoutingEndToEnd(t *testing.T) {
	a, b := newFake(t, "a", nil), newFake(t, "b", nil)
	// A is also the default provider. The evaluation's timeout is short so
	// that a slow model falls back quickly.
	srv := servertest.Start(t, "", "AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+a.URL(), "AI_OPENAI_API_KEY=sk-test",
		"AI_OPENAI_MODEL=model-default", "XUNZHI_AGENT_AI_GUARD_STAGES_INTERVIEW_EVALUATION_TIMEOUT=1500ms")
	admin := mustLogin(t, srv.URL, "admin") // the first user is admin
	user := mustLogin(t, srv.URL, "bob")
	idA, idB := admin.property("a", a, false), admin.property("b", b, false)
	idV := admin.property("vision", b, true)
	idOff := admin.property("off", b, false)
	admin.must("PUT", "/ai-properties/"+idOff+"/status?isEnabled=false", nil)

	t.Run("errors", func(t *testing.T) {
		put := func(c *client, stage string, ids ...string) servertest.Response {
			return c.do("PUT", "/ai-routing", map[string]any{"routes": map[string]any{stage: map[string]any{"aiIds": ids}}})
		}
		wantStatus(t, put(admin, airouting.StageEvaluation, "no-such-id"), 400, "no-such-id")
		wantStatus(t, put(user, airouting.StageEvaluation, idB), 403)
		wantStatus(t, user.do("GET", "/ai-usage", nil), 403)
		wantStatus(t, put(admin, airouting.StageEvaluation, idOff), 400, idOff, "disabled")
		wantStatus(t, put(admin, airouting.StageDemeanor, idA), 400, "vision")
		wantStatus(t, put(admin, "no-such-stage", idA), 400, "no-such-stage")
		wantStatus(t, admin.do("GET", "/ai-usage?groupBy=week", nil), 400, "groupBy")
		admin.route(airouting.StageDemeanor, idV)
		admin.route(airouting.StageDemeanor)
	})

	t.Run("evaluation routed to B serves from B", func(t *testing.T) {
		admin.route(airouting.StageEvaluation, idB)
		var got struct {
			Routes airouting.Routes `json:"routes"`
		}
		admin.must("GET", "/ai-routing", nil).Decode(t, &got)
		if ids := got.Routes[airouting.StageEvaluation].AIIDs; len(ids) != 1 || ids[0] != idB {
			t.Fatalf("GET routes = %+v", got.Routes)
		}
		if ids := got.Routes[airouting.StageChat].AIIDs; ids == nil || len(ids) != 0 {
			t.Fatalf("an unrouted stage is %v, want []", ids)
		}
		beforeA, beforeB := a.CallsOf(airouting.StageEvaluation), b.CallsOf(airouting.StageEvaluation)
		sid, no := user.session()
		if r := user.answer(sid, no, "My answer about Go services"); r.Status != 200 {
			t.Fatalf("answer: %s", r.Raw)
		}
		if gotA, gotB := a.CallsOf(airouting.StageEvaluation)-beforeA, b.CallsOf(airouting.StageEvaluation)-beforeB; gotA != 0 || gotB != 1 {
			t.Fatalf("evaluations: A %d, B %d; want 0 and 1", gotA, gotB)
		}
	})

	t.Run("A answering 503 falls back to B", func(t *testing.T) {
		admin.route(airouting.StageEvaluation, idA, idB)
		a.set(airouting.StageEvaluation, &llmtest.Reply{Status: 503})
		defer a.set(airouting.StageEvaluation, nil)
		beforeA, beforeB := a.CallsOf(airouting.StageEvaluation), b.CallsOf(airouting.StageEvaluation)
		sid, no := user.session()
		if r := user.answer(sid, no, "My answer about Redis"); r.Status != 200 {
			t.Fatalf("answer: %s", r.Raw)
		}
		// A is tried twice (the stage retries once), then B serves.
		if gotA, gotB := a.CallsOf(airouting.StageEvaluation)-beforeA, b.CallsOf(airouting.StageEvaluation)-beforeB; gotA != 2 || gotB != 1 {
			t.Fatalf("evaluations: A %d, B %d; want 2 and 1", gotA, gotB)
		}
		rep := admin.waitUsage(airouting.GroupByStage, func(r airouting.UsageReport) bool {
			return row(r, airouting.StageEvaluation).Fallbacks == 1
		})
		if ev := row(rep, airouting.StageEvaluation); ev.Fallbacks != 1 {
			t.Fatalf("evaluation usage %+v, want 1 fallback", ev)
		}
	})

	t.Run("A answering 400 does not fall back", func(t *testing.T) {
		admin.route(airouting.StageEvaluation, idA, idB)
		a.set(airouting.StageEvaluation, &llmtest.Reply{Status: 400})
		defer a.set(airouting.StageEvaluation, nil)
		beforeA, beforeB := a.CallsOf(airouting.StageEvaluation), b.CallsOf(airouting.StageEvaluation)
		sid, no := user.session()
		if r := user.answer(sid, no, "My answer about MySQL"); r.Status < 500 {
			t.Fatalf("answer: %d %s, want a model error", r.Status, r.Raw)
		}
		if gotA, gotB := a.CallsOf(airouting.StageEvaluation)-beforeA, b.CallsOf(airouting.StageEvaluation)-beforeB; gotA != 1 || gotB != 0 {
			t.Fatalf("evaluations: A %d, B %d; want 1 and 0", gotA, gotB)
		}
	})

	t.Run("A slower than the stage timeout falls back", func(t *testing.T) {
		admin.route(airouting.StageEvaluation, idA, idB)
		a.set(airouting.StageEvaluation, &llmtest.Reply{Delay: 5 * time.Second})
		defer a.set(airouting.StageEvaluation, nil)
		beforeB := b.CallsOf(airouting.StageEvaluation)
		sid, no := user.session()
		start := time.Now()
		if r := user.answer(sid, no, "My answer about payments"); r.Status != 200 {
			t.Fatalf("answer: %s", r.Raw)
		}
		if got := b.CallsOf(airouting.StageEvaluation) - beforeB; got != 1 {
			t.Fatalf("B evaluations %d, want 1", got)
		}
		d := time.Since(start)
		if d > 5*time.Second {
			t.Fatalf("answer took %s: the timeout did not cut A", d)
		}
		t.Logf("A slower than the 1.5 s stage timeout: answered by B after %s", d.Round(time.Millisecond))
	})

	t.Run("a routed model cannot be deleted or disabled", func(t *testing.T) {
		admin.route(airouting.StageFollowUp, idB)
		wantStatus(t, admin.do("DELETE", "/ai-properties/"+idB, nil), 409, airouting.StageEvaluation, airouting.StageFollowUp)
		wantStatus(t, admin.do("PUT", "/ai-properties/"+idB+"/status?isEnabled=false", nil), 409, airouting.StageFollowUp)
		admin.route(airouting.StageFollowUp)
	})

	t.Run("a chat naming no model uses the chat route", func(t *testing.T) {
		admin.route(airouting.StageChat, idB)
		r := user.must("POST", "/ai/conversations", map[string]any{})
		var conv struct{ SessionID string }
		r.Decode(t, &conv)
		before := b.CallsOf(airouting.StageChat)
		req := user.request("POST", "/ai/sessions/"+conv.SessionID+"/chat", strings.NewReader(`{"inputMessage":"hello"}`), "application/json")
		body := readAll(t, req)
		if !strings.Contains(body, "hello from b") {
			t.Fatalf("chat answer %q, want B's", body)
		}
		if got := b.CallsOf(airouting.StageChat) - before; got != 1 {
			t.Fatalf("B chat calls %d, want 1", got)
		}

		// [A, B] with A down: B answers the chat.
		admin.route(airouting.StageChat, idA, idB)
		a.set(airouting.StageChat, &llmtest.Reply{Status: 503})
		defer a.set(airouting.StageChat, nil)
		beforeA, beforeB := a.CallsOf(airouting.StageChat), b.CallsOf(airouting.StageChat)
		req = user.request("POST", "/ai/sessions/"+conv.SessionID+"/chat", strings.NewReader(`{"inputMessage":"again"}`), "application/json")
		if body := readAll(t, req); !strings.Contains(body, "hello from b") {
			t.Fatalf("chat answer %q, want B's", body)
		}
		if gotA, gotB := a.CallsOf(airouting.StageChat)-beforeA, b.CallsOf(airouting.StageChat)-beforeB; gotA != 1 || gotB != 1 {
			t.Fatalf("chat calls: A %d, B %d; want 1 and 1", gotA, gotB)
		}
		rep := admin.waitUsage(airouting.GroupByStage, func(r airouting.UsageReport) bool {
			return row(r, airouting.StageChat).Fallbacks == 1
		})
		if got := row(rep, airouting.StageChat).Fallbacks; got != 1 {
			t.Fatalf("chat fallbacks %d, want 1", got)
		}
	})

	t.Run("usage totals match the servers' counts", func(t *testing.T) {
		want := int64(a.Calls() + b.Calls())
		rep := admin.waitUsage(airouting.GroupByStage, func(r airouting.UsageReport) bool { return r.Totals.Calls == want })
		if rep.Totals.Calls != want {
			t.Fatalf("usage calls %d, fake servers counted %d: %+v", rep.Totals.Calls, want, rep)
		}
		for _, stage := range []string{airouting.StageEvaluation, airouting.StageExtraction, airouting.StageProfile, airouting.StageChat} {
			if got, want := row(rep, stage).Calls, int64(a.CallsOf(stage)+b.CallsOf(stage)); got != want {
				t.Errorf("stage %s: %d calls recorded, servers counted %d", stage, got, want)
			}
		}
		if tot := rep.Totals; tot.PromptTokens <= 0 || tot.CompletionTokens <= 0 || tot.P95Ms < tot.P50Ms || tot.Failures < 4 {
			t.Fatalf("totals %+v", tot)
		}
		// Every model on B (its connection checks included) as B counted it.
		byModel := admin.usage(airouting.GroupByModel)
		for _, model := range []string{"model-b", "model-vision", "model-off"} {
			want := 0
			for _, r := range b.Requests() {
				if r.Model == model {
					want++
				}
			}
			if got := row(byModel, model).Calls; got != int64(want) {
				t.Errorf("%s: %d calls recorded, B counted %d", model, got, want)
			}
		}
		byDay := admin.usage(airouting.GroupByDay)
		if len(byDay.Rows) != 1 || byDay.Rows[0].Key != time.Now().UTC().Format(time.DateOnly) {
			t.Fatalf("by day %+v", byDay.Rows)
		}
		name := fmt.Sprintf(`aimeeting_ai_usage_calls_total{model="model-b",outcome="ok",stage=%q}`, airouting.StageEvaluation)
		if v, ok := servertest.Metric(t, srv.URL, name); !ok || v < 3 {
			t.Fatalf("%s = %v (%v), want at least 3", name, v, ok)
		}
		empty := admin.must("GET", "/ai-usage?from=2020-01-01&to=2020-01-31", nil)
		var none airouting.UsageReport
		empty.Decode(t, &none)
		if none.Totals.Calls != 0 || len(none.Rows) != 0 {
			t.Fatalf("January 2020: %+v", none)
		}
	})
}

// TestRoutingAcrossInstances runs three instances on one MariaDB and
// Redis: a route change on one applies on another within 2 s, and 30
// duplicate answers spread over the three cost one call of the routed
// model and record 29 saved calls.
func TestRoutingAcrossInstances(t *testing.T) {
	testenv.Redis(t)
	dsn := testenv.MySQL(t)
	slow := func(stage string) time.Duration {
		if stage == airouting.StageEvaluation {
			return 1500 * time.Millisecond
		}
		return 0
	}
	a, b := newFake(t, "a", nil), newFake(t, "b", slow)
	env := []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + a.URL(), "AI_OPENAI_API_KEY=sk-test", "AI_OPENAI_MODEL=model-default",
		"DATABASE_DRIVER=mysql", "DATABASE_DSN=" + dsn, "REDIS_ADDRS=" + testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=test:" + testenv.RandomSuffix(8) + ":", "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=distributed"}
	var servers []*servertest.Server
	for range 3 {
		servers = append(servers, servertest.Start(t, "", env...))
	}
	admin := mustLogin(t, servers[0].URL, "admin")
	idA, idB := admin.property("a", a, false), admin.property("b", b, false)
	user := mustLogin(t, servers[0].URL, "carol")
	second := user.on(servers[1].URL)

	// Instance 2 serves evaluations from A, and caches that route.
	admin.route(airouting.StageEvaluation, idA)
	sid, no := user.session()
	if r := second.answer(sid, no, "First answer"); r.Status != 200 {
		t.Fatalf("answer: %s", r.Raw)
	}
	if got := a.CallsOf(airouting.StageEvaluation); got != 1 {
		t.Fatalf("A evaluations %d, want 1", got)
	}

	// Changed on instance 1, used by instance 2 within 2 s.
	admin.route(airouting.StageEvaluation, idB)
	changed := time.Now()
	secondAdmin := admin.on(servers[1].URL)
	for {
		var got struct {
			Routes airouting.Routes `json:"routes"`
		}
		secondAdmin.must("GET", "/ai-routing", nil).Decode(t, &got)
		if ids := got.Routes[airouting.StageEvaluation].AIIDs; len(ids) == 1 && ids[0] == idB {
			break
		}
		if time.Since(changed) > 2*time.Second {
			t.Fatalf("instance 2 still routes to %v 2 s after the change", got.Routes[airouting.StageEvaluation])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(changed); d > 2*time.Second {
		t.Fatalf("the change took %s to reach instance 2", d)
	} else {
		t.Logf("route change on instance 1 seen by instance 2 after %s", d.Round(time.Millisecond))
	}
	sid2, no2 := user.session()
	if r := second.answer(sid2, no2, "Second answer"); r.Status != 200 {
		t.Fatalf("answer: %s", r.Raw)
	}
	if gotA, gotB := a.CallsOf(airouting.StageEvaluation), b.CallsOf(airouting.StageEvaluation); gotA != 1 || gotB != 1 {
		t.Fatalf("evaluations: A %d, B %d; want 1 and 1", gotA, gotB)
	}

	// 30 copies of one answer over the three instances.
	sid3, no3 := user.session()
	beforeB := b.CallsOf(airouting.StageEvaluation)
	const copies = 30
	raws := make([]string, copies)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := user.on(servers[i%3].URL).answer(sid3, no3, "The same answer")
			raws[i] = fmt.Sprintf("%d %s", r.Status, r.Data)
		}()
	}
	wg.Wait()
	for i := range copies {
		if !strings.HasPrefix(raws[i], "200 ") || raws[i] != raws[0] {
			t.Fatalf("copy %d: %s; copy 0: %s", i, raws[i], raws[0])
		}
	}
	if got := b.CallsOf(airouting.StageEvaluation) - beforeB; got != 1 {
		t.Fatalf("B evaluations for 30 copies: %d, want 1", got)
	}
	want := int64(a.Calls() + b.Calls())
	rep := admin.waitUsage(airouting.GroupByStage, func(r airouting.UsageReport) bool {
		return r.Totals.Calls == want && row(r, airouting.StageEvaluation).SavedCalls == copies-1
	})
	if ev := row(rep, airouting.StageEvaluation); ev.SavedCalls != copies-1 || ev.Calls != 3 {
		t.Fatalf("evaluation usage %+v; want 3 calls and %d saved", ev, copies-1)
	}
	if rep.Totals.Calls != want {
		t.Fatalf("usage calls %d, fake servers counted %d", rep.Totals.Calls, want)
	}
}

func multipartFile(field, name, content string) (*strings.Reader, string) {
	const boundary = "routingtestboundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + field + "\"; filename=\"" + name + "\"\r\n" +
		"Content-Type: text/plain\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n"
	return strings.NewReader(body), "multipart/form-data; boundary=" + boundary
}

func (c *client) request(method, path string, body io.Reader, ctype string) *http.Request {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+api+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+c.token)
	return req
}

// readAll sends req and returns the raw body (an event stream).
func readAll(t *testing.T, req *http.Request) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return string(b)
}
