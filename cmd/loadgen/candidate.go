package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/interview"
)

// candidate is one user going through a whole interview, double-submitting.
type candidate struct {
	idx      int
	name     string
	c        *client
	tg       target
	copies   [2]int        // min, max copies of every answer
	maxDelay time.Duration // the later copies leave after a random delay up to this

	sid string
	wg  sync.WaitGroup // the late copies still in flight

	mu        sync.Mutex          // protects the fields below
	sent      map[string]string   // question → the answer sent (one distinct request each)
	accepted  map[string]string   // question → the answer a 200 was received for
	bodies    map[string][]string // question → data of every 200 copy
	uploads   int                 // distinct uploads (a retry of the same file is not one)
	uploadOK  []string            // data of every 200 upload copy
	copiesOut int                 // copies sent (answers and uploads), retries excluded
	failures  []string
	lost      []string // answered questions missing from the report
	lostUp    bool     // an upload answered 200 whose questions were never stored
	mismatch  int      // 200 copies of one request whose data differ
	report    *interview.Report
}

func newCandidate(idx int, run string, c *client, tg target, copies [2]int, maxDelay time.Duration) *candidate {
	return &candidate{idx: idx, name: fmt.Sprintf("lg-%s-%02d", run, idx), c: c, tg: tg, copies: copies, maxDelay: maxDelay,
		sent: map[string]string{}, accepted: map[string]string{}, bodies: map[string][]string{}}
}

func (cd *candidate) fail(format string, args ...any) error {
	err := fmt.Errorf("%s: "+format, append([]any{cd.name}, args...)...)
	cd.mu.Lock()
	cd.failures = append(cd.failures, err.Error())
	cd.mu.Unlock()
	return err
}

// answerText is this candidate's answer to question no. Some answers earn
// a follow-up (WEAK) or a second review (UNSURE) from the fake model.
func (cd *candidate) answerText(no string) string {
	text := fmt.Sprintf("%s answering %s: an index is a B-tree on the column, so lookups avoid a full scan; it costs write speed.", cd.name, no)
	switch {
	case no == "2" && cd.idx%3 == 0:
		text += " WEAK"
	case no == "4" && cd.idx%4 == 1:
		text += " UNSURE"
	}
	return text
}

func (cd *candidate) run(ctx context.Context) error {
	n := len(cd.tg.instances)
	cred := map[string]string{"username": cd.name, "password": "password-" + cd.name}
	r := cd.c.json(ctx, "account", cd.tg, -1, "POST", api+"/users/register", cred)
	if r.err != nil || (r.status != 200 && r.status != 409) {
		return cd.fail("register: %v", okOr(r))
	}
	r = cd.c.json(ctx, "account", cd.tg, -1, "POST", api+"/users/login", cred)
	if err := ok(r); err != nil {
		return cd.fail("login: %v", err)
	}
	var login struct{ Token string }
	json.Unmarshal(r.env.Data, &login)
	cd.c.token = login.Token

	r = cd.c.json(ctx, "other", cd.tg, -1, "POST", api+"/interview/sessions", nil)
	if err := ok(r); err != nil {
		return cd.fail("new session: %v", err)
	}
	var sess struct{ SessionID string }
	json.Unmarshal(r.env.Data, &sess)
	cd.sid = sess.SessionID
	base := api + "/interview/sessions/" + cd.sid

	// The resume, double-clicked: two concurrent uploads to two instances.
	// Long enough for the server's doctext.min-chars (200 by default).
	resume := fmt.Sprintf("%s - Backend Engineer, 5 years\nSkills: Go, MySQL, Redis, Kafka, Kubernetes.\n"+
		"Built an order service at %d QPS and cut its p99 latency by 40%% with a cache and query fixes.\n"+
		"Moved a payment system to event sourcing; on call for a platform of 30 services.\n",
		cd.name, 1000+cd.idx*37)
	body, ctype := multipartResume("resume.txt", []byte(resume))
	cd.uploads = 1
	start := rand.IntN(max(n, 1))
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k > 0 {
				time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
			}
			cd.mu.Lock()
			cd.copiesOut++
			cd.mu.Unlock()
			r := cd.c.do(ctx, "upload", cd.tg, start+k, "POST", base+"/interview-questions", body, ctype)
			if err := ok(r); err != nil {
				cd.c.st.note("%s upload copy %d: %v", cd.name, k, err)
				return
			}
			cd.mu.Lock()
			cd.uploadOK = append(cd.uploadOK, string(r.env.Data))
			cd.mu.Unlock()
		}()
	}
	wg.Wait()
	if len(cd.uploadOK) == 0 {
		return cd.fail("no upload copy succeeded")
	}
	if len(cd.uploadOK) == 2 && !sameQuestions(cd.uploadOK[0], cd.uploadOK[1]) {
		cd.mu.Lock()
		cd.mismatch++
		cd.mu.Unlock()
		cd.c.st.note("%s: the two upload copies got different questions", cd.name)
	}

	r = cd.c.json(ctx, "other", cd.tg, -1, "GET", base+"/current-question", nil)
	// A joined upload copy may answer 200 before the copy that owns the
	// upload has stored the questions: poll for up to 30 s before calling
	// the upload lost.
	for waited := time.Duration(0); r.status == 409 && strings.Contains(r.env.Message, "no questions yet") && waited < 30*time.Second; waited += 500 * time.Millisecond {
		if waited == 0 {
			cd.c.st.note("%s: upload answered 200 but the session has no questions yet; polling", cd.name)
		}
		time.Sleep(500 * time.Millisecond)
		r = cd.c.json(ctx, "other", cd.tg, -1, "GET", base+"/current-question", nil)
	}
	if err := ok(r); err != nil {
		if r.status == 409 && strings.Contains(r.env.Message, "no questions yet") {
			// The upload was acknowledged (200) but its result never stored.
			cd.mu.Lock()
			cd.lostUp = true
			cd.mu.Unlock()
		}
		return cd.fail("current question after a 200 upload: %v", err)
	}
	var cur interview.AnswerResp
	json.Unmarshal(r.env.Data, &cur)
	no := cur.QuestionNumber
	for i := 0; ; i++ {
		if i > 30 {
			return cd.fail("the interview does not finish")
		}
		resp, err := cd.answer(ctx, base, no)
		if err != nil {
			return err
		}
		if resp.Finished {
			break
		}
		no = resp.NextQuestionNumber
	}
	cd.wg.Wait()

	r = cd.c.json(ctx, "other", cd.tg, -1, "PUT", base+"/finish", nil)
	if err := ok(r); err != nil {
		return cd.fail("finish: %v", err)
	}
	r = cd.c.json(ctx, "other", cd.tg, -1, "GET", api+"/interview/interview/record/"+cd.sid, nil)
	if r.status == 404 {
		r = cd.c.json(ctx, "other", cd.tg, -1, "GET", api+"/interview/record/"+cd.sid, nil)
	}
	if err := ok(r); err != nil {
		return cd.fail("record: %v", err)
	}
	var rep interview.Report
	if err := json.Unmarshal(r.env.Data, &rep); err != nil {
		return cd.fail("record: %v", err)
	}
	cd.verify(rep)
	return nil
}

