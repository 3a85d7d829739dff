// doctext patch: this file is not in upstream. It decodes shown strings into
// text and glyph widths for every kind of font (PDF 32000 §9.6-9.10), where
// upstream's Font.Encoder ignored ToUnicode for simple and Type3 fonts, read
// only one byte per code of some composite fonts and knew no widths.

package pdf

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Bounds on what a font may make us store, whatever the file declares.
const (
	maxCMapEntries  = 1 << 17 // code → text entries of one ToUnicode CMap
	maxRangeEntries = 1 << 16 // codes expanded from one bfrange
	maxWidthEntries = 1 << 16 // CID widths of one /W array
	maxCodespaces   = 64      // codespace ranges of one CMap
)

// A Glyph is one character code of a shown string, decoded.
type Glyph struct {
	// Text is the Unicode text of the code; empty if the font does not
	// say and nothing can be guessed, several runes for ligatures.
	Text string
	// Width is the horizontal advance in text space units for a font
	// size of 1 (the glyph-space width times the font matrix).
	Width float64
	// Space reports a single-byte code 32, the one word spacing (Tw)
	// applies to.
	Space bool
	// Estimated reports that the font gives no widths (a standard 14 font
	// without /Widths) and Width is a guess of half an em.
	Estimated bool
}

// A Decoder splits shown strings of one font into glyphs.
type Decoder struct {
	composite bool
	space     []codespace       // code lengths; empty means one byte each
	toUni     map[string]string // ToUnicode: raw code → text
	simple    *[256]string      // simple fonts without ToUnicode entry: code → text
	ucs2      bool              // composite font whose codes are UTF-16BE
	legacy    encoding.Encoding // composite font whose codes are GBK, Big5, Shift-JIS…
	widths    map[int]float64   // composite: CID → width (glyph space)
	dw        float64           // composite: default width
	sw        []float64         // simple: widths from FirstChar
	first     int
	scale     float64 // glyph space → text space (0.001, or Type3's FontMatrix)
}

type codespace struct{ lo, hi []byte }

// NewDecoder returns the decoder of the font dictionary f.
func NewDecoder(ctx context.Context, f Value) *Decoder {
	d := &Decoder{scale: 0.001, dw: 1000}
	if f.Key("Subtype").Name() == "Type3" {
		if m := f.Key("FontMatrix"); m.Len() == 6 {
			if a := m.Index(0).Float64(); a != 0 && finite(a) {
				d.scale = abs(a)
			}
		}
	}
	cm := readToUnicode(ctx, f.Key("ToUnicode"))
	if cm != nil {
		d.toUni = cm.m
	}
	if f.Key("Subtype").Name() == "Type0" {
		d.composite = true
		d.initComposite(ctx, f, cm)
		return d
	}
	d.first = int(f.Key("FirstChar").Int64())
	w := f.Key("Widths")
	for i := 0; i < w.Len() && i < 256; i++ {
		d.sw = append(d.sw, w.Index(i).Float64())
	}
	d.simple = simpleEncoding(f)
	return d
}

