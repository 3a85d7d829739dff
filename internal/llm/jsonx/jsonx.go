// Package jsonx reads the JSON object a language model wrote, leniently:
// code fences and text around the object are ignored, keys match regardless
// of case and of "_"/"-"/spaces (missing_points is missingPoints), numbers
// may come as strings ("85", "0.8", "85%"), booleans as "true"/"yes"/"1",
// and the object may be nested one level down (under "result", "data", …
// or serialised into a string field) when the top level has none of the
// expected fields. Everything here is linear-time and never panics, so it
// can run inside a guarded model call on arbitrary output.
//
// The caller owns the meaning: which fields to expect, and the error to
// return (interview wraps Find's error as a retryable upstream failure).
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// maxObjectCandidates bounds how many "{" positions are tried as the start
// of the object, so that garbage full of braces stays cheap.
const maxObjectCandidates = 16

// Object is a decoded JSON object whose keys are folded by FoldKey. Its
// getters take folded keys and return the first non-null value found.
type Object map[string]any

// FoldKey folds a key for lenient matching: lower case without "_", "-" or
// spaces.
func FoldKey(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// wrapperKeys are the fields a model nests its answer under, tried first
// and in this order; any other object-valued field is tried after them.
var wrapperKeys = []string{"result", "data", "output", "response", "answer", "content", "json", "payload", "evaluation", "message"}

// Find finds the object that content is about: the first complete JSON
// object, or an object nested one level down (under a wrapper field, or
// serialised into a string field) that has more of the expected (folded)
// keys than the top level; ties go to the top level, then to wrapperKeys
// order, then to key order.
func Find(content string, expected ...string) (Object, error) {
	top, err := FirstObject(content)
	if err != nil {
		return nil, err
	}
	names := expected
	expected = make([]string, len(names))
	for i, n := range names {
		expected[i] = FoldKey(n)
	}
	best, bestCount := top, top.Count(expected)
	if bestCount == len(expected) {
		return top, nil
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		if !slices.Contains(wrapperKeys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range append(slices.Clone(wrapperKeys), keys...) {
		var inner Object
		switch v := top[k].(type) {
		case map[string]any:
			inner = Fold(v)
		case string: // the object serialised into a string field
			inner, _ = FirstObject(v)
		}
		if n := inner.Count(expected); n > bestCount {
			best, bestCount = inner, n
		}
	}
	if bestCount == 0 {
		return nil, fmt.Errorf("none of the fields %s", strings.Join(names, ", "))
	}
	return best, nil
}

// FirstObject decodes the first balanced {...} of s that is valid JSON.
func FirstObject(s string) (Object, error) {
	b := []byte(s)
	start, tried, truncated := 0, 0, false
	for tried < maxObjectCandidates {
		i := bytes.IndexByte(b[start:], '{')
		if i < 0 {
			break
		}
		i += start
		tried++
		// A "{" that never closes may still contain a later object that
		// does (a stray quote in prose shifts the string state), so go on.
		if end := balancedEnd(b, i); end < 0 {
			truncated = true
		} else if obj, ok := decodeObject(b[i:end]); ok {
			return obj, nil
		}
		start = i + 1
	}
	switch {
	case tried == 0:
		return nil, fmt.Errorf("no JSON object")
	case truncated:
		return nil, fmt.Errorf("truncated JSON object")
	default:
		return nil, fmt.Errorf("no valid JSON object")
	}
}

// balancedEnd returns the index after the "}" that closes the "{" at
// b[start], skipping braces inside strings, or -1 when it is never closed.
func balancedEnd(b []byte, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// decodeObject decodes raw as a JSON object with numbers kept as json.Number.
func decodeObject(raw []byte) (Object, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return Fold(m), true
}

// Fold re-keys m by FoldKey; the first of two keys folding alike wins
// in sorted key order, so the result is deterministic.
func Fold(m map[string]any) Object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(Object, len(m))
	for _, k := range keys {
		if fk := FoldKey(k); fk != "" {
			if _, dup := out[fk]; !dup {
				out[fk] = m[k]
			}
		}
	}
	return out
}

// Count counts the keys under which o has a non-null value.
func (o Object) Count(keys []string) int {
	n := 0
	for _, k := range keys {
		if v, ok := o[k]; ok && v != nil {
			n++
		}
	}
	return n
}

// Lookup returns the first non-null value under one of the (folded) keys.
func (o Object) Lookup(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := o[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// Str returns the value under keys as a trimmed string; numbers and
// booleans are written out, anything else is "".
func (o Object) Str(keys ...string) string {
	v, _ := o.Lookup(keys...)
	return String(v)
}

// String writes a scalar as a trimmed string.
func String(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	default:
		return ""
	}
}

// Num returns the value under keys as a number, accepting numeric strings
// such as " 85 ", "0.8" or "85%" (a percent sign divides by 100 when
// percent is set). ok is false when absent or not a number.
func (o Object) Num(percent bool, keys ...string) (float64, bool) {
	v, found := o.Lookup(keys...)
	if !found {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default: // booleans, lists and objects are not numbers
		return 0, false
	}
	divide := false
	if p, ok := strings.CutSuffix(s, "%"); ok {
		s, divide = strings.TrimSpace(p), percent
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if divide {
		f /= 100
	}
	return f, true
}

// Int returns the value under keys rounded to an int within lo..hi.
func (o Object) Int(lo, hi int, keys ...string) (int, bool) {
	f, ok := o.Num(false, keys...)
	if !ok {
		return 0, false
	}
	f = math.Round(min(max(f, float64(lo)), float64(hi)))
	return int(f), true
}

// Bool returns the value under keys as a bool: JSON booleans, the
// strings "true"/"false"/"yes"/"no"/"1"/"0" and numbers (non-zero is true).
func (o Object) Bool(keys ...string) (bool, bool) {
	v, found := o.Lookup(keys...)
	if !found {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0, err == nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "1", "是":
			return true, true
		case "false", "no", "n", "0", "否", "":
			return false, true
		}
	}
	return false, false
}

// Strings returns the value under keys as trimmed, non-empty strings. A
// single string is a one-item list; scalar items are written out; object
// items contribute their first text-like field.
func (o Object) Strings(keys ...string) []string {
	v, _ := o.Lookup(keys...)
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case string:
		add(strings.TrimSpace(x))
	case []any:
		for _, it := range x {
			if m, ok := it.(map[string]any); ok {
				add(Fold(m).Str("text", "point", "content", "name", "value", "statement", "suggestion"))
				continue
			}
			add(String(it))
		}
	}
	return out
}

// ListShape says how Objects turns the other shapes models use into
// objects: a map {"<name>": {...}} or {"<name>": "<value>"} gives one object
// per entry with the key under name (and a string value under value), and
// a plain string item becomes an object with the string under item. An
// empty field disables that shape.
type ListShape struct {
	Name, Value, Item string
}

// Objects returns the value under keys as a list of objects, accepting
// the shapes of shape besides a list of objects. Map entries come in key
// order.
func (o Object) Objects(shape ListShape, keys ...string) []Object {
	v, _ := o.Lookup(keys...)
	var out []Object
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			switch y := it.(type) {
			case map[string]any:
				out = append(out, Fold(y))
			case string:
				if shape.Item != "" && strings.TrimSpace(y) != "" {
					out = append(out, Object{shape.Item: y})
				}
			}
		}
	case map[string]any:
		if shape.Name == "" {
			break
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			switch y := x[k].(type) {
			case map[string]any:
				obj := Fold(y)
				if _, ok := obj[shape.Name]; !ok {
					obj[shape.Name] = k
				}
				out = append(out, obj)
			case string:
				if shape.Value != "" {
					out = append(out, Object{shape.Name: k, shape.Value: y})
				}
			}
		}
	}
	return out
}

// Fraction reads a fraction (a confidence) under keys as 0..1: "80%" is 0.8, and a
// value above 1 and up to 100 is read as a percentage (a model that used a
// 0-100 scale); the result is clamped to 0..1. Absent is 0, which the review
// rule treats as low confidence.
func (o Object) Fraction(keys ...string) float64 {
	f, ok := o.Num(true, keys...)
	if !ok {
		return 0
	}
	if f > 1 && f <= 100 {
		f /= 100
	}
	return min(max(f, 0), 1)
}

// StripFences removes a surrounding Markdown code fence.
func StripFences(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if _, body, found := strings.Cut(rest, "\n"); found {
			rest = body
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	return s
}
