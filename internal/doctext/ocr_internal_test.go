package doctext

import "testing"

func TestRemoveCJKSpaces(t *testing.T) {
	tests := []struct{ in, want string }{
		{"张 伟", "张伟"},
		{"负 责 订 单 系 统 ， 使 用 Go 和 gRPC", "负责订单系统，使用 Go 和 gRPC"},
		{"电 话 ： 138-1234-5678", "电话：138-1234-5678"},
		{"Emily Carter", "Emily Carter"},
		{"上海\n浦东", "上海\n浦东"},
	}
	for _, tt := range tests {
		if got := removeCJKSpaces(tt.in); got != tt.want {
			t.Errorf("removeCJKSpaces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
