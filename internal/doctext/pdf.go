package doctext

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/doctext/internal/pdf"
)

const (
	// maxPageTreeDepth bounds the nesting of the page tree; real files use a
	// handful of levels, and a cyclic tree must not recurse forever.
	maxPageTreeDepth = 32
	// pageTreeVisitsPerPage bounds the page-tree nodes visited per page
	// read, so a tree of empty or cyclic nodes cannot keep us busy.
	pageTreeVisitsPerPage = 8
)

// extractPDF returns the text of at most opts.MaxPages pages of data, one
// string per page in page order ("" for a page without text), the page count
// the file declares, whether pages or characters were left out and which
// reader read the text (ReaderGo or ReaderPdftotext). The Go reader reads
// first; when it fails or finds no text and pdftotext is installed (and
// opts.PureGo is not set), pdftotext gets a try, and its error is dropped for
// the Go reader's clearer one. opts.PreferPdftotext swaps the order. A done
// ctx stops either reader with an error wrapping ctx.Err().
//
// The Go reader goes first because it measured better on real resumes
// (testdata/pdf): pdftotext -raw runs the words of Chrome's Type3 fonts
// together, and its default mode interleaves the lines of two columns.
func extractPDF(ctx context.Context, data []byte, name string, opts Options) (pages []string, declared int, truncated bool, reader string, err error) {
	poppler := !opts.PureGo && pdftotextPath() != "" && !bytes.Contains(data, []byte("/Encrypt"))
	if poppler && opts.PreferPdftotext {
		pages, declared, truncated, err = extractPoppler(ctx, data, opts)
		if err == nil {
			return pages, declared, truncated, ReaderPdftotext, nil
		}
		if ctx.Err() != nil {
			return nil, 0, false, "", tooSlow(name).WithCause(ctx.Err())
		}
		poppler = false
	}
	pages, declared, truncated, err = extractPDFGo(ctx, data, name, opts)
	if poppler && ctx.Err() == nil && (err != nil || !hasText(pages)) {
		if p, d, t, perr := extractPoppler(ctx, data, opts); perr == nil {
			return p, d, t, ReaderPdftotext, nil
		}
	}
	return pages, declared, truncated, ReaderGo, err
}

func hasText(pages []string) bool {
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}

// extractPDFGo is extractPDF with the pure-Go reader.
func extractPDFGo(ctx context.Context, data []byte, name string, opts Options) (pages []string, declared int, truncated bool, err error) {
	data = acceptPDF2(data)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if isEncryptionError(err, data) {
			return nil, 0, false, encrypted(name).WithCause(err)
		}
		return nil, 0, false, unreadable(KindPDF, name).WithCause(err)
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		// Even files that open with an empty password are rejected: their
		// decryption support in the library is weak, and a clear message
		// beats garbled text.
		return nil, 0, false, encrypted(name)
	}

	list, more := collectPages(r.Trailer().Key("Root").Key("Pages"), opts.MaxPages)
	declared = r.NumPage()
	if declared < len(list) || declared > len(list) && !more {
		declared = len(list) // the declared count is wrong; trust the tree
	}

	var firstErr error
	any := false
	// Read more runes than are kept: normalising drops layout whitespace,
	// and Extract cuts the result to MaxChars exactly.
	budget := 2*opts.MaxChars + 1
	fonts := make(pdf.FontCache) // shared by pages: fonts are parsed once
	for _, p := range list {
		if budget <= 0 {
			truncated = true
			break
		}
		t, full, err := pageText(ctx, p, budget, fonts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, false, tooSlow(name).WithCause(ctx.Err())
			}
			// Keep what the other pages give; fail only if none does.
			if firstErr == nil {
				firstErr = err
			}
			t = ""
		}
		pages = append(pages, t)
		any = any || strings.TrimSpace(t) != ""
		if full {
			truncated = true
			break
		}
		budget -= utf8.RuneCountInString(t)
	}
	if !any && firstErr != nil {
		return nil, 0, false, unreadable(KindPDF, name).WithCause(firstErr)
	}
	return pages, declared, truncated || more, nil
}

