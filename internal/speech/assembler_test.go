package speech

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestAssembler(t *testing.T) {
	type step struct {
		r           Result
		changed     bool
		full, commt string
	}
	rg := func(a, b int) *Range { return &Range{a, b} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"partials then final", []step{
			{Result{Segment: 0, Text: "hello"}, true, "hello", ""},
			{Result{Segment: 0, Text: "hello wor"}, true, "hello wor", ""},
			{Result{Segment: 0, Text: "hello world", Final: true}, true, "hello world", "hello world"},
			{Result{Segment: 1, Text: "how"}, true, "hello world how", "hello world"},
		}},
		{"unchanged text is not an update", []step{
			{Result{Segment: 0, Text: "hi"}, true, "hi", ""},
			{Result{Segment: 0, Text: " hi "}, false, "hi", ""},
			{Result{Segment: 1, Text: ""}, false, "hi", ""},
		}},
		{"out of order segments", []step{
			{Result{Segment: 2, Text: "three", Final: true}, true, "three", "three"},
			{Result{Segment: 0, Text: "one", Final: true}, true, "one three", "one three"},
			{Result{Segment: 1, Text: "two", Final: true}, true, "one two three", "one two three"},
		}},
		{"iflytek rpl replaces a range", []step{
			{Result{Segment: 1, Text: "今天"}, true, "今天", ""},
			{Result{Segment: 2, Text: "天气"}, true, "今天天气", ""},
			{Result{Segment: 3, Text: "今天天气很好", Replace: rg(1, 2)}, true, "今天天气很好", ""},
			{Result{Segment: 4, Text: "。"}, true, "今天天气很好。", ""},
		}},
		{"rpl with reversed range", []step{
			{Result{Segment: 1, Text: "a"}, true, "a", ""},
			{Result{Segment: 2, Text: "b"}, true, "a b", ""},
			{Result{Segment: 3, Text: "c", Replace: rg(2, 1)}, true, "c", ""},
		}},
		{"resent overlapping words are dropped", []step{
			{Result{Segment: 0, Text: "I worked on a team", Final: true}, true, "I worked on a team", "I worked on a team"},
			{Result{Segment: 1, Text: "on a team that built", Final: true, Dedup: true}, true, "I worked on a team that built", "I worked on a team that built"},
			{Result{Segment: 2, Text: "Built, an app.", Final: true, Dedup: true}, true, "I worked on a team that built an app.", "I worked on a team that built an app."},
			{Result{Segment: 3, Text: "app", Final: true, Dedup: true}, false, "I worked on a team that built an app.", "I worked on a team that built an app."},
		}},
		{"overlap in CJK text", []step{
			{Result{Segment: 0, Text: "我们开始面试", Final: true}, true, "我们开始面试", "我们开始面试"},
			{Result{Segment: 1, Text: "面试吧", Final: true, Dedup: true}, true, "我们开始面试吧", "我们开始面试吧"},
		}},
		{"punctuation-only updates", []step{
			{Result{Segment: 0, Text: "hello world"}, true, "hello world", ""},
			{Result{Segment: 0, Text: "hello world."}, true, "hello world.", ""},
			{Result{Segment: 1, Text: "?", Final: true}, true, "hello world.?", ""},
			{Result{Segment: 0, Text: "hello world.", Final: true}, true, "hello world.?", "hello world.?"},
		}},
		{"committed stops at the first live segment", []step{
			{Result{Segment: 0, Text: "a", Final: true}, true, "a", "a"},
			{Result{Segment: 1, Text: "b"}, true, "a b", "a"},
			{Result{Segment: 2, Text: "c", Final: true}, true, "a b c", "a"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Assembler
			rev := 0
			for i, s := range tt.steps {
				got, changed := a.Apply(s.r)
				if changed != s.changed || got.Full != s.full || got.Committed != s.commt {
					t.Fatalf("step %d: got (%q, committed %q, changed %v), want (%q, committed %q, changed %v)",
						i, got.Full, got.Committed, changed, s.full, s.commt, s.changed)
				}
				if changed {
					rev++
				}
				if got.Revision != rev {
					t.Fatalf("step %d: revision %d, want %d", i, got.Revision, rev)
				}
			}
		})
	}
}

func TestAssemblerFinish(t *testing.T) {
	var a Assembler
	a.Apply(Result{Segment: 0, Text: "one"})
	got, changed := a.Finish()
	if !changed || got.Committed != "one" || got.Live != "" || !got.Final {
		t.Fatalf("Finish = %+v, %v", got, changed)
	}
	if _, changed := a.Finish(); changed {
		t.Fatal("second Finish changed the text")
	}
}

func TestDropOverlap(t *testing.T) {
	tests := []struct{ prev, next, want string }{
		{"a b c", "b c d", "d"},
		{"a b c", "c, d", "d"},
		{"a b c", "x y", "x y"},
		{"", "x", "x"},
		{"a b", "a b", ""},
		{"Hello there.", "THERE friend", "friend"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s|%s", tt.prev, tt.next), func(t *testing.T) {
			if got := dropOverlap(tt.prev, tt.next); got != tt.want {
				t.Errorf("dropOverlap(%q, %q) = %q, want %q", tt.prev, tt.next, got, tt.want)
			}
		})
	}
}

// FuzzAssembler applies random result sequences and checks the
// invariants: the revision grows by one exactly when the text changes,
// Full is Committed joined with Live, and applying a result twice is a
// no-op the second time.
func FuzzAssembler(f *testing.F) {
	f.Add([]byte(`[{"Segment":1,"Text":"a"},{"Segment":3,"Text":"b c","Replace":{"From":1,"To":2}},{"Segment":0,"Text":"c","Final":true,"Dedup":true}]`))
	f.Add([]byte(`[{"Segment":0,"Text":"今天"},{"Segment":1,"Text":"天气。","Dedup":true}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var rs []Result
		if json.Unmarshal(data, &rs) != nil || len(rs) > 64 {
			return
		}
		var a Assembler
		prev := a.Snapshot()
		for _, r := range rs {
			got, changed := a.Apply(r)
			if changed != (got.Committed != prev.Committed || got.Live != prev.Live) {
				t.Fatalf("changed=%v but %+v -> %+v", changed, prev, got)
			}
			want := prev.Revision
			if changed {
				want++
			}
			if got.Revision != want {
				t.Fatalf("revision %d, want %d", got.Revision, want)
			}
			if got.Full != joinText(got.Committed, got.Live) {
				t.Fatalf("full %q is not committed %q + live %q", got.Full, got.Committed, got.Live)
			}
			again, changed := a.Apply(r)
			if changed || again.Full != got.Full {
				t.Fatalf("applying %+v twice changed %q to %q", r, got.Full, again.Full)
			}
			prev = again
		}
	})
}
