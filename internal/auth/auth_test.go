package auth_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/auth"
)

func TestRequire(t *testing.T) {
	user := auth.Caller{UserID: "u1", Username: "alice"}
	admin := auth.Caller{UserID: "u2", Username: "root", Admin: true}
	ok := apperr.Kind(-1) // no error
	tests := []struct {
		name                string
		ctx                 context.Context
		wantUser, wantAdmin apperr.Kind
	}{
		{"nobody", context.Background(), apperr.KindUnauthenticated, apperr.KindUnauthenticated},
		{"user", auth.NewContext(context.Background(), user), ok, apperr.KindForbidden},
		{"admin", auth.NewContext(context.Background(), admin), ok, ok},
	}
	kind := func(err error) apperr.Kind {
		if err == nil {
			return ok
		}
		return apperr.KindOf(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := auth.Require(tt.ctx)
			if got := kind(err); got != tt.wantUser {
				t.Fatalf("Require: err %v (kind %v), want kind %v", err, got, tt.wantUser)
			}
			if want, _ := auth.FromContext(tt.ctx); c != want {
				t.Fatalf("Require = %+v, want %+v", c, want)
			}
			if _, err := auth.RequireAdmin(tt.ctx); kind(err) != tt.wantAdmin {
				t.Fatalf("RequireAdmin: err %v, want kind %v", err, tt.wantAdmin)
			}
		})
	}
}

func ExampleFromContext() {
	ctx := auth.NewContext(context.Background(), auth.Caller{UserID: "42", Username: "alice"})
	c, ok := auth.FromContext(ctx)
	fmt.Println(c.Username, ok)
	_, ok = auth.FromContext(context.Background())
	fmt.Println(ok)
	// Output:
	// alice true
	// false
}