// collectPages walks the page tree under root in order and returns at most
// max pages, and whether the tree holds more.
func collectPages(root pdf.Value, max int) (pages []pdf.Page, more bool) {
	budget := max*pageTreeVisitsPerPage + 64
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if more || budget <= 0 || depth > maxPageTreeDepth || v.Kind() != pdf.Dict {
			return
		}
		budget--
		kids := v.Key("Kids")
		if kids.Kind() == pdf.Array && v.Key("Type").Name() != "Page" {
			for i := 0; i < kids.Len() && !more && budget > 0; i++ {
				walk(kids.Index(i), depth+1)
			}
			return
		}
		if len(pages) == max {
			more = true
			return
		}
		pages = append(pages, pdf.Page{V: v})
	}
	walk(root, 0)
	return pages, more
}

// acceptPDF2 relabels a PDF 2.0 header as 1.7, which the library refuses
// although it reads the rest of such files like any other. The header has the
// same length, so no offset moves. data is not modified.
func acceptPDF2(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte("%PDF-2.")) || len(data) < 8 {
		return data
	}
	c := bytes.Clone(data)
	copy(c[5:8], "1.7")
	return c
}

// isEncryptionError reports whether the library failed to open data because
// it is encrypted. Some of its encryption errors (a missing /ID, say) do not
// say so, and the trailer is not reachable once opening failed, so a failure
// on a file that names an /Encrypt dictionary counts too.
func isEncryptionError(err error, data []byte) bool {
	return errors.Is(err, pdf.ErrInvalidPassword) ||
		strings.Contains(strings.ToLower(err.Error()), "encrypt") ||
		bytes.Contains(data, []byte("/Encrypt"))
}

func tooSlow(name string) *apperr.Error {
	return unprocessable("%sthe PDF took too long to read (it may be very large or complex): upload a shorter PDF, or a TXT file", prefix(name))
}

func encrypted(name string) *apperr.Error {
	return unprocessable("%sthe PDF is encrypted: remove the password or protection, or export it again without it, and upload the new file", prefix(name))
}

// errPageFull stops the content interpreter once a page has given enough text.
var errPageFull = errors.New("doctext: text budget reached")

const (
	// estimatedWordGap is the TJ adjustment, in thousandths of an em,
	// read as a space between words in a font without widths.
	estimatedWordGap = 200
	// maxGraphicsDepth bounds the q/Q save stack; deeper saves are ignored.
	maxGraphicsDepth = 256
	// maxFormDepth bounds the nesting of form XObjects drawn with Do.
	maxFormDepth = 8
	// maxFormsPerPage bounds the form XObjects drawn per page, so one form
	// drawn a million times is not interpreted a million times.
	maxFormsPerPage = 256
)

// A matrix is a PDF transformation matrix [a b c d e f] (PDF 32000 §8.3.3).
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// gstate is the part of the graphics state text extraction needs.
type gstate struct {
	ctm                        matrix
	font                       *pdf.Decoder
	size, tc, tw, th, tl, rise float64
}

// A glyph is one decoded character code placed on the page, in default user
// space (y grows upwards).
type glyph struct {
	x0, x1, y, size float64
	text            string
	// estimated: the font has no widths, so x1 is a guess; moved: text
	// was positioned (Td, Tm, a wide TJ gap…) since the previous glyph.
	// Together they stand for the glyph gap in telling words apart.
	estimated, moved bool
}

// pageText returns the text shown on p, at most budget runes, and whether it
// stopped at the budget. It interprets the content stream (and the form
// XObjects it draws) to place every glyph on the page, then puts the glyphs
// in reading order (see layout). A done ctx stops it with ctx.Err().
func pageText(ctx context.Context, p pdf.Page, budget int, fonts pdf.FontCache) (text string, full bool, err error) {
	contents := p.V.Key("Contents")
	if p.V.IsNull() || contents.IsNull() || budget <= 0 {
		return "", budget <= 0, nil
	}
	c := &collector{ctx: ctx, fonts: fonts, budget: budget}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if r == errPageFull { //nolint:errorlint // our own sentinel, not wrapped
					full = true
					return
				}
				if ce, ok := r.(pdf.ContextError); ok {
					err = ce
					return
				}
				err = fmt.Errorf("malformed PDF page: %v", r)
			}
		}()
		c.run(contents, p.Resources(), gstate{ctm: identity, th: 1}, 0)
	}()
	if err != nil {
		if len(c.glyphs) == 0 || ctx.Err() != nil {
			return "", false, err
		}
		err = nil // keep what was read before the damage
	}
	text, lerr := layout(ctx, c.glyphs)
	if lerr != nil {
		return "", false, lerr
	}
	return text, full, nil
}