// answer sends 2-4 copies of the same answer to different instances, the
// later ones after random delays (often while the first is evaluated), and
// returns as soon as one copy is scored; the others finish in the background.
func (cd *candidate) answer(ctx context.Context, base, no string) (interview.AnswerResp, error) {
	text := cd.answerText(no)
	cd.mu.Lock()
	cd.sent[no] = text
	cd.mu.Unlock()
	body, _ := json.Marshal(map[string]string{"questionNumber": no, "answerContent": text})
	copies := cd.copies[0] + rand.IntN(cd.copies[1]-cd.copies[0]+1)
	start := rand.IntN(max(len(cd.tg.instances), 1))
	results := make(chan result, copies)
	for k := range copies {
		cd.wg.Add(1)
		go func() {
			defer cd.wg.Done()
			if k > 0 && cd.maxDelay > 0 {
				time.Sleep(rand.N(cd.maxDelay))
			}
			cd.mu.Lock()
			cd.copiesOut++
			cd.mu.Unlock()
			r := cd.c.do(ctx, "answer", cd.tg, start+k, "POST", base+"/interview/answer-json", body, "application/json")
			if r.err == nil && r.status == 200 && r.env.Code == "0" {
				cd.mu.Lock()
				cd.bodies[no] = append(cd.bodies[no], string(r.env.Data))
				if len(cd.bodies[no]) > 1 && cd.bodies[no][0] != string(r.env.Data) {
					cd.mismatch++
					cd.c.st.note("%s q%s: copies got different responses:\n  %s\n  %s", cd.name, no, cd.bodies[no][0], r.env.Data)
				}
				cd.accepted[no] = text
				cd.mu.Unlock()
			} else {
				cd.c.st.note("%s q%s copy %d gave up: %v", cd.name, no, k, okOr(r))
			}
			results <- r
		}()
	}
	var last result
	for range copies {
		r := <-results
		if r.err == nil && r.status == 200 && r.env.Code == "0" {
			var resp interview.AnswerResp
			if err := json.Unmarshal(r.env.Data, &resp); err != nil {
				return resp, cd.fail("q%s: %v", no, err)
			}
			if resp.QuestionNumber != no || resp.Score == nil {
				return resp, cd.fail("q%s: unexpected response %s", no, r.env.Data)
			}
			return resp, nil
		}
		last = r
	}
	return interview.AnswerResp{}, cd.fail("q%s: no copy was scored: %v", no, okOr(last))
}

// verify compares the finished report's playback with what was answered.
func (cd *candidate) verify(rep interview.Report) {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	cd.report = &rep
	stored := map[string]string{}
	for _, p := range rep.PlaybackItems {
		stored[p.QuestionNumber] = p.AnswerContent
	}
	for no, text := range cd.sent {
		if got, ok := stored[no]; !ok || got != text {
			cd.lost = append(cd.lost, no)
		}
	}
}

func sameQuestions(a, b string) bool {
	var x, y struct{ Questions map[string]string }
	json.Unmarshal([]byte(a), &x)
	json.Unmarshal([]byte(b), &y)
	if len(x.Questions) != len(y.Questions) {
		return false
	}
	for k, v := range x.Questions {
		if y.Questions[k] != v {
			return false
		}
	}
	return true
}

func okOr(r result) string {
	if err := ok(r); err != nil {
		return strings.TrimSpace(err.Error())
	}
	return "ok"
}
