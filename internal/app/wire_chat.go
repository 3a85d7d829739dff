package app

import "github.com/gin-gonic/gin"

// mountChat builds the chat domain and mounts its routes on api.
func (a *App) mountChat(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	return nil
}