// collector interprets content streams and collects the glyphs they show.
type collector struct {
	ctx    context.Context
	fonts  pdf.FontCache
	glyphs []glyph
	runes  int // runes collected
	budget int
	forms  int // form XObjects drawn
}

func num(v pdf.Value) float64 {
	f := v.Float64()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// run interprets one content stream with its resources, starting from g.
func (c *collector) run(contents, res pdf.Value, g gstate, depth int) {
	var stack []gstate
	tm, tlm := identity, identity
	moved := false
	show := func(raw string) {
		if g.font == nil {
			return
		}
		g.font.Decode(raw, func(gl pdf.Glyph) {
			m := tm.mul(g.ctm)
			x0, y := m.apply(0, g.rise)
			x1, _ := m.apply(gl.Width*g.size*g.th, g.rise)
			size := math.Abs(g.size) * math.Sqrt(math.Abs(m[0]*m[3]-m[1]*m[2]))
			if gl.Text != "" && finite(x0, x1, y, size) {
				c.add(glyph{x0: min(x0, x1), x1: max(x0, x1), y: y, size: size, text: gl.Text,
					estimated: gl.Estimated, moved: moved})
				moved = false
			}
			adv := gl.Width*g.size + g.tc
			if gl.Space {
				adv += g.tw
			}
			tm = matrix{1, 0, 0, 1, adv * g.th, 0}.mul(tm)
		})
	}
	nextLine := func() {
		tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(tlm)
		tm = tlm
		moved = true
	}
	pdf.InterpretContext(c.ctx, contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "q":
			if len(stack) < maxGraphicsDepth {
				stack = append(stack, g)
			}
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				var m matrix
				for i := range m {
					m[i] = num(args[i])
				}
				g.ctm = m.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
			moved = true
		case "Tc":
			if len(args) == 1 {
				g.tc = num(args[0])
			}
		case "Tw":
			if len(args) == 1 {
				g.tw = num(args[0])
			}
		case "Tz":
			if len(args) == 1 {
				g.th = num(args[0]) / 100
			}
		case "TL":
			if len(args) == 1 {
				g.tl = num(args[0])
			}
		case "Ts":
			if len(args) == 1 {
				g.rise = num(args[0])
			}
		case "Tf":
			if len(args) != 2 {
				return
			}
			name := args[0].Name()
			g.font = c.fonts.Decoder(c.ctx, name, res.Key("Font").Key(name))
			g.size = num(args[1])
		case "Td", "TD":
			if len(args) != 2 {
				return
			}
			if op == "TD" {
				g.tl = -num(args[1])
			}
			tlm = matrix{1, 0, 0, 1, num(args[0]), num(args[1])}.mul(tlm)
			tm = tlm
			moved = true
		case "Tm":
			if len(args) == 6 {
				for i := range tlm {
					tlm[i] = num(args[i])
				}
				tm = tlm
				moved = true
			}
		case "T*":
			nextLine()
		case "'":
			nextLine()
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "\"":
			if len(args) == 3 {
				g.tw, g.tc = num(args[0]), num(args[1])
				nextLine()
				show(args[2].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				switch x := v.Index(i); x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					tm = matrix{1, 0, 0, 1, -num(x) / 1000 * g.size * g.th, 0}.mul(tm)
					moved = moved || num(x) < -estimatedWordGap
				}
			}
		case "Do":
			if len(args) != 1 || depth >= maxFormDepth || c.forms >= maxFormsPerPage {
				return
			}
			xo := res.Key("XObject").Key(args[0].Name())
			if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
				return
			}
			c.forms++
			fg := g
			if m := xo.Key("Matrix"); m.Len() == 6 {
				var fm matrix
				for i := range fm {
					fm[i] = num(m.Index(i))
				}
				fg.ctm = fm.mul(g.ctm)
			}
			fres := xo.Key("Resources")
			if fres.Kind() != pdf.Dict {
				fres = res
			}
			c.run(xo, fres, fg, depth+1)
		}
	})
}

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// add keeps g, or stops the page once the budget is spent.
func (c *collector) add(g glyph) {
	g.text = cleanGlyph(g.text)
	n := utf8.RuneCountInString(g.text)
	if c.runes+n > c.budget {
		panic(errPageFull)
	}
	c.runes += n
	c.glyphs = append(c.glyphs, g)
}

