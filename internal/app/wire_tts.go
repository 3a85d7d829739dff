package app

import "github.com/gin-gonic/gin"

// mountTts builds the tts domain and mounts its routes on api.
func (a *App) mountTts(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	return nil
}