func (d *Decoder) initComposite(ctx context.Context, f Value, cm *toUnicodeCMap) {
	two := []codespace{{[]byte{0, 0}, []byte{0xff, 0xff}}}
	enc := f.Key("Encoding")
	switch {
	case enc.Kind() == Stream:
		if m := readCMap(ctx, enc); m != nil && len(m.space) > 0 {
			d.space = m.space
		} else {
			d.space = two
		}
	case strings.HasPrefix(enc.Name(), "Identity-"):
		d.space = two
	case strings.Contains(enc.Name(), "UCS2") || strings.Contains(enc.Name(), "UTF16"):
		d.space, d.ucs2 = two, true
	case legacyCMaps[strings.TrimSuffix(strings.TrimSuffix(enc.Name(), "-H"), "-V")] != nil:
		// Predefined CMaps over a national encoding (GBK-EUC-H and the
		// like, PDF 32000 Table 118): the codes are that encoding's bytes.
		d.legacy = legacyCMaps[strings.TrimSuffix(strings.TrimSuffix(enc.Name(), "-H"), "-V")]
		d.space = []codespace{{[]byte{0}, []byte{0x80}}, {[]byte{0x81, 0x40}, []byte{0xfe, 0xff}}}
		if d.legacy == japanese.ShiftJIS {
			d.space = []codespace{{[]byte{0}, []byte{0x80}}, {[]byte{0xa0}, []byte{0xdf}},
				{[]byte{0x81, 0x40}, []byte{0x9f, 0xfc}}, {[]byte{0xe0, 0x40}, []byte{0xfc, 0xfc}}}
		}
	case cm != nil && len(cm.space) > 0:
		d.space = cm.space
	default:
		// Predefined multi-byte CMaps (GBK-EUC-H and the like): ASCII
		// bytes stand alone, others start a two-byte code.
		d.space = []codespace{{[]byte{0}, []byte{0x80}}, {[]byte{0x81, 0x40}, []byte{0xfe, 0xff}}}
	}
	desc := f.Key("DescendantFonts").Index(0)
	if dw := desc.Key("DW"); dw.Kind() == Integer || dw.Kind() == Real {
		d.dw = dw.Float64()
	}
	d.widths = cidWidths(desc.Key("W"))
}

// legacyCMaps are the predefined CMaps (without -H or -V) whose codes are
// those of a national character encoding.
var legacyCMaps = map[string]encoding.Encoding{
	"GB-EUC": simplifiedchinese.GBK, "GBpc-EUC": simplifiedchinese.GBK,
	"GBK-EUC": simplifiedchinese.GBK, "GBKp-EUC": simplifiedchinese.GBK,
	"GBK2K": simplifiedchinese.GB18030,
	"B5pc":  traditionalchinese.Big5, "ETen-B5": traditionalchinese.Big5,
	"ETenms-B5": traditionalchinese.Big5, "HKscs-B5": traditionalchinese.Big5,
	"83pv-RKSJ": japanese.ShiftJIS, "90ms-RKSJ": japanese.ShiftJIS,
	"90msp-RKSJ": japanese.ShiftJIS, "90pv-RKSJ": japanese.ShiftJIS,
	"EUC":     japanese.EUCJP,
	"KSC-EUC": korean.EUCKR, "KSCms-UHC": korean.EUCKR, "KSCpc-EUC": korean.EUCKR,
}