// cleanGlyph replaces presentation forms that fonts map their glyphs to with
// the characters a reader expects: the Latin ligatures (U+FB00-FB06) and
// the Kangxi and CJK radicals some CJK fonts map ideographs to.
func cleanGlyph(s string) string {
	for _, r := range s {
		if isCompat(r) {
			return strings.Map(func(r rune) rune {
				if isCompat(r) {
					if u, ok := radicalIdeograph[r]; ok {
						return u
					}
					if d := []rune(norm.NFKC.String(string(r))); len(d) == 1 {
						return d[0]
					}
				}
				return r
			}, expandLigatures.Replace(s))
		}
	}
	return s
}

// radicalIdeograph maps the CJK Radicals Supplement characters that stand
// for whole simplified (and a few Japanese) ideographs, which have no NFKC
// decomposition, to those ideographs (Unicode's
// EquivalentUnifiedIdeograph.txt). Noto Sans CJK SC, as Chromium prints
// it, maps 风 to ⻛ (U+2EDB), 门 to ⻔ and so on.
var radicalIdeograph = map[rune]rune{
	'\u2EC4': '西', '\u2EC5': '见', '\u2EC6': '角', '\u2EC8': '讠', '\u2EC9': '贝', '\u2ECB': '车',
	'\u2ECF': '阝', '\u2ED0': '钅', '\u2ED1': '長', '\u2ED3': '长', '\u2ED4': '门', '\u2ED6': '阝',
	'\u2ED7': '雨', '\u2ED8': '青', '\u2ED9': '韦', '\u2EDA': '页', '\u2EDB': '风', '\u2EDC': '飞',
	'\u2EDD': '食', '\u2EDF': '飠', '\u2EE0': '饣', '\u2EE2': '马', '\u2EE3': '骨', '\u2EE4': '鬼',
	'\u2EE5': '鱼', '\u2EE6': '鸟', '\u2EE7': '卤', '\u2EE8': '麦', '\u2EE9': '黄', '\u2EEA': '黾',
	'\u2EEB': '斉', '\u2EEC': '齐', '\u2EED': '歯', '\u2EEE': '齿', '\u2EEF': '竜', '\u2EF0': '龙',
	'\u2EF2': '亀', '\u2EF3': '龟',
}

func isCompat(r rune) bool { return r >= 0xFB00 && r <= 0xFB06 || r >= 0x2E80 && r <= 0x2FDF }

var expandLigatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")

// Layout thresholds, in multiples of the font size.
const (
	// wordGapEm is the horizontal gap between two glyphs read as a space.
	wordGapEm = 0.15
	// runGapEm is the gap beyond which glyphs on one baseline belong to
	// separate runs (table cells, columns, right-aligned dates).
	runGapEm = 1.5
	// baselineEm is how far the baseline may move within one line
	// (superscripts and subscripts stay on their line).
	baselineEm = 0.5
	// columnGapEm is the least gap between two columns, in multiples of the
	// body font size (the median size of the runs of the block).
	columnGapEm = 1.0
	// narrowGapEm is the least gap between two columns that stand side by
	// side over a tall stretch (see beside): a table cell or sidebar with
	// little padding (Chrome with 3 points of padding leaves 0.46 em). It
	// is wider than a word space (0.25 to 0.33 em in common fonts), and
	// runs on one baseline closer than runGapEm only stay apart when they
	// were drawn apart, column by column.
	narrowGapEm = 0.4
	// besideEm is the least height, in multiples of the body font size,
	// over which the two sides of a narrow gap must both hold text: four
	// lines or more at the usual line spacing.
	besideEm = 5.0
	// maxNarrowProbes bounds the narrow gaps vsplit checks with beside.
	maxNarrowProbes = 4
	// columnRuns is the least number of runs on each side of a column gap:
	// fewer is a right-aligned date, not a column.
	columnRuns = 3
	// maxCutRuns bounds the runs of a page ordered by cutting; a page with
	// more is ordered top to bottom, left to right.
	maxCutRuns = 2000
	// maxCutDepth bounds the nesting of cuts; deeper blocks are ordered
	// top to bottom, left to right.
	maxCutDepth = 64
)

// A run is text on one baseline without a wide gap: a line of one column, or
// one cell of a table row.
type run struct {
	x0, x1, y, size float64
	// ix0 and ix1 bound the ink: the glyphs other than white space, whose
	// advance (a trailing space) may reach into the gap between columns.
	ix0, ix1  float64
	ink       bool // the run has a glyph other than white space
	text      strings.Builder
	last      rune // of the text
	estimated bool // the width of the last glyph is a guess
}

