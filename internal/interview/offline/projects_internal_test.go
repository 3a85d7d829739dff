package offline

import (
	"slices"
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
