package interview

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// MaxPhotoBytes bounds a demeanor photo upload.
const MaxPhotoBytes = 10 << 20

// photoTypes are the accepted photo content types (sniffed, not trusted).
var photoTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/webp": true}

// Demeanor assesses one webcam photo. A model without vision records "not
// assessed" with no scores. The flight key is the image bytes' hash, so the
// same photo is never assessed twice.
func (s *Service) Demeanor(ctx context.Context, userID, sessionID string, photo []byte) (DemeanorResult, error) {
	sess, err := s.store.Session(ctx, userID, sessionID)
	if err != nil {
		return DemeanorResult{}, err
	}
	if sess.Status != SessionReady && sess.Status != SessionInProgress {
		return DemeanorResult{}, invalidState("photos are accepted only while the interview runs (session is %s)", sess.Status)
	}
	mime := http.DetectContentType(photo)
	if !photoTypes[mime] {
		return DemeanorResult{}, apperr.New(apperr.KindUnprocessable, "userPhoto must be a JPEG, PNG or WebP image (got %s)", mime)
	}
	hash := sha256Hex(photo)
	res, seen, err := s.store.DemeanorByImage(ctx, sess.ID, hash)
	if err != nil {
		return DemeanorResult{}, err
	}
	prov := s.demeanorProvider(ctx)
	switch {
	case seen: // the same photo again: its stored result, no model call
	case !prov.SupportsVision():
	default:
		req, err := s.prompts[StageDemeanor].Request(map[string]string{"task": "assess the candidate's demeanor in the attached photo"})
		if err != nil {
			return DemeanorResult{}, apperr.Internal(err)
		}
		req.Messages[1].Images = []llm.Image{{MIME: mime, Data: photo}}
		d, _, err := tracedInvoke(ctx, s, nil, Call{Stage: StageDemeanor, SessionID: sess.ID, BusinessKey: hash,
			Provider: prov, Request: req}, func(r llm.Response) (Demeanor, error) { return ParseDemeanor(r.Content) })
		if err != nil {
			return DemeanorResult{}, err
		}
		res = DemeanorResult{Assessed: true, PanicLevel: &d.PanicLevel, SeriousnessLevel: &d.SeriousnessLevel,
			EmoticonHandling: &d.EmoticonHandling, CompositeScore: &d.CompositeScore}
	}
	if !res.Assessed {
		res.Message = demeanorNotAssessed(sessionLanguage(sess))
	}
	if !seen {
		if err := s.store.AddDemeanor(ctx, sess.ID, hash, res, s.now()); err != nil {
			return DemeanorResult{}, err
		}
	}
	composites, err := s.store.DemeanorComposites(ctx, sess.ID)
	if err != nil {
		return DemeanorResult{}, err
	}
	res.SessionComposite, res.PhotoCount = meanScore(composites), len(composites)
	return res, nil
}

// demeanorProvider is the model that serves the demeanor stage: the first
// model of its route (the routing accepts only vision models there), else
// the service's provider.
func (s *Service) demeanorProvider(ctx context.Context) llm.Provider {
	if p := s.inv.routedProvider(ctx, StageDemeanor); p != nil {
		return p
	}
	return s.provider
}

// DemeanorCapability says whether photos can be assessed, so that a page
// offers the camera only when they can.
type DemeanorCapability struct {
	Available bool `json:"available"`
	// ReasonCode is "no-vision" when the model serving the demeanor stage
	// cannot see images (the offline model never can); "" when available.
	ReasonCode string `json:"reasonCode,omitempty"`
	// Reason is ReasonCode as one sentence, in the session's language
	// (English without a session).
	Reason string `json:"reason,omitempty"`
}

// Demeanor capability reason codes.
const ReasonNoVision = "no-vision"

// DemeanorCapabilityIn reports whether demeanor can be assessed, worded in
// lang.
func (s *Service) DemeanorCapabilityIn(ctx context.Context, lang string) DemeanorCapability {
	if s.demeanorProvider(ctx).SupportsVision() {
		return DemeanorCapability{Available: true}
	}
	return DemeanorCapability{ReasonCode: ReasonNoVision, Reason: demeanorNotAssessed(lang)}
}

