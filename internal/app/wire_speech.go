package app

import "github.com/gin-gonic/gin"

// mountSpeech builds the speech domain and mounts its routes on api.
func (a *App) mountSpeech(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	return nil
}
