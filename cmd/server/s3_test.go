package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/interview"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
)

const apiBase = "/api/xunzhi/v1"

// s3Env is the environment of an instance whose files live in srv.
func s3Env(srv *s3test.Server, extra ...string) []string {
	return append(append([]string{"STORAGE_URL=" + srv.URL()}, srv.Env()...), extra...)
}

// s3Login registers (or not: 409) and logs name in on base.
func s3Login(t *testing.T, base, name string) string {
	t.Helper()
	body := map[string]string{"username": name, "password": "password-" + name}
	if r := servertest.Do(t, "POST", base+apiBase+"/users/register", "", body); r.Status != 200 && r.Status != 409 {
		t.Fatalf("register: %s", r.Raw)
	}
	var l struct{ Token string }
	servertest.Do(t, "POST", base+apiBase+"/users/login", "", body).Decode(t, &l)
	return l.Token
}

// upload posts data as the multipart field of path.
func upload(t *testing.T, url, token, field, filename string, data []byte) servertest.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile(field, filename)
	_, _ = fw.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest("POST", url, &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	return servertest.Send(t, req)
}

// fetch GETs url with optional header pairs and returns status and body.
func fetch(t *testing.T, url, token string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func resumePDF(t *testing.T) []byte {
	return doctexttest.PDF(t, "Jane Doe - Backend Engineer", "Built Go services on MySQL and Redis.",
		"Led a payment service handling 2000 requests per second.", "Education: BSc Computer Science",
		"Five years in a product team: owned features from design to release,",
		"wrote tests and runbooks, and mentored two junior engineers.")
}

func newSession(t *testing.T, base, token string) string {
	t.Helper()
	r := servertest.Do(t, "POST", base+apiBase+"/interview/sessions", token, nil)
	var s struct{ SessionID string }
	r.Decode(t, &s)
	if r.Status != 200 || s.SessionID == "" {
		t.Fatalf("new session: %s", r.Raw)
	}
	return s.SessionID
}

// localFiles lists the files under the data dirs' file stores: with
// STORAGE_URL on S3 there must be none.
func localFiles(t *testing.T, servers ...*servertest.Server) []string {
	t.Helper()
	var out []string
	for _, s := range servers {
		_ = filepath.WalkDir(filepath.Join(s.Dir, "data", "files"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

func requireEspeak(t *testing.T) {
	t.Helper()
	if espeak.Available("espeak-ng") {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("espeak-ng is missing: run scripts/tts-deps.sh")
	}
	t.Skip("espeak-ng is missing: run scripts/tts-deps.sh")
}

// Three instances with separate data dirs share MariaDB, Redis and one S3
// bucket, and nothing else: each request is served by another instance
// than the one that wrote the file it needs.
func TestThreeInstancesShareOnlyObjectStore(t *testing.T) {
	requireEspeak(t)
	testenv.Redis(t)
	dsn := testenv.MySQL(t)
	srv := s3test.Start(t)
	bucket := srv.Store()
	// The model answers the resume stages slowly enough to stop the store
	// while an upload is in progress.
	var slowProfile sync.Map
	fake := &interviewtest.Model{Latency: func(stage string) time.Duration {
		if _, ok := slowProfile.Load(stage); ok {
			return 1500 * time.Millisecond
		}
		return 0
	}}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	env := s3Env(srv, "DATABASE_DRIVER=mysql", "DATABASE_DSN="+dsn, "REDIS_ADDRS="+testenv.RedisAddr(),
		"REDIS_KEY_PREFIX=test:"+testenv.RandomSuffix(8)+":", "XUNZHI_AGENT_AI_SINGLEFLIGHT_MODE=distributed",
		"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL="+model.URL(), "AI_OPENAI_API_KEY=sk-test", "AI_OPENAI_MODEL=fake-gpt",
		"STORAGE_SWEEP_INTERVAL=300ms", "STORAGE_SWEEP_GRACE=4s")
	a := servertest.Start(t, "", env...)
	b := servertest.Start(t, "", env...)
	c := servertest.Start(t, "", env...)
	ctx := context.Background()
	// Written by the first subtests, read while the store is down.
	var aliceSession, bobAudio string

	t.Run("interview", func(t *testing.T) {
		ta, tb, tc := s3Login(t, a.URL, "alice"), s3Login(t, b.URL, "alice"), s3Login(t, c.URL, "alice")
		sid := newSession(t, a.URL, ta)
		aliceSession = sid
		pdf := resumePDF(t)
		if r := upload(t, a.URL+apiBase+"/interview/sessions/"+sid+"/interview-questions", ta, "resumePdf", "resume.pdf", pdf); r.Status != 200 {
			t.Fatalf("upload on A: %s", r.Raw)
		}
		if n, err := bucket.Count(ctx, interview.ResumePrefix); err != nil || n != 1 {
			t.Fatalf("%d resumes in the bucket (%v), want 1", n, err)
		}
		// B previews it, whole and by range.
		st, _, body := fetch(t, b.URL+apiBase+"/interview/sessions/"+sid+"/resume/preview", tb)
		if st != 200 || !bytes.Equal(body, pdf) {
			t.Fatalf("preview on B: %d, %d bytes (want %d)", st, len(body), len(pdf))
		}
		st, h, body := fetch(t, b.URL+apiBase+"/interview/sessions/"+sid+"/resume/preview", tb, "Range", "bytes=10-19")
		if st != 206 || !bytes.Equal(body, pdf[10:20]) || h.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(pdf)) {
			t.Fatalf("ranged preview on B: %d %q %q", st, body, h.Get("Content-Range"))
		}
		// The answers alternate between B and C; C finishes.
		urls, tokens := []string{b.URL, c.URL}, []string{tb, tc}
		r := servertest.Do(t, "GET", c.URL+apiBase+"/interview/sessions/"+sid+"/current-question", tc, nil)
		var cur interview.AnswerResp
		r.Decode(t, &cur)
		for i := 0; !cur.Finished; i++ {
			if i > 20 {
				t.Fatal("the interview does not finish")
			}
			no := cur.QuestionNumber
			if i > 0 {
				no = cur.NextQuestionNumber
			}
			r = servertest.Do(t, "POST", urls[i%2]+apiBase+"/interview/sessions/"+sid+"/interview/answer-json", tokens[i%2],
				map[string]string{"questionNumber": no, "answerContent": "A complete answer for question " + no})
			cur = interview.AnswerResp{}
			r.Decode(t, &cur)
			if r.Status != 200 || cur.Score == nil {
				t.Fatalf("answer %s: %s", no, r.Raw)
			}
		}
		if r := servertest.Do(t, "PUT", c.URL+apiBase+"/interview/sessions/"+sid+"/finish", tc, nil); r.Status != 200 {
			t.Fatalf("finish on C: %s", r.Raw)
		}
	})

	t.Run("tts resumed after its instance is killed", func(t *testing.T) {
		tb, ta, tc := s3Login(t, b.URL, "bob"), s3Login(t, a.URL, "bob"), s3Login(t, c.URL, "bob")
		text := strings.Repeat("This paragraph is long enough to take a while to read aloud. ", 40)
		r := servertest.Do(t, "POST", b.URL+apiBase+"/xunfei/tts/tasks", tb, map[string]any{"text": text})
		var created tts.Created
		r.Decode(t, &created)
		if r.Status != 200 {
			t.Fatalf("create on B: %s", r.Raw)
		}
		// Wait until B has stored some segments in the bucket, then kill it.
		for deadline := time.Now().Add(60 * time.Second); ; {
			if n, _ := bucket.Count(ctx, tts.WorkPrefix); n >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("B stored no segment in the bucket:\n%s", b.Logs())
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.Kill()
		var v tts.View
		for deadline := time.Now().Add(90 * time.Second); ; {
			v = tts.View{}
			servertest.Do(t, "GET", a.URL+apiBase+"/xunfei/tts/tasks/"+created.TaskID, ta, nil).Decode(t, &v)
			if v.TaskStatus == tts.StatusDone || v.TaskStatus == tts.StatusFailed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the task was not resumed: %+v", v)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if v.TaskStatus != tts.StatusDone || v.AudioURL == nil {
			t.Fatalf("resumed task: %+v", v)
		}
		bobAudio = *v.AudioURL
		resumed := servertest.Metric
		ra, _ := resumed(t, a.URL, `tts_tasks_total{event="resumed"}`)
		rc, _ := resumed(t, c.URL, `tts_tasks_total{event="resumed"}`)
		if ra+rc != 1 {
			t.Fatalf("resumed %v times on A and C, want once", ra+rc)
		}
		// C serves the audio: whole, then a range of it.
		st, _, whole := fetch(t, c.URL+*v.AudioURL, tc)
		if st != 200 || len(whole) < 1000 || string(whole[:4]) != "RIFF" {
			t.Fatalf("audio on C: %d, %d bytes", st, len(whole))
		}
		st, h, part := fetch(t, c.URL+*v.AudioURL, tc, "Range", "bytes=1000-1999")
		if st != 206 || !bytes.Equal(part, whole[1000:2000]) || h.Get("Content-Range") != fmt.Sprintf("bytes 1000-1999/%d", len(whole)) {
			t.Fatalf("ranged audio on C: %d, %d bytes, %q", st, len(part), h.Get("Content-Range"))
		}
		if n, _ := bucket.Count(ctx, tts.WorkPrefix); n != 0 {
			t.Fatalf("%d segments left in the bucket after the join", n)
		}
	})

	t.Run("agent file", func(t *testing.T) {
		ta, tc := s3Login(t, a.URL, "carol"), s3Login(t, c.URL, "carol")
		body := []byte("# Notes\n\nUploaded on A, read from the bucket by C.\n")
		r := upload(t, a.URL+apiBase+"/agents/files/upload", ta, "file", "notes.md", body)
		var f struct{ FileID string }
		r.Decode(t, &f)
		if r.Status != 200 || f.FileID == "" {
			t.Fatalf("agent upload on A: %s", r.Raw)
		}
		var uid string
		_ = bucket.List(ctx, "uploads/agent/", func(i blobstore.Info) error {
			if strings.HasSuffix(i.Key, "/"+f.FileID) {
				uid = i.Key
			}
			return nil
		})
		if got, err := bucket.ReadAll(ctx, uid); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("the agent file in the bucket = %q, %v", got, err)
		}
		// C downloads it, whole and by range; A deletes it (B was killed
		// above), and its blob goes.
		st, _, got := fetch(t, c.URL+apiBase+"/agents/files/"+f.FileID, tc)
		if st != 200 || !bytes.Equal(got, body) {
			t.Fatalf("download on C: %d %q", st, got)
		}
		st, _, got = fetch(t, c.URL+apiBase+"/agents/files/"+f.FileID, tc, "Range", "bytes=2-6")
		if st != 206 || !bytes.Equal(got, body[2:7]) {
			t.Fatalf("ranged download on C: %d %q", st, got)
		}
		if r := servertest.Do(t, "DELETE", a.URL+apiBase+"/agents/files/"+f.FileID, ta, nil); r.Status != 200 {
			t.Fatalf("delete on A: %s", r.Raw)
		}
		if _, err := bucket.Stat(ctx, uid); err == nil {
			t.Fatal("the deleted file's blob is still in the bucket")
		}
	})

	t.Run("store stopped mid-upload", func(t *testing.T) {
		tc := s3Login(t, c.URL, "dave")
		sid := newSession(t, c.URL, tc)
		slowProfile.Store(interview.StageProfile, true)
		defer slowProfile.Delete(interview.StageProfile)
		done := make(chan servertest.Response, 1)
		go func() {
			done <- upload(t, c.URL+apiBase+"/interview/sessions/"+sid+"/interview-questions", tc, "resumePdf", "resume.pdf", resumePDF(t))
		}()
		time.Sleep(500 * time.Millisecond) // the model is answering
		srv.Stop()
		defer srv.Start() // idempotent: for the next subtests if this one fails
		r := <-done
		if r.Status != 503 || r.Code != apperr.CodeUnavailable || r.Message != apperr.FileStoreMessage {
			t.Fatalf("upload with the store down: %d %s", r.Status, r.Raw)
		}
		// Everything else keeps working; the session has no resume row.
		var s struct{ Status string }
		r = servertest.Do(t, "GET", c.URL+apiBase+"/interview/sessions/"+sid+"/restore", tc, nil)
		r.Decode(t, &s)
		if r.Status != 200 || s.Status != interview.SessionDraft {
			t.Fatalf("session after the failed upload: %s", r.Raw)
		}
		st, _, body := fetch(t, c.URL+apiBase+"/interview/sessions/"+sid+"/resume/preview", tc)
		if st != 404 {
			t.Fatalf("preview of a failed upload: %d %s", st, body)
		}
		// The files that exist answer 503 with the same message meanwhile.
		for _, tc := range []struct{ url, user string }{
			{a.URL + apiBase + "/interview/sessions/" + aliceSession + "/resume/preview", "alice"},
			{a.URL + bobAudio, "bob"},
		} {
			st, _, body := fetch(t, tc.url, s3Login(t, a.URL, tc.user))
			if st != 503 || !bytes.Contains(body, []byte(apperr.FileStoreMessage)) {
				t.Fatalf("%s with the store down: %d %s", tc.url, st, body)
			}
		}
		srv.Start()
		slowProfile.Delete(interview.StageProfile)
		if r := upload(t, c.URL+apiBase+"/interview/sessions/"+sid+"/interview-questions", tc, "resumePdf", "resume.pdf", resumePDF(t)); r.Status != 200 {
			t.Fatalf("upload once the store is back: %s", r.Raw)
		}
	})

	t.Run("orphan sweep", func(t *testing.T) {
		orphan := interview.ResumePrefix + "ghost/06h0000000000000000000000"
		if err := bucket.PutBytes(ctx, orphan, []byte("no row names me"), ""); err != nil {
			t.Fatal(err)
		}
		before, _ := bucket.Count(ctx, interview.ResumePrefix)
		time.Sleep(2 * time.Second)
		if _, err := bucket.Stat(ctx, orphan); err != nil {
			t.Fatalf("the orphan went within the grace period: %v", err)
		}
		for deadline := time.Now().Add(20 * time.Second); ; {
			if _, err := bucket.Stat(ctx, orphan); err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the orphan was not swept")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if after, _ := bucket.Count(ctx, interview.ResumePrefix); after != before-1 {
			t.Fatalf("%d resumes after the sweep, want %d: a referenced one was deleted", after, before-1)
		}
	})

	if files := localFiles(t, a, b, c); len(files) != 0 {
		t.Fatalf("files in the data dirs: %v", files)
	}
}

// blobsMigrate runs `aimeeting blobs migrate` and returns its output.
func blobsMigrate(t *testing.T, srv *s3test.Server, from, to string) string {
	t.Helper()
	cmd := exec.Command(servertest.Binary(t), "blobs", "migrate", "--from", from, "--to", to)
	cmd.Env = append(os.Environ(), srv.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("blobs migrate: %v\n%s", err, out)
	}
	return string(out)
}

// A data dir written by a version from before storage.url is copied into S3
// by `blobs migrate`, and the server then serves the same files from S3.
func TestMigrateDataDirToS3(t *testing.T) {
	requireEspeak(t)
	srv := s3test.Start(t)
	dir := t.TempDir()
	s := servertest.Start(t, dir)
	tok := s3Login(t, s.URL, "erin")
	sid := newSession(t, s.URL, tok)
	resume := []byte("Erin Example - Go developer\n" + strings.Repeat("Built Go services with MySQL and Redis for five years. ", 6))
	if r := upload(t, s.URL+apiBase+"/interview/sessions/"+sid+"/interview-questions", tok, "resumePdf", "resume.txt", resume); r.Status != 200 {
		t.Fatalf("upload: %s", r.Raw)
	}
	r := servertest.Do(t, "POST", s.URL+apiBase+"/xunfei/tts/synthesize", tok, map[string]any{"text": "Files move to the object store."})
	var v tts.View
	r.Decode(t, &v)
	if v.TaskStatus != tts.StatusDone {
		t.Fatalf("synthesize: %s", r.Raw)
	}
	_, _, audio := fetch(t, s.URL+*v.AudioURL, tok)
	s.Stop(t)

	// Lay the files out as an old version did: right under the data dir.
	data := filepath.Join(dir, "data")
	for _, d := range []string{"uploads", "tts"} {
		if err := os.Rename(filepath.Join(data, "files", d), filepath.Join(data, d)); err != nil {
			t.Fatal(err)
		}
	}
	out := blobsMigrate(t, srv, "file://"+data, srv.URL())
	if !strings.Contains(out, "3 files: 3 copied") {
		t.Fatalf("first migration: %s", out)
	}
	if out := blobsMigrate(t, srv, "file://"+data, srv.URL()); !strings.Contains(out, "0 copied") || !strings.Contains(out, "3 already there") {
		t.Fatalf("second migration copied again: %s", out)
	}
	// The old files are gone from the instance; it serves them from S3.
	if err := os.RemoveAll(filepath.Join(data, "uploads")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(data, "tts")); err != nil {
		t.Fatal(err)
	}
	s = servertest.Start(t, dir, s3Env(srv)...)
	if st, _, got := fetch(t, s.URL+apiBase+"/interview/sessions/"+sid+"/resume/preview", tok); st != 200 || !bytes.Equal(got, resume) {
		t.Fatalf("resume from S3: %d %q", st, got)
	}
	if st, _, got := fetch(t, s.URL+*v.AudioURL, tok); st != 200 || !bytes.Equal(got, audio) {
		t.Fatalf("audio from S3: %d, %d bytes (want %d)", st, len(got), len(audio))
	}
	if files := localFiles(t, s); len(files) != 0 {
		t.Fatalf("files written to the data dir: %v", files)
	}

	// With storage.presign the audio redirects to a presigned URL of S3.
	s.Stop(t)
	s = servertest.Start(t, dir, s3Env(srv, "STORAGE_PRESIGN=1m")...)
	req, _ := http.NewRequest("GET", s.URL+*v.AudioURL, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 302 || !strings.HasPrefix(loc, "http://"+srv.Addr()+"/") {
		t.Fatalf("presigned audio: %d %q", resp.StatusCode, loc)
	}
	if st, _, got := fetch(t, loc, ""); st != 200 || !bytes.Equal(got, audio) {
		t.Fatalf("GET the presigned URL: %d, %d bytes", st, len(got))
	}
}