// Capabilities is what the interview page needs to know of the server.
type Capabilities struct {
	Offline  bool               `json:"offline"`
	Demeanor DemeanorCapability `json:"demeanor"`
}

// Capabilities reports the server's interview capabilities, worded in
// lang (LangEN when not LangZH).
func (s *Service) Capabilities(ctx context.Context, lang string) Capabilities {
	return Capabilities{Offline: s.provider.Offline(), Demeanor: s.DemeanorCapabilityIn(ctx, lang)}
}

// meanScore is the rounded mean, nil for none.
func meanScore(xs []int) *int {
	if len(xs) == 0 {
		return nil
	}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	m := int(math.Round(float64(sum) / float64(len(xs))))
	return &m
}

// Finish ends the interview and writes the report, once: a second finish
// returns the same report.
func (s *Service) Finish(ctx context.Context, userID, sessionID string) (Report, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return Report{}, err
	}
	switch st.sess.Status {
	case SessionFinished:
		return s.store.Report(ctx, userID, sessionID)
	case SessionReady, SessionInProgress:
	default:
		return Report{}, invalidState("only a started interview can be finished (session is %s)", st.sess.Status)
	}
	if st.sess.Flow == FlowEvaluating {
		return Report{}, invalidState("an answer is still being evaluated; finish when it is done")
	}
	now := s.now()
	rep, err := s.buildReport(ctx, st, now, true)
	if err != nil {
		return Report{}, err
	}
	if _, err := s.store.FinishSession(context.WithoutCancel(ctx), st.sess, rep, now); err != nil {
		return Report{}, err
	}
	// Whoever won the race wrote the report; everyone returns that one.
	return s.store.Report(ctx, userID, sessionID)
}

// radarOf computes the radar of a session from its current data.
func (s *Service) radarOf(ctx context.Context, st state) (Radar, error) {
	composites, err := s.store.DemeanorComposites(ctx, st.sess.ID)
	if err != nil {
		return Radar{}, err
	}
	return ComputeRadar(st.sess.ResumeScore, SessionScore(st.mainScores()), meanScore(composites)), nil
}

// radarLabels names the radar axes in display order.
var radarLabels = []struct{ key, label string }{
	{"resumeScore", "Resume"}, {"interviewPerformance", "Interview"}, {"demeanorEvaluation", "Demeanor"},
	{"professionalSkills", "Professional skills"}, {"potentialIndex", "Potential"},
}

// Dimensions lists the radar's axes with their scores, labelled in English.
func (r Radar) Dimensions() []RadarDimension { return r.DimensionsIn(LangEN) }

// DimensionsIn lists the radar's axes with their scores, labelled in lang.
func (r Radar) DimensionsIn(lang string) []RadarDimension {
	vals := map[string]*int{"resumeScore": r.ResumeScore, "interviewPerformance": r.InterviewPerformance,
		"demeanorEvaluation": r.DemeanorEvaluation, "professionalSkills": r.ProfessionalSkills, "potentialIndex": r.PotentialIndex}
	out := make([]RadarDimension, len(radarLabels))
	for i, l := range radarLabels {
		out[i] = RadarDimension{Key: l.key, Label: l.label, Score: vals[l.key]}
		if lang == LangZH {
			out[i].Label = radarLabelZH[l.key]
		}
	}
	return out
}

