// Package db opens the database (embedded SQLite or MariaDB/MySQL) through
// gorm and applies the embedded goose migrations.
package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/go-sql-driver/mysql"
	"github.com/pressly/goose/v3"
	gormmysql "gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/migrations"
)

// Config selects and tunes the database.
type Config struct {
	Driver       string // "sqlite" or "mysql"
	DSN          string // sqlite: file path (created); mysql: go-sql-driver DSN
	MaxOpenConns int
	MaxIdleConns int
	// QueryTimeout bounds every database call, the wait for a pooled
	// connection included (database.query-timeout); 0 means 5 s. A
	// transaction is bounded by it as a whole.
	QueryTimeout time.Duration
}

// DefaultQueryTimeout is Config.QueryTimeout when unset.
const DefaultQueryTimeout = 5 * time.Second

// Open connects, checks the connection and runs the migrations.
func Open(ctx context.Context, cfg Config) (*gorm.DB, error) {
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	var (
		dialector gorm.Dialector
		dialect   goose.Dialect
		conn      *sql.DB                 // MySQL's pool, opened here; SQLite's is opened by gorm
		migrateDB func() (*sql.DB, error) // MySQL: a pool without the read/write backstops
		addr      string                  // MySQL's host:port, for messages
	)
	switch cfg.Driver {
	case "sqlite":
		if dir := filepath.Dir(cfg.DSN); dir != "" {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create database directory %s: %w", dir, err)
			}
		}
		// WAL and a busy timeout let several goroutines write without
		// "database is locked"; foreign keys on for integrity.
		dsn := cfg.DSN + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
		dialector = sqlite.Open(dsn)
		dialect = goose.DialectSQLite3
	case "mysql":
		mc, err := mysql.ParseDSN(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("database.dsn is not a valid MySQL DSN: %w", err)
		}
		// Times are stored and read as UTC whatever the DSN says.
		mc.ParseTime = true
		mc.Loc = time.UTC
		if mc.Params == nil {
			mc.Params = map[string]string{}
		}
		if _, ok := mc.Params["charset"]; !ok {
			mc.Params["charset"] = "utf8mb4"
		}
		// Arguments are interpolated by the driver: a statement with
		// arguments is one round trip instead of three (prepare, execute,
		// close), which is most of an answer's time (issue 21). Safe with
		// the UTF-8 charsets; the driver refuses it with the multibyte
		// charsets where it would not be.
		if cs := strings.ToLower(mc.Params["charset"]); cs == "utf8mb4" || cs == "utf8" {
			mc.InterpolateParams = true
		}
		mc.Params["time_zone"] = "'+00:00'"
		// Several statements in one query: a transaction of a few
		// statements is one round trip (GuardedScript). Every statement's
		// arguments are interpolated by the driver (escaped), never
		// concatenated, so this lets nothing in that a single statement
		// would not.
		mc.MultiStatements = true
		// Backstops below the per-call deadlines: a dial, and any single
		// read or write on a connection, give up on a silent server.
		if mc.Timeout == 0 {
			mc.Timeout = 5 * time.Second
		}
		if mc.ReadTimeout == 0 {
			mc.ReadTimeout = cfg.QueryTimeout + time.Second
		}
		if mc.WriteTimeout == 0 {
			mc.WriteTimeout = cfg.QueryTimeout + time.Second
		}
		// Round-trip through the DSN: the driver reads charset from it
		// (set in Params it would be sent as a system variable).
		if mc, err = mysql.ParseDSN(mc.FormatDSN()); err != nil {
			return nil, fmt.Errorf("database.dsn is not a valid MySQL DSN: %w", err)
		}
		// Failures are returned (and logged by the caller), not printed.
		mc.Logger = &mysql.NopLogger{}
		connector, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("database.dsn is not a valid MySQL DSN: %w", err)
		}
		conn = sql.OpenDB(readCommitted{connector})
		addr = mc.Addr
		// Migrations may hold one statement (an ALTER TABLE) longer than
		// any query: they run on a connection without the backstops.
		unbounded := mc.Clone()
		unbounded.ReadTimeout, unbounded.WriteTimeout = 0, 0
		migrateDB = func() (*sql.DB, error) {
			c, err := mysql.NewConnector(unbounded)
			if err != nil {
				return nil, err
			}
			db := sql.OpenDB(c)
			db.SetMaxOpenConns(1)
			return db, nil
		}
		dialector = gormmysql.New(gormmysql.Config{Conn: conn})
		dialect = goose.DialectMySQL
	default:
		return nil, fmt.Errorf("database.driver must be sqlite or mysql, not %q", cfg.Driver)
	}
	gdb, err := gorm.Open(dialector, &gorm.Config{
		Logger:                 logger.Discard,
		NowFunc:                func() time.Time { return time.Now().UTC() },
		SkipDefaultTransaction: true,
		TranslateError:         true,
	})
	if err != nil {
		if conn != nil {
			_ = conn.Close()
		}
		return nil, explain(err, addr) // the caller names the setting
	}
	if err := registerTranslate(gdb); err != nil {
		return nil, err
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, err
	}
	if cfg.MaxOpenConns > 0 {
		sqlDB.SetMaxOpenConns(cfg.MaxOpenConns)
	}
	if cfg.MaxIdleConns > 0 {
		sqlDB.SetMaxIdleConns(cfg.MaxIdleConns)
	}
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	// Connections a burst opened are closed once unused for a while, not
	// after each use (which max-idle-conns below max-open-conns does).
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close()
		return nil, explain(err, addr) // the caller names the setting
	}
	if err := migrate(ctx, sqlDB, migrateDB, dialect); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	// From here every call goes through the bounded pool (migrations, run
	// above outside it, may take longer than a query).
	pool := &boundedPool{db: sqlDB, timeout: cfg.QueryTimeout}
	gdb.ConnPool = pool
	gdb.Statement.ConnPool = pool
	return gdb, nil
}

