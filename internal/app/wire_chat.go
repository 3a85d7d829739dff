package app

import (
	"path/filepath"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/agent"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
)

// mountChat builds the chat and agent domains and mounts their routes on
// api: /ai (chat), /agent-properties (agent configurations) and /agents
// (agent sessions and files). Agent sessions run on the chat service.
func (a *App) mountChat(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	chats := chat.NewService(chat.NewGormStore(a.db), a.aiConfigs, chat.Config{
		MaxMessageChars: a.cfg.Chat.MaxMessageChars,
		ContextTokens:   a.cfg.Chat.ContextTokens,
		StreamTimeout:   a.cfg.Chat.StreamTimeout,
	})
	// Closers run newest first: answers still streaming when the server
	// has drained are ended and saved before the database closes.
	a.closers = append(a.closers, chats.Close)
	agents, err := agent.NewService(agent.NewGormStore(a.db), chats, a.aiConfigs, agent.Config{
		DefaultAgentName: a.cfg.Agents.DefaultAgentName,
		MaxFileBytes:     a.cfg.Agents.MaxFileBytes,
		FileContextChars: a.cfg.Agents.FileContextChars,
		UploadDir:        filepath.Join(a.cfg.DataDir, "uploads", "agent"),
	})
	if err != nil {
		return err
	}
	chat.NewHandler(chats).Register(api.Group("/ai"), auth)
	agentHandler := agent.NewHandler(agents)
	agentHandler.RegisterProperties(api.Group("/agent-properties"), auth)
	agentHandler.RegisterSessions(api.Group("/agents"), auth)
	return nil
}