// buildReport computes the report of st as of now: final (the interview is
// being finished) or live (what is known so far).
func (s *Service) buildReport(ctx context.Context, st state, now time.Time, final bool) (Report, error) {
	radar, err := s.radarOf(ctx, st)
	if err != nil {
		return Report{}, err
	}
	lang := sessionLanguage(st.sess)
	rep := Report{ID: st.sess.ID, UserID: st.sess.UserID, SessionID: st.sess.ID, Final: final,
		CreateTime: st.sess.CreatedAt.UTC().Format(time.RFC3339), UpdateTime: st.sess.UpdatedAt.UTC().Format(time.RFC3339),
		InterviewScore: radar.InterviewPerformance, ResumeScore: st.sess.ResumeScore,
		DemeanorScore: radar.DemeanorEvaluation, InterviewStatus: st.sess.Status, InterviewDirection: st.sess.InterviewType,
		RadarChart: radar, RadarDimensions: radar.DimensionsIn(lang), Offline: st.sess.Offline,
		PlaybackItems: []PlaybackItem{}, InterviewSuggestions: append([]string{}, st.sess.Suggestions...),
		Suggestions: numbered(st.sess.Suggestions)}
	if final {
		rep.InterviewStatus, rep.EndTime, rep.UpdateTime = SessionFinished, now.Format(time.RFC3339), now.Format(time.RFC3339)
	}
	if st.sess.StartedAt != nil || final {
		start := st.sess.CreatedAt
		if st.sess.StartedAt != nil {
			start = *st.sess.StartedAt
		}
		rep.StartTime = start.UTC().Format(time.RFC3339)
		duration := max(int64(now.Sub(start).Seconds()), 0)
		rep.DurationSeconds = &duration
	}
	var summaries []TurnSummary
	for _, q := range st.questions {
		if !q.IsFollow {
			rep.QuestionCount++
		}
	}
	for _, t := range st.turns {
		if t.Status != TurnDone || t.Scored == nil {
			continue
		}
		q, _ := st.question(t.QuestionNumber)
		rep.PlaybackItems = append(rep.PlaybackItems, playbackItem(len(rep.PlaybackItems)+1, lang, q, t))
		if t.Scored.Hidden == "" { // a score the evidence cannot support grades nothing
			summaries = append(summaries, TurnSummary{QuestionNumber: t.QuestionNumber, Question: q.Content,
				Feedback: withoutReviewNotice(lang, t), Score: t.Scored.Score, IsFollowUp: q.IsFollow})
		}
	}
	rep.AnsweredCount = len(rep.PlaybackItems)
	if rep.AnsweredCount == 0 {
		// Nothing to score or time: null with a reason, never "0 min".
		rep.DurationSeconds = nil
		rep.NotAssessedReason = textsIn(lang).noAnswers
	}
	rep.ReviewFeedback = BuildReviewFeedbackIn(lang, radar, summaries, st.sess.Suggestions)
	return rep, nil
}

// playbackItem is turn t (the answer to q) as the report's seq-th item.
func playbackItem(seq int, lang string, q Question, t Turn) PlaybackItem {
	it := PlaybackItem{Seq: seq, QuestionNumber: t.QuestionNumber, QuestionContent: q.Content, AnswerContent: t.Answer,
		Feedback: t.Feedback, IsFollowUp: q.IsFollow, ParentNumber: q.ParentNo, NeedsReview: t.Scored.NeedsReview,
		ScoreReason: t.Scored.Reason, AnsweredAt: t.UpdatedAt.UTC().Format(time.RFC3339), Timestamp: t.UpdatedAt.UnixMilli(),
		RequestID: t.RequestID, FollowUpNeeded: t.FollowUp != nil && t.FollowUp.Ask}
	it.Strengths, it.Improvements = answerPoints(lang, q, t)
	if t.Scored.Hidden != "" {
		it.ScoreHidden = hiddenScoreText(lang)
	} else {
		score := t.Scored.Score
		it.Score, it.Level, it.LevelText = &score, t.Scored.Level, LevelText(t.Scored.Level, lang)
	}
	if r := t.Response; r != nil { // what the candidate was answered with
		it.TotalScore, it.FollowUpCount, it.Finished = r.TotalScore, r.FollowUpCount, r.Finished
		it.NextQuestionNumber, it.NextQuestion = r.NextQuestionNumber, r.NextQuestion
	}
	return it
}

// RadarChart returns the session's radar: the report's once finished, else
// computed from the data so far.
func (s *Service) RadarChart(ctx context.Context, userID, sessionID string) (Radar, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return Radar{}, err
	}
	if st.sess.Status == SessionFinished {
		rep, err := s.store.Report(ctx, userID, sessionID)
		if err != nil {
			return Radar{}, err
		}
		return rep.RadarChart, nil
	}
	return s.radarOf(ctx, st)
}

