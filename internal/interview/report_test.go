package interview

import (
	"encoding/xml"
	"strings"
	"testing"
)

func intp(v int) *int { return &v }

func TestRadarSVG(t *testing.T) {
	tests := []struct {
		name  string
		radar Radar
		want  []string
	}{
		{"all present", ComputeRadar(intp(80), intp(70), intp(90)), []string{">80<", ">70<", ">90<", "Potential"}},
		{"demeanor absent", ComputeRadar(intp(80), intp(70), nil), []string{"n/a", ">73<"}},
		{"nothing yet", ComputeRadar(nil, nil, nil), []string{"n/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(RadarSVG(tt.radar))
			checkRadarSVG(t, svg, tt.want)
		})
	}
}

// A Chinese radar is Chinese throughout, absent scores included, in the
// page's sans-serif fonts rather than whatever CJK font the viewer finds.
func TestRadarSVGChinese(t *testing.T) {
	svg := string(RadarSVGIn(ComputeRadar(intp(80), intp(70), nil), LangZH))
	checkRadarSVG(t, svg, []string{">未评估<", ">面试表现<", `aria-label="面试雷达图"`, `lang="zh-CN"`, "Noto Sans CJK SC"})
	for _, bad := range []string{"n/a", "Interview radar chart", `font-family="sans-serif"`} {
		if strings.Contains(svg, bad) {
			t.Errorf("Chinese SVG contains %q", bad)
		}
	}
}

func checkRadarSVG(t *testing.T, svg string, want []string) {
	t.Helper()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(svg, w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
}

func TestMeanScore(t *testing.T) {
	if meanScore(nil) != nil {
		t.Fatal("mean of nothing must be absent, not 0")
	}
	if got := *meanScore([]int{80, 85}); got != 83 {
		t.Fatalf("mean(80, 85) = %d, want 83 (rounded)", got)
	}
}
