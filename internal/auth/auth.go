// Package auth carries who is calling in a context.Context, as
// benbjohnson/wtf's NewContextWithUser does: the authentication middleware
// (package users) puts the Caller in the request context and every handler
// reads it from there, so no domain imports users to learn who is calling.
package auth

import (
	"context"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// Caller is the authenticated user of a request.
type Caller struct {
	UserID   string
	Username string
	Admin    bool
}

type callerKey struct{}

// NewContext returns a copy of ctx carrying c.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// FromContext returns the caller carried by ctx, if any.
func FromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Require returns the caller of ctx, or a 401 error when nobody logged in.
func Require(ctx context.Context) (Caller, error) {
	c, ok := FromContext(ctx)
	if !ok {
		return Caller{}, apperr.Unauthenticated("login required")
	}
	return c, nil
}

// RequireAdmin returns the caller of ctx when it is an admin: a 401 error
// without a caller, a 403 error for anyone else.
func RequireAdmin(ctx context.Context) (Caller, error) {
	c, err := Require(ctx)
	if err != nil {
		return Caller{}, err
	}
	if !c.Admin {
		return Caller{}, apperr.Forbidden("this action needs an admin account")
	}
	return c, nil
}