// cidWidths reads a /W array: c [w1 w2 …] and c1 c2 w entries.
func cidWidths(w Value) map[int]float64 {
	m := make(map[int]float64)
	for i := 0; i+1 < w.Len() && len(m) < maxWidthEntries; {
		c := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == Array {
			for j := 0; j < next.Len() && len(m) < maxWidthEntries; j++ {
				m[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		hi, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for c2 := c; c2 <= hi && c2-c < maxRangeEntries && len(m) < maxWidthEntries; c2++ {
			m[c2] = width
		}
		i += 3
	}
	return m
}

// Decode splits raw into glyphs and calls fn with each.
func (d *Decoder) Decode(raw string, fn func(Glyph)) {
	for len(raw) > 0 {
		n := d.codeLen(raw)
		code := raw[:n]
		raw = raw[n:]
		var g Glyph
		var text string
		var ok bool
		if d.toUni != nil {
			text, ok = d.toUni[code]
		}
		c := 0
		for i := 0; i < len(code); i++ {
			c = c<<8 | int(code[i])
		}
		if d.composite {
			if !ok && d.ucs2 {
				text, ok = utf16Decode(code), true
			}
			if !ok && d.legacy != nil {
				if t, err := d.legacy.NewDecoder().String(code); err == nil && t != "\uFFFD" {
					text, ok = t, true
				}
			}
			w, found := d.widths[c]
			if !found {
				w = d.dw
			}
			g.Width = w * d.scale
		} else {
			if !ok {
				text = d.simple[c&0xff]
			}
			if i := c - d.first; i >= 0 && i < len(d.sw) {
				g.Width = d.sw[i] * d.scale
			} else if len(d.sw) == 0 {
				g.Width, g.Estimated = 0.5, true
			}
			g.Space = n == 1 && c == 32
		}
		if !finite(g.Width) {
			g.Width = 0
		}
		g.Text = text
		fn(g)
	}
}

// codeLen is the length of the code at the start of raw (PDF 32000 §9.7.6.2).
func (d *Decoder) codeLen(raw string) int {
	if len(d.space) == 0 {
		return 1
	}
	shortest := 4
	for n := 1; n <= 4 && n <= len(raw); n++ {
		for _, s := range d.space {
			if len(s.lo) != n {
				continue
			}
			shortest = min(shortest, n)
			if inSpace(raw[:n], s) {
				return n
			}
		}
	}
	for _, s := range d.space {
		shortest = min(shortest, len(s.lo))
	}
	return max(1, min(shortest, len(raw)))
}

func inSpace(code string, s codespace) bool {
	for i := 0; i < len(code); i++ {
		if code[i] < s.lo[i] || code[i] > s.hi[i] {
			return false
		}
	}
	return true
}

// simpleEncoding maps the one-byte codes of a simple font to text: a base
// encoding (StandardEncoding, approximated by WinAnsi, where none is named)
// changed by /Differences glyph names.
func simpleEncoding(f Value) *[256]string {
	var t [256]string
	base := &winAnsiEncoding
	enc := f.Key("Encoding")
	name := enc.Name()
	if enc.Kind() == Dict {
		name = enc.Key("BaseEncoding").Name()
	}
	switch name {
	case "MacRomanEncoding":
		base = &macRomanEncoding
	case "PDFDocEncoding":
		base = &pdfDocEncoding
	}
	for i, r := range base {
		if r != 0 && r != noRune {
			t[i] = string(r)
		}
	}
	diff := enc.Key("Differences")
	code := -1
	for i := 0; i < diff.Len() && i < 4096; i++ {
		switch x := diff.Index(i); x.Kind() {
		case Integer:
			code = int(x.Int64())
		case Name:
			if code >= 0 && code < 256 {
				if s, ok := glyphText(x.Name()); ok {
					t[code] = s
				}
			}
			code++
		}
	}
	return &t
}

// glyphText is the text of a glyph name: the Adobe Glyph List, uniXXXX,
// uXXXX[XX] and ligature names such as f_i (Adobe Glyph List specification).
func glyphText(name string) (string, bool) {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i] // a.sc, one.oldstyle
	}
	if r, ok := nameToRune[name]; ok {
		return string(r), true
	}
	switch name {
	case "ff", "fi", "fl", "ffi", "ffl":
		return name, true
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			s, ok := glyphText(part)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var units []uint16
		for i := 3; i < len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 16)
			if err != nil {
				return "", false
			}
			units = append(units, uint16(v))
		}
		return string(utf16.Decode(units)), true
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7 {
		v, err := strconv.ParseUint(name[1:], 16, 32)
		if err == nil && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) {
			return string(rune(v)), true
		}
	}
	return "", false
}

// toUnicodeCMap is a parsed ToUnicode (or encoding) CMap.
type toUnicodeCMap struct {
	space []codespace
	m     map[string]string
}

func readToUnicode(ctx context.Context, v Value) *toUnicodeCMap {
	if v.Kind() != Stream {
		return nil
	}
	return readCMap(ctx, v)
}

