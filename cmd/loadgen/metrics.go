package main

import (
	"bufio"
	"context"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// scraper polls every instance's /metrics once a second and keeps the
// single-flight counters, summed over the instance's restarts (a new
// process_start_time_seconds starts a new generation), so the counters of an
// instance killed during the run are not lost (up to the last second).
type scraper struct {
	hc *http.Client

	mu        sync.Mutex // protects inst and redisErrs
	inst      map[string]*instCounters
	redisErrs map[string][]time.Time // instance URL → scrapes that saw redis_errors_total rise
}

type instCounters struct {
	start    float64
	base     map[string]float64 // finished generations
	cur      map[string]float64
	restarts int
}

// metricLine matches the counters kept, e.g.
// aimeeting_singleflight_outcomes_total{outcome="takeover",stage="interview-evaluation"} 3
var metricLine = regexp.MustCompile(`^aimeeting_singleflight_(outcomes_total|model_calls_total|redis_errors_total)\{([^}]*)\} ([0-9.e+]+)$`)
var outcomeLabel = regexp.MustCompile(`outcome="([^"]+)"`)

func newScraper() *scraper {
	return &scraper{hc: &http.Client{Timeout: 2 * time.Second}, inst: map[string]*instCounters{}, redisErrs: map[string][]time.Time{}}
}

func (s *scraper) run(ctx context.Context, urls []string) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		for _, u := range urls {
			s.scrape(ctx, u)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *scraper) scrape(ctx context.Context, url string) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/metrics", nil)
	resp, err := s.hc.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	vals := map[string]float64{}
	start := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := cutFloat(line, "process_start_time_seconds "); ok {
			start = v
			continue
		}
		m := metricLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		key := m[1]
		if o := outcomeLabel.FindStringSubmatch(m[2]); o != nil {
			key = o[1]
		}
		vals[key] += v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ic := s.inst[url]
	if ic == nil {
		ic = &instCounters{start: start, base: map[string]float64{}}
		s.inst[url] = ic
	}
	prevErrs := ic.cur["redis_errors_total"]
	if start != ic.start {
		for k, v := range ic.cur {
			ic.base[k] += v
		}
		ic.start = start
		ic.restarts++
		prevErrs = 0
	}
	if vals["redis_errors_total"] > prevErrs {
		s.redisErrs[url] = append(s.redisErrs[url], time.Now())
	}
	ic.cur = vals
}

func cutFloat(line, prefix string) (float64, bool) {
	if len(line) <= len(prefix) || line[:len(prefix)] != prefix {
		return 0, false
	}
	v, err := strconv.ParseFloat(line[len(prefix):], 64)
	return v, err == nil
}

// totals sums every instance's counters over all its generations.
func (s *scraper) totals() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, ic := range s.inst {
		sum := maps.Clone(ic.base)
		for k, v := range ic.cur {
			sum[k] += v
		}
		for k, v := range sum {
			out[k] += int(v)
		}
	}
	return out
}

// redisErrorsAt returns, per instance URL, when its Redis error counter rose
// (to the second: the scrape interval).
func (s *scraper) redisErrorsAt() map[string][]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.redisErrs)
}