// explain adds what the MySQL driver leaves out of a failed connection:
// "invalid connection" alone does not say that the server at addr did not
// answer (wrong port, a frozen server, not MySQL).
func explain(err error, addr string) error {
	if addr != "" && errors.Is(err, mysql.ErrInvalidConn) {
		return fmt.Errorf("no MySQL answer from %s: %w", addr, err)
	}
	return err
}

// migrate runs the migrations on the pool open (nil: on sqlDB).
func migrate(ctx context.Context, sqlDB *sql.DB, open func() (*sql.DB, error), dialect goose.Dialect) error {
	if open == nil {
		return Migrate(ctx, sqlDB, dialect)
	}
	mdb, err := open()
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	defer mdb.Close()
	return Migrate(ctx, mdb, dialect)
}

// Migrate applies every pending embedded migration.
func Migrate(ctx context.Context, sqlDB *sql.DB, dialect goose.Dialect) error {
	fsys, err := migrations.For(string(dialect))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	p, err := goose.NewProvider(dialect, sqlDB, fsys)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// Close closes the underlying connection pool.
func Close(gdb *gorm.DB) error {
	sqlDB, err := gdb.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Ping checks the connection within ctx.
func Ping(ctx context.Context, gdb *gorm.DB) error {
	sqlDB, err := gdb.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// IsDuplicate reports whether err is a unique-constraint violation.
func IsDuplicate(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1062 {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// IsNotFound reports whether err is gorm's record-not-found.
func IsNotFound(err error) bool { return errors.Is(err, gorm.ErrRecordNotFound) }

// LikeEscape is the ESCAPE clause that goes with LikePattern; '!' rather
// than a backslash, which MySQL and SQLite quote differently.
const LikeEscape = " ESCAPE '!'"

// LikePattern escapes s for a LIKE pattern matching it anywhere; use it as
// `col LIKE ?` + LikeEscape.
func LikePattern(s string) string {
	r := strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`)
	return "%" + r.Replace(s) + "%"
}

// IsTransient reports whether err is a database failure that a retry may
// fix: a deadlock or lock wait timeout, a lost, refused or bad connection,
// a call past database.query-timeout, or a busy SQLite file.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1213 || me.Number == 1205 // deadlock, lock wait timeout
	}
	if errors.Is(err, ErrQueryTimeout) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) {
		return true
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "connection refused")
}

// Translate is the store boundary for database failures: a transient one
// (see IsTransient) becomes a retryable apperr KindUnavailable (HTTP 503)
// wrapping it, so callers and the HTTP edge need not know the drivers.
// Errors that already carry an *apperr.Error, and every other error, are
// returned unchanged; the cause stays in the chain for errors.Is/As.
func Translate(err error) error {
	if err == nil || apperr.As(err) != nil || !IsTransient(err) {
		return err
	}
	return apperr.New(apperr.KindUnavailable, "the database is busy or unreachable; retry shortly").
		WithCode(apperr.CodeUnavailable).AsRetryable().WithCause(err)
}

// translateCallback is the name of the gorm callback that applies Translate.
const translateCallback = "aimeeting:translate"

// registerTranslate makes Translate the last step of every gorm operation,
// so every store built on a *gorm.DB from Open returns translated errors.
func registerTranslate(gdb *gorm.DB) error {
	translate := func(tx *gorm.DB) {
		if tx.Error == nil {
			return
		}
		// Rows are read after the bounded pool returned them: a deadline
		// met while scanning that was not the caller's is the query-timeout.
		if errors.Is(tx.Error, context.DeadlineExceeded) && tx.Statement.Context.Err() == nil && apperr.As(tx.Error) == nil {
			tx.Error = &timeoutError{err: tx.Error}
		}
		tx.Error = Translate(tx.Error)
	}
	cb := gdb.Callback()
	for _, err := range []error{
		cb.Create().After("*").Register(translateCallback, translate),
		cb.Query().After("*").Register(translateCallback, translate),
		cb.Update().After("*").Register(translateCallback, translate),
		cb.Delete().After("*").Register(translateCallback, translate),
		cb.Row().After("*").Register(translateCallback, translate),
		cb.Raw().After("*").Register(translateCallback, translate),
	} {
		if err != nil {
			return fmt.Errorf("register %s: %w", translateCallback, err)
		}
	}
	return nil
}

// isDeadlock reports whether err is worth re-running the whole transaction for.
func isDeadlock(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// Transaction runs fn in a transaction, re-running it (up to 3 times) when
// the database aborted it as a deadlock victim; InnoDB rolls the victim
// back, so running it again is safe.
func Transaction(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) error {
	var err error
	for attempt := range 3 {
		if err = gdb.WithContext(ctx).Transaction(fn); !isDeadlock(err) {
			return Translate(err)
		}
		select {
		case <-ctx.Done():
			return Translate(err)
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		}
	}
	return Translate(err)
}

// readCommitted is a MySQL connector whose connections run every
// transaction at READ COMMITTED (set once per connection, so a transaction
// costs no extra statement; the server keeps its default). Every
// transaction of ours is a compare-and-set on rows it updates, or inserts
// guarded by unique keys: none needs REPEATABLE READ's snapshot across its
// statements, and REPEATABLE READ's gap locks (and the gap locks a purged
// or rolled-back record hands to the next one) let transactions of
// different sessions that insert into one index gap deadlock (issue 21,
// docs/performance.md). READ COMMITTED takes no gap locks for searches.
type readCommitted struct{ driver.Connector }

func (c readCommitted) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("mysql connection cannot execute statements")
	}
	// The syntax both MySQL and MariaDB take (the variable's name differs:
	// transaction_isolation, tx_isolation before MariaDB 11.1).
	if _, err := ex.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", nil); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("set the transaction isolation: %w", err)
	}
	return conn, nil
}
