package app

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/xunzhi-ai/aimeeting/internal/agent"
	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/chat"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/legacy"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/users"
)

// Import copies the users, provider configurations and agents of an
// original AI-Meeting deployment, whose MySQL database fromDSN names, into
// the database of cfg (migrated first), reporting progress after each row
// (see package legacy).
func Import(ctx context.Context, cfg Config, fromDSN string, progress legacy.Progress) (legacy.Summary, error) {
	mc, err := mysql.ParseDSN(fromDSN)
	if err != nil {
		return legacy.Summary{}, fmt.Errorf("--from-mysql: %w (want user:password@tcp(host:3306)/database)", err)
	}
	if mc.DBName == "" {
		return legacy.Summary{}, fmt.Errorf("--from-mysql: the DSN names no database (want user:password@tcp(host:3306)/database)")
	}
	mc.ParseTime = true
	src, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		return legacy.Summary{}, fmt.Errorf("--from-mysql: %w", err)
	}
	defer src.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := src.PingContext(pingCtx); err != nil {
		return legacy.Summary{}, fmt.Errorf("--from-mysql: cannot reach %s/%s: %w", mc.Addr, mc.DBName, err)
	}

	gdb, err := db.Open(ctx, db.Config{Driver: cfg.Database.Driver, DSN: cfg.Database.DSN,
		MaxOpenConns: cfg.Database.MaxOpenConns, MaxIdleConns: cfg.Database.MaxIdleConns,
		QueryTimeout: cfg.Database.QueryTimeout})
	if err != nil {
		return legacy.Summary{}, setting("database.dsn", err)
	}
	defer db.Close(gdb)
	accounts, err := users.NewService(users.NewGormStore(gdb), nil, nil, users.Config{
		TokenTTL: cfg.Auth.TokenTTL, TokenIdleTTL: cfg.Auth.TokenIdleTTL, BcryptCost: cfg.Auth.BcryptCost})
	if err != nil {
		return legacy.Summary{}, setting("auth", err)
	}
	// Imported agents use the default provider, whatever it is at run
	// time; the offline model stands in for it here.
	aiConfigs := aiconfig.NewService(aiconfig.NewGormStore(gdb), llm.NewOffline())
	chats := chat.NewService(chat.NewGormStore(gdb), aiConfigs, chat.Config{})
	defer chats.Close()
	agents, err := agent.NewService(agent.NewGormStore(gdb), chats, aiConfigs, agent.Config{
		DefaultAgentName: cfg.Agents.DefaultAgentName, UploadDir: filepath.Join(cfg.DataDir, "uploads", "agent")})
	if err != nil {
		return legacy.Summary{}, setting("data-dir", err)
	}
	return legacy.Run(ctx, src, legacy.Targets{Accounts: accounts, Providers: aiConfigs, Agents: agents}, progress)
}
