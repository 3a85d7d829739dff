package httpx

import (
	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/auth"
)

// Admin is the middleware of admin-only routes, after authentication: 401
// without a caller, 403 for a caller who is not an admin.
func Admin() gin.HandlerFunc {
	return func(c *gin.Context) {
		if _, err := auth.RequireAdmin(c.Request.Context()); err != nil {
			Error(c, err)
		}
	}
}

// SetCaller puts the authenticated caller in the request's context, where
// auth.FromContext finds it.
func SetCaller(c *gin.Context, caller auth.Caller) {
	c.Request = c.Request.WithContext(auth.NewContext(c.Request.Context(), caller))
}
