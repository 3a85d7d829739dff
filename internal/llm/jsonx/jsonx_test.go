package jsonx_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/llm/jsonx"
)

func TestFirstObject(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     jsonx.Object
		err      string
	}{
		{"plain", `{"a":1}`, jsonx.Object{"a": "1"}, ""},
		{"fenced with prose", "Sure:\n```json\n{\"Missing_Points\": [\"x\"]}\n```\nBye", jsonx.Object{"missingpoints": []any{"x"}}, ""},
		{"braces in strings", `note {"a":"}{","b":true}`, jsonx.Object{"a": "}{", "b": true}, ""},
		{"invalid first, valid later", `{oops} then {"a":"ok"}`, jsonx.Object{"a": "ok"}, ""},
		{"quote in prose before the object", `he said "hi {"a":"x"}`, jsonx.Object{"a": "x"}, ""},
		{"unclosed brace before an object", `{"note": "x {"a":"y"}`, jsonx.Object{"a": "y"}, ""},
		{"no object", "just text", nil, "no JSON object"},
		{"truncated", `{"a": [1, 2`, nil, "truncated JSON object"},
		{"never valid", `{a} {b}`, nil, "no valid JSON object"},
		{"keys folding alike: first in sorted order wins", `{"b_c":1,"B-C":2}`, jsonx.Object{"bc": "2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonx.FirstObject(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the value of "score" in the object found
		err      string
	}{
		{"top level", `{"score": 1, "feedback": "f"}`, "1", ""},
		{"nested under a wrapper", `{"status":"ok","result":{"score":2,"feedback":"f"}}`, "2", ""},
		{"nested under another key", `{"zz":{"score":3}}`, "3", ""},
		{"serialised in a string", `{"data":"{\"score\":4,\"feedback\":\"f\"}"}`, "4", ""},
		{"top level wins ties", `{"score":5,"result":{"feedback":"f"}}`, "5", ""},
		{"none of the fields", `{"other":1}`, "", "none of the fields score, feedback"},
		{"no object", `nothing`, "", "no JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := jsonx.Find(tc.in, "score", "feedback")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || o.Str("score") != tc.want {
				t.Fatalf("got %v %v, want score %s", o, err, tc.want)
			}
		})
	}
}

func TestGetters(t *testing.T) {
	o, err := jsonx.FirstObject(`{"n":" 85 ","pct":"80%","big":"1e400","flag":"yes","off":0,"b":true,
		"list":["a",{"text":" t "},2,""],"one":"solo","null":null,"conf":85,
		"map":{"y":{"v":1},"x":"text"},"objs":[{"k":1},"item",7]}`)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := o.Int(0, 100, "missing", "n"); !ok || n != 85 {
		t.Errorf("Int = %d %v, want 85 (second key)", n, ok)
	}
	if n, ok := o.Int(0, 50, "n"); !ok || n != 50 {
		t.Errorf("Int clamped = %d %v, want 50", n, ok)
	}
	if f, ok := o.Num(true, "pct"); !ok || f != 0.8 {
		t.Errorf("Num(percent) = %v %v, want 0.8", f, ok)
	}
	if f, ok := o.Num(false, "pct"); !ok || f != 80 {
		t.Errorf("Num = %v %v, want 80", f, ok)
	}
	for _, k := range []string{"big", "b", "list", "absent", "null"} {
		if _, ok := o.Num(false, k); ok {
			t.Errorf("Num(%s) is a number", k)
		}
	}
	if v, ok := o.Bool("flag"); !ok || !v {
		t.Errorf("Bool(flag) = %v %v", v, ok)
	}
	if v, ok := o.Bool("off"); !ok || v {
		t.Errorf("Bool(off) = %v %v", v, ok)
	}
	if _, ok := o.Bool("list"); ok {
		t.Error("a list is a bool")
	}
	if got := o.Strings("list"); !reflect.DeepEqual(got, []string{"a", "t", "2"}) {
		t.Errorf("Strings = %q", got)
	}
	if got := o.Strings("one"); !reflect.DeepEqual(got, []string{"solo"}) {
		t.Errorf("Strings(string) = %q", got)
	}
	if got := o.Str("b"); got != "true" {
		t.Errorf("Str(bool) = %q", got)
	}
	if got := o.Fraction("conf"); got != 0.85 {
		t.Errorf("Fraction(85) = %v, want 0.85", got)
	}
	if got := o.Fraction("absent"); got != 0 {
		t.Errorf("Fraction(absent) = %v, want 0", got)
	}
	shape := jsonx.ListShape{Name: "name", Value: "value", Item: "item"}
	if got := fmt.Sprint(o.Objects(shape, "map")); got != "[map[name:x value:text] map[name:y v:1]]" {
		t.Errorf("Objects(map) = %s", got)
	}
	if got := fmt.Sprint(o.Objects(shape, "objs")); got != "[map[k:1] map[item:item]]" {
		t.Errorf("Objects(list) = %s", got)
	}
	if got := o.Objects(jsonx.ListShape{}, "map"); got != nil {
		t.Errorf("Objects without a name shape = %v, want nil", got)
	}
}

func TestStripFences(t *testing.T) {
	for in, want := range map[string]string{
		"```json\nWhy?\n```": "Why?",
		"```Why?```":         "Why?",
		"  plain  ":          "plain",
	} {
		if got := jsonx.StripFences(in); got != want {
			t.Errorf("StripFences(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleFind() {
	reply := "Here is my evaluation:\n```json\n{\"result\": {\"Score\": \"85%\", \"missing_points\": [\"an example\"]}}\n```"
	o, err := jsonx.Find(reply, "score", "missingPoints")
	if err != nil {
		fmt.Println(err)
		return
	}
	score, _ := o.Num(true, "score")
	fmt.Println(score, o.Strings("missingpoints"))
	// Output: 0.85 [an example]
}

// FuzzFind checks that any model output is read without panicking, and
// that whatever is found has folded keys.
func FuzzFind(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"x\":{\"y\":\"{}\"}}\n```", `{{{`, `"{"}`, `{"result":"{\"a\":1}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := jsonx.Find(s, "a", "b_c")
		if err != nil {
			return
		}
		for k := range o {
			if k != jsonx.FoldKey(k) || strings.ContainsAny(k, "_- ") {
				t.Fatalf("key %q is not folded", k)
			}
		}
	})
}
