package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore/s3test"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/doctexttest"
	"github.com/xunzhi-ai/aimeeting/internal/interview/interviewtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm/llmtest"
	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
)

// TestFileStoreThroughput measures, in one run, resume uploads and audio
// downloads through a server on the directory store and one on S3
// (versitygw on loopback). It runs with BLOB_BENCH=1 (scripts/blob-bench.sh);
// docs/cluster.md quotes its table.
func TestFileStoreThroughput(t *testing.T) {
	if os.Getenv("BLOB_BENCH") != "1" {
		t.Skip("a measurement, not a test: run scripts/blob-bench.sh (BLOB_BENCH=1)")
	}
	requireEspeak(t)
	srv := s3test.Start(t)
	fake := &interviewtest.Model{}
	model := llmtest.NewServer(t, llmtest.WithResponder(fake.Reply))
	common := []string{"AI_PROVIDER=openai", "AI_OPENAI_BASE_URL=" + model.URL(), "AI_OPENAI_API_KEY=sk-test",
		"AI_OPENAI_MODEL=fake-gpt", "RATE_LIMIT_ENABLED=false", "LOG_LEVEL=warn"}
	servers := []struct {
		name string
		s    *servertest.Server
	}{
		{"file://<data-dir>/files", servertest.Start(t, "", common...)},
		{"s3:// (versitygw, loopback)", servertest.Start(t, "", s3Env(srv, common...)...)},
	}
	// A long resume: a PDF of some thirty pages of text.
	lines := []string{"Jane Doe - Backend Engineer", "Built Go services on MySQL and Redis."}
	for i := 0; i < 1200; i++ {
		lines = append(lines, fmt.Sprintf("Project %d: owned a payment service handling 2000 requests per second.", i))
	}
	pdf := doctexttest.PDF(t, lines...)
	const uploads, downloads, workers = 24, 60, 4
	text := strings.Repeat("Audio downloads stream from the file store with range support. ", 30)
	fmt.Printf("\n| store | resume uploads (%d × %d KB, %d at once) | audio downloads (%d × WAV, %d at once) |\n|---|---|---|\n",
		uploads, len(pdf)/1024, workers, downloads, workers)
	for _, sv := range servers {
		base := sv.s.URL
		tok := s3Login(t, base, "bench")
		// One candidate per upload: a new session abandons the user's others.
		sids, toks := make([]string, uploads), make([]string, uploads)
		for i := range sids {
			toks[i] = s3Login(t, base, fmt.Sprintf("bench%d", i))
			sids[i] = newSession(t, base, toks[i])
		}
		start := time.Now()
		parallel(t, uploads, workers, func(i int) error {
			r := upload(t, base+apiBase+"/interview/sessions/"+sids[i]+"/interview-questions", toks[i], "resumePdf", "resume.pdf", pdf)
			if r.Status != 200 {
				return fmt.Errorf("upload: %s", r.Raw)
			}
			return nil
		})
		up := time.Since(start)

		r := servertest.Do(t, "POST", base+apiBase+"/xunfei/tts/synthesize", tok, map[string]any{"text": text})
		var v tts.View
		r.Decode(t, &v)
		if v.TaskStatus != tts.StatusDone {
			t.Fatalf("synthesize: %s", r.Raw)
		}
		_, _, audio := fetch(t, base+*v.AudioURL, tok)
		start = time.Now()
		parallel(t, downloads, workers, func(int) error {
			st, _, b := fetch(t, base+*v.AudioURL, tok)
			if st != 200 || !bytes.Equal(b, audio) {
				return fmt.Errorf("download: %d, %d bytes", st, len(b))
			}
			return nil
		})
		down := time.Since(start)
		fmt.Printf("| %s | %.1f uploads/s (%.1f MB/s) | %.1f downloads/s (%.1f MB/s, %d KB each) |\n", sv.name,
			float64(uploads)/up.Seconds(), float64(uploads*len(pdf))/up.Seconds()/1e6,
			float64(downloads)/down.Seconds(), float64(downloads*len(audio))/down.Seconds()/1e6, len(audio)/1024)
	}
}

// parallel runs fn(0..n-1) on workers goroutines and fails on the first error.
func parallel(t *testing.T, n, workers int, fn func(i int) error) {
	t.Helper()
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := fn(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