func (r *run) top() float64    { return r.y + 0.85*r.size }
func (r *run) bottom() float64 { return r.y - 0.25*r.size }

// layout puts glyphs in reading order. Glyphs become runs in the order they
// were drawn, with spaces where the gap between two glyphs is wider than a
// fraction of the font size (never between CJK characters). The runs are
// then ordered by recursive XY cuts: the page is split at an empty vertical
// band between columns, or else at its widest empty horizontal band, so a
// two-column layout is read column by column, and each remaining block top
// to bottom, left to right.
func layout(ctx context.Context, glyphs []glyph) (string, error) {
	runs := makeRuns(glyphs)
	var b strings.Builder
	var err error
	steps := 0
	var cut func(rs []*run, depth int)
	cut = func(rs []*run, depth int) {
		if err != nil {
			return
		}
		if steps++; steps%64 == 0 {
			if err = ctx.Err(); err != nil {
				return
			}
		}
		if len(rs) > 1 && len(runs) <= maxCutRuns && depth < maxCutDepth {
			if a, z, ok := split(rs); ok {
				cut(a, depth+1)
				cut(z, depth+1)
				return
			}
		}
		writeBlock(&b, rs)
	}
	cut(runs, 0)
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

func makeRuns(glyphs []glyph) []*run {
	var runs []*run
	var r *run
	for _, g := range glyphs {
		first, _ := utf8.DecodeRuneInString(g.text)
		if r != nil {
			em := max(r.size, g.size)
			gap := g.x0 - r.x1
			if math.Abs(g.y-r.y) > baselineEm*em || gap > runGapEm*em || gap < -runGapEm*em {
				r = nil
			} else if r.wordGap(g, gap, em) && !unicode.IsSpace(r.last) && !unicode.IsSpace(first) &&
				!(isCJK(r.last) && isCJK(first)) {
				r.text.WriteByte(' ')
			}
		}
		if r == nil {
			r = &run{x0: g.x0, x1: g.x1, y: g.y, size: g.size}
			runs = append(runs, r)
		}
		r.text.WriteString(g.text)
		r.x0, r.x1 = min(r.x0, g.x0), max(r.x1, g.x1)
		r.size = max(r.size, g.size)
		r.last, _ = utf8.DecodeLastRuneInString(g.text)
		r.estimated = g.estimated
		if strings.TrimSpace(g.text) != "" {
			if !r.ink {
				r.ix0, r.ix1 = g.x0, g.x1
			}
			r.ix0, r.ix1, r.ink = min(r.ix0, g.x0), max(r.ix1, g.x1), true
		}
	}
	// Runs of white space only say nothing but could bridge a gap.
	return slices.DeleteFunc(runs, func(r *run) bool { return !r.ink })
}

// wordGap reports whether a space separates the run from g, gap away. Where
// a width is a guess, only a move of the text position (as by Td or a wide
// TJ adjustment) counts.
func (r *run) wordGap(g glyph, gap, em float64) bool {
	if r.estimated || g.estimated {
		return g.moved
	}
	return gap > wordGapEm*em
}

// split cuts rs at an empty band. A vertical band with columnRuns runs on
// either side separates columns and is preferred (see vsplit).
// Else a horizontal band separates what is above from what is below: the
// first one, from the top, that leaves columns on one side (a full-width
// header above two columns), or else the widest. Taking the widest first
// would go wrong on two columns whose paragraph gaps line up.
func split(rs []*run) (first, second []*run, ok bool) {
	if a, z, ok := vsplit(rs); ok {
		return a, z, true
	}
	byTop := slices.Clone(rs)
	slices.SortStableFunc(byTop, func(a, b *run) int { return cmp.Compare(b.top(), a.top()) })
	var cuts []int // indexes where a horizontal band starts
	hGap, hAt := 0.0, -1
	bottom := byTop[0].bottom()
	for i := 1; i < len(byTop); i++ {
		if g := bottom - byTop[i].top(); g > 0 {
			cuts = append(cuts, i)
			if g > hGap {
				hGap, hAt = g, i
			}
		}
		bottom = min(bottom, byTop[i].bottom())
	}
	for k, i := range cuts {
		if k == maxColumnProbes {
			break
		}
		if _, _, ok := vsplit(byTop[i:]); ok {
			return byTop[:i], byTop[i:], true
		}
		if _, _, ok := vsplit(byTop[:i]); ok {
			return byTop[:i], byTop[i:], true
		}
	}
	if hAt > 0 {
		return byTop[:hAt], byTop[hAt:], true
	}
	return nil, nil, false
}

// maxColumnProbes bounds the horizontal cuts split tries before taking the
// widest, so a page costs O(n² log n) at worst with a small factor.
const maxColumnProbes = 8

// vsplit cuts rs at the widest vertical band between columns, if any: a
// band at least columnGapEm wide, or else at least narrowGapEm wide with
// text on both sides over a tall stretch (see beside). Widths are measured
// against the body font size, not the largest, so a big name or heading
// does not hide the gutter beside the body text.
func vsplit(rs []*run) (left, rest []*run, ok bool) {
	if len(rs) < 2*columnRuns {
		return nil, nil, false
	}
	size := bodySize(rs)
	byLeft := slices.Clone(rs)
	slices.SortStableFunc(byLeft, func(a, b *run) int { return cmp.Compare(a.ix0, b.ix0) })
	type band struct {
		at  int
		gap float64
	}
	var narrow []band
	vGap, vAt := 0.0, -1
	right := byLeft[0].ix1
	for i := 1; i < len(byLeft); i++ {
		g := byLeft[i].ix0 - right
		right = max(right, byLeft[i].ix1)
		if i < columnRuns || len(byLeft)-i < columnRuns {
			continue
		}
		switch {
		case g >= columnGapEm*size && g > vGap:
			vGap, vAt = g, i
		case g >= narrowGapEm*size:
			narrow = append(narrow, band{i, g})
		}
	}
	if vAt < 0 {
		slices.SortStableFunc(narrow, func(a, b band) int { return cmp.Compare(b.gap, a.gap) })
		for k, b := range narrow {
			if k == maxNarrowProbes {
				break
			}
			if beside(byLeft[:b.at], byLeft[b.at:], size) {
				vAt = b.at
				break
			}
		}
	}
	if vAt < 0 {
		return nil, nil, false
	}
	return byLeft[:vAt], byLeft[vAt:], true
}

// bodySize is the median font size of rs.
func bodySize(rs []*run) float64 {
	sizes := make([]float64, len(rs))
	for i, r := range rs {
		sizes[i] = r.size
	}
	slices.Sort(sizes)
	return sizes[len(sizes)/2]
}

// beside reports whether two sides of a gap stand side by side: the stretch
// of the page both span is at least besideEm tall, and each side has
// columnRuns runs in it. A right-aligned date or a short caption beside a
// paragraph does not.
func beside(left, right []*run, size float64) bool {
	span := func(rs []*run) (top, bottom float64) {
		top, bottom = math.Inf(-1), math.Inf(1)
		for _, r := range rs {
			top, bottom = max(top, r.top()), min(bottom, r.bottom())
		}
		return top, bottom
	}
	lt, lb := span(left)
	rt, rb := span(right)
	top, bottom := min(lt, rt), max(lb, rb)
	if top-bottom < besideEm*size {
		return false
	}
	in := func(rs []*run) int {
		n := 0
		for _, r := range rs {
			if r.bottom() < top && r.top() > bottom {
				n++
			}
		}
		return n
	}
	return in(left) >= columnRuns && in(right) >= columnRuns
}

// writeBlock writes runs top to bottom, left to right, one line per
// baseline, and ends with a newline.
func writeBlock(b *strings.Builder, rs []*run) {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b *run) int { return cmp.Compare(b.y, a.y) })
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[i].y-rs[j].y <= baselineEm*max(rs[i].size, rs[j].size) {
			j++
		}
		line := rs[i:j]
		slices.SortStableFunc(line, func(a, b *run) int { return cmp.Compare(a.x0, b.x0) })
		for k, r := range line {
			s := r.text.String()
			if k > 0 {
				prev, _ := utf8.DecodeLastRuneInString(line[k-1].text.String())
				next, _ := utf8.DecodeRuneInString(s)
				if !(isCJK(prev) && isCJK(next)) {
					b.WriteByte(' ')
				}
			}
			b.WriteString(s)
		}
		b.WriteByte('\n')
		i = j
	}
}

// isCJK reports whether r is written without spaces between words: Han,
// kana and the CJK and full-width punctuation.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}