// readCMap parses the codespace ranges, bfchar and bfrange entries of a CMap
// stream (Adobe Technical Note #5014 and #5099). Destinations are UTF-16BE;
// a bfrange destination string counts up in its last character, an array
// lists one destination per code. A malformed CMap gives what was read
// before the damage, or nil.
func readCMap(ctx context.Context, v Value) (cm *toUnicodeCMap) {
	cm = &toUnicodeCMap{m: make(map[string]string)}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(ContextError); ok {
				panic(r)
			}
			if len(cm.m) == 0 && len(cm.space) == 0 {
				cm = nil
			}
		}
	}()
	base := -1 // stack height at the last begin… operator
	InterpretContext(ctx, v, func(stk *Stack, op string) {
		switch op {
		case "findresource": // /CIDInit /ProcSet findresource begin
			stk.Pop()
			stk.Pop()
			stk.Push(newDict())
			return
		case "defineresource":
			stk.Pop()
			value := stk.Pop()
			stk.Pop()
			stk.Push(value)
			return
		case "begincodespacerange", "beginbfchar", "beginbfrange", "begincidrange", "begincidchar", "beginnotdefrange":
			stk.Pop() // the entry count; the operands up to end… are trusted instead
			base = stk.Len()
			return
		case "endcodespacerange", "endbfchar", "endbfrange", "endcidrange", "endcidchar", "endnotdefrange":
		default:
			return
		}
		if base < 0 || stk.Len() < base {
			base = -1
			return
		}
		args := make([]Value, stk.Len()-base)
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		base = -1
		switch op {
		case "endcodespacerange":
			for i := 0; i+1 < len(args) && len(cm.space) < maxCodespaces; i += 2 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
					continue
				}
				cm.space = append(cm.space, codespace{[]byte(lo), []byte(hi)})
			}
		case "endbfchar":
			for i := 0; i+1 < len(args) && len(cm.m) < maxCMapEntries; i += 2 {
				src := args[i].RawString()
				if dst := args[i+1]; dst.Kind() == String && src != "" {
					cm.m[src] = utf16Decode(dst.RawString())
				} else if dst.Kind() == Name {
					if s, ok := glyphText(dst.Name()); ok {
						cm.m[src] = s
					}
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(args) && len(cm.m) < maxCMapEntries; i += 3 {
				cm.addRange(args[i].RawString(), args[i+1].RawString(), args[i+2])
			}
		}
	})
	if len(cm.m) == 0 && len(cm.space) == 0 {
		return nil
	}
	return cm
}

func (cm *toUnicodeCMap) addRange(lo, hi string, dst Value) {
	if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) || lo > hi {
		return
	}
	start, end := codeInt(lo), codeInt(hi)
	var base []rune
	if dst.Kind() == String {
		base = []rune(utf16Decode(dst.RawString()))
		if len(base) == 0 {
			return
		}
	}
	for c, i := start, 0; c <= end && i < maxRangeEntries && len(cm.m) < maxCMapEntries; c, i = c+1, i+1 {
		code := intCode(c, len(lo))
		switch dst.Kind() {
		case String:
			r := append([]rune(nil), base...)
			r[len(r)-1] += rune(i)
			cm.m[code] = string(r)
		case Array:
			if i >= dst.Len() {
				return
			}
			if x := dst.Index(i); x.Kind() == String {
				cm.m[code] = utf16Decode(x.RawString())
			}
		default:
			return
		}
	}
}

func codeInt(s string) int {
	c := 0
	for i := 0; i < len(s); i++ {
		c = c<<8 | int(s[i])
	}
	return c
}

func intCode(c, n int) string {
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(c)
		c >>= 8
	}
	return string(b)
}

func finite(f float64) bool { return f == f && f-f == 0 }

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// A FontCache holds the decoders of the fonts read so far, so that a font
// used on many pages is parsed once.
type FontCache map[fontKey]*Decoder

type fontKey struct {
	ptr  objptr
	name string
}

// Decoder returns the decoder of font f, known in its resources as name.
// An inline font is known by the object holding it and its name.
func (c FontCache) Decoder(ctx context.Context, name string, f Value) *Decoder {
	k := fontKey{f.ptr, name}
	if d, ok := c[k]; ok {
		return d
	}
	d := NewDecoder(ctx, f)
	c[k] = d
	return d
}