// Record returns the session's report: the stored one (final) once the
// interview is finished, else the report of what is known so far (live:
// final false, null where nothing is known yet).
func (s *Service) Record(ctx context.Context, userID, sessionID string) (Report, error) {
	st, err := s.load(ctx, userID, sessionID)
	if err != nil {
		return Report{}, err
	}
	if st.sess.Status == SessionFinished {
		return s.store.Report(ctx, userID, sessionID)
	}
	return s.buildReport(ctx, st, s.now(), false)
}

// Records lists the user's reports.
func (s *Service) Records(ctx context.Context, userID string, p page.Request, f RecordFilter) (page.Result[Report], error) {
	for _, v := range []*int{f.MinScore, f.MaxScore} {
		if v != nil && (*v < 0 || *v > 100) {
			return page.Result[Report]{}, apperr.Invalid("minScore and maxScore must be between 0 and 100")
		}
	}
	f.SessionID = strings.TrimSpace(f.SessionID)
	if len(f.SessionID) > 64 {
		return page.Result[Report]{}, apperr.Invalid("sessionId must be at most 64 characters")
	}
	f.Direction = strings.TrimSpace(f.Direction)
	if len(f.Direction) > 128 {
		return page.Result[Report]{}, apperr.Invalid("interviewDirection must be at most 128 characters")
	}
	return s.store.PageReports(ctx, userID, p.Normalize(), f)
}

// RadarSVG draws the radar as a standalone SVG: five axes, rings at every
// 20 points, the score polygon, and each axis labelled with its score
// ("n/a", in Chinese "未评估", for an absent input, drawn at the centre).
func RadarSVG(r Radar) []byte { return RadarSVGIn(r, LangEN) }

// radarFonts is the page's font stack (web/static/css/app.css): the SVG is
// shown as an image, so a bare "sans-serif" let the browser pick any
// installed CJK font for the Chinese labels, often a serif one.
const radarFonts = `system-ui, -apple-system, &quot;Segoe UI&quot;, Roboto, &quot;Noto Sans&quot;, &quot;Noto Sans CJK SC&quot;, &quot;PingFang SC&quot;, &quot;Microsoft YaHei&quot;, sans-serif`

// RadarSVGIn is RadarSVG with the axes, the absent scores and the label of
// the picture in lang.
func RadarSVGIn(r Radar, lang string) []byte {
	const size, cx, cy, radius = 420.0, 210.0, 200.0, 140.0
	dims := r.DimensionsIn(lang)
	title, absent := "Interview radar chart", "n/a"
	if lang == LangZH {
		title, absent = "面试雷达图", "未评估"
	}
	n := float64(len(dims))
	point := func(i int, frac float64) (float64, float64) {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/n
		return cx + radius*frac*math.Cos(a), cy + radius*frac*math.Sin(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" lang="%s" aria-label="%s" font-family="%s">`, size, size, size, size, lang, title, radarFonts)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>`)
	for ring := 1; ring <= 5; ring++ {
		var pts []string
		for i := range dims {
			x, y := point(i, float64(ring)/5)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		fmt.Fprintf(&b, `<polygon points="%s" fill="none" stroke="#d0d7de" stroke-width="1"/>`, strings.Join(pts, " "))
	}
	var poly []string
	for i, d := range dims {
		x, y := point(i, 1)
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.1f" y2="%.1f" stroke="#d0d7de"/>`, cx, cy, x, y)
		frac := 0.0
		if d.Score != nil {
			frac = float64(*d.Score) / 100
		}
		px, py := point(i, frac)
		poly = append(poly, fmt.Sprintf("%.1f,%.1f", px, py))
	}
	fmt.Fprintf(&b, `<polygon points="%s" fill="rgba(37,99,235,0.25)" stroke="#2563eb" stroke-width="2"/>`, strings.Join(poly, " "))
	for i, d := range dims {
		x, y := point(i, 1.18)
		value := absent
		if d.Score != nil {
			value = fmt.Sprint(*d.Score)
			px, py := point(i, float64(*d.Score)/100)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#2563eb"/>`, px, py)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="#1f2328">%s</text>`, x, y, d.Label)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="12" font-weight="bold" fill="#2563eb">%s</text>`, x, y+15, value)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}
