package offline

import (
	"slices"
	"strings"
	"testing"
)

func TestFindProjects(t *testing.T) {
	tests := []struct {
		name, resume string
		want         []string
	}{
		{"zh section with dates and roles", "项目经历\n2021.07 - 2022.05  云帆订单中心  后端开发\n基于 Go 和 gRPC 实现会话路由，QPS 提升 3倍\n- 负责订单服务拆分\n【教育经历】\n某大学", []string{"云帆订单中心"}},
		{"zh name and description on one line", "项目经历\n使用 Redis 缓存\n小程序商城：负责商品详情页和购物车开发，日活用户 5万。\n技术栈：Vue、TypeScript", []string{"小程序商城"}},
		{"labelled anywhere", "工作经历\n- 负责支付\n项目名称：「风控引擎」\n- 使用 Flink 实时计算", []string{"风控引擎"}},
		{"en section", "PROJECTS\nShipment Tracker — Go, Kafka, Redis\n- Built a tracker\nBuilt a dashboard for drivers in React\nBilling Portal (2021)\nEDUCATION\nB.Sc.", []string{"Shipment Tracker", "Billing Portal"}},
		{"no projects section", "Experience\nShipment Tracker — Go\n- Built a tracker", nil},
		// A description wrapped by the PDF's line width (Chromium's print): its
		// tail is not a project.
		{"zh wrapped description", "项目经历\n订单中心重构（2022-2024）\n负责将单体订单系统拆分为微服务，使用 Go 和 gRPC，引入 Redis 缓存热点订单，接口延迟从 320ms\n降到 45ms，日订单量 200 万。\n实时风控平台（2020-2022）\n基于 Kafka 流处理搭建风控规则引擎。", []string{"订单中心重构", "实时风控平台"}},
		{"en wrapped description", "PROJECTS\nCheckout Redesign (2023)\nRebuilt the checkout flow in React and TypeScript; cut the bundle size by\nforty percent, raised conversion.\nDesign System (2021)", []string{"Checkout Redesign", "Design System"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range findProjects(tc.resume) {
				got = append(got, p.name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findProjects = %q, want %q", got, tc.want)
			}
		})
	}
}

// A resume without projects: the interview asks about what its work
// experience says was done, as a Word file reads (no bullet marks) and as
// the PDF saved from it reads (Symbol bullets, read as "•", lines wrapped).
func TestFindAchievements(t *testing.T) {
	word := "Emily Carter\n\nExperience\n\nBrightline Health, Frontend Engineer (2021 - present)\n\n" +
		"Rebuilt the patient portal in React and TypeScript; cut the bundle size from 2.4 MB to 780 KB with code splitting.\n\n" +
		"Led accessibility work across the portal\n\nNorthwind Retail, Junior Web Developer (2019 - 2021)\n\n" +
		"Built the checkout flow with Vue 2 and a Node.js BFF; conversion rose 6%.\n\nEducation\n\nB.Sc. Computer Science, 2019\n\n" +
		"Skills\n\nReact, TypeScript"
	pdf := "Emily Carter\nExperience\nBrightline Health, Frontend Engineer (2021 - present)\n" +
		"• Rebuilt the patient portal in React and TypeScript; cut the bundle size from\n2.4 MB to 780 KB with code splitting.\n" +
		"• Led accessibility work across the portal\nNorthwind Retail, Junior Web Developer (2019 - 2021)\n" +
		"• Built the checkout flow with Vue 2 and a Node.js BFF; conversion rose 6%.\nEducation\nB.Sc. Computer Science, 2019"
	// The first clause of each (what was done), the numbered ones first.
	want := []string{
		"Rebuilt the patient portal in React and TypeScript.",
		"Built the checkout flow with Vue 2 and a Node.js BFF.",
		"Led accessibility work across the portal.",
	}
	for name, text := range map[string]string{"word": word, "pdf": pdf} {
		var got []string
		found := findAchievements(text, false)
		for _, p := range found {
			got = append(got, p.quote)
		}
		if len(found) > 0 && !slices.Contains(factsOf(found[0]).metrics, "780 KB") {
			t.Errorf("%s: the rubric's facts lost the result: %+v", name, factsOf(found[0]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: quotes\n%q\nwant\n%q", name, got, want)
		}
		if zh := findAchievements(text, true); len(zh) != 0 {
			t.Errorf("%s: a Chinese interview quotes English prose: %+v", name, zh)
		}
	}

	zh := "工作经历\n杭州云栈科技 后端开发工程师\n- 负责订单中心微服务的设计与开发，日均处理订单 300 万笔；\n- 参与支付网关的灰度发布方案设计\n- 参与分享\n教育经历\n浙江大学"
	got := findAchievements(zh, true)
	if len(got) != 2 || got[0].quote != "负责订单中心微服务的设计与开发" || got[1].quote != "参与支付网关的灰度发布方案设计" {
		t.Errorf("zh: %+v", got)
	}
	if q := projectQuestion(got[0], true).Content; !strings.HasPrefix(q, "你的简历写到：「负责订单中心微服务的设计与开发」。请介绍你在其中承担的部分") {
		t.Errorf("zh question: %s", q)
	}
	if got := findAchievements("Projects\nShop — Go\n- Built it\nExperience\n", false); len(got) != 0 {
		t.Errorf("outside the experience section: %+v", got)
	}
}

func TestCutBullet(t *testing.T) {
	for _, c := range []struct {
		line, body string
		ok         bool
	}{
		{"- Built it", "Built it", true},
		{"• 负责订单", "负责订单", true},
		{"1.负责订单", "负责订单", true},
		{"2) Led it", "Led it", true},
		{"3、优化", "优化", true},
		{"12. Wrote docs", "Wrote docs", true},
		{"2.4 MB to 780 KB with code splitting.", "2.4 MB to 780 KB with code splitting.", false},
		{" 3.5 release ", "3.5 release", false},
		{"Plain line", "Plain line", false},
	} {
		if body, ok := cutBullet(c.line); body != c.body || ok != c.ok {
			t.Errorf("cutBullet(%q) = %q, %v; want %q, %v", c.line, body, ok, c.body, c.ok)
		}
	}
}
