package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// ErrQueryTimeout is the cause of a database call that did not finish
// within database.query-timeout. Translate makes it a 503.
var ErrQueryTimeout = errors.New("the database did not answer within database.query-timeout")

// boundedPool is the connection pool gorm sees: it gives every call (the
// wait for a pooled connection included) a deadline of at most timeout, so
// a frozen or unreachable database costs a request timeout, not forever.
// A context that already has an earlier deadline keeps it. Errors are
// translated here (Translate), below every store and gorm's transactions.
type boundedPool struct {
	db      *sql.DB
	timeout time.Duration
}

var (
	_ gorm.ConnPool         = (*boundedPool)(nil)
	_ gorm.ConnPoolBeginner = (*boundedPool)(nil)
	_ gorm.GetDBConnector   = (*boundedPool)(nil)
	_ gorm.ConnPool         = (*boundedTx)(nil)
	_ gorm.TxCommitter      = (*boundedTx)(nil)
)

// bound returns ctx with a deadline at most d away.
func bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, ErrQueryTimeout)
}

// failed translates err of a call made with the bounded ctx: a deadline
// that was ours (not the caller's) becomes ErrQueryTimeout.
func failed(ctx, parent context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil && errors.Is(context.Cause(ctx), ErrQueryTimeout) {
		err = &timeoutError{err: err}
	}
	return Translate(err)
}

// timeoutError is a driver error caused by database.query-timeout.
type timeoutError struct{ err error }

func (e *timeoutError) Error() string   { return ErrQueryTimeout.Error() + ": " + e.err.Error() }
func (e *timeoutError) Unwrap() []error { return []error{ErrQueryTimeout, e.err} }

// GetDBConn returns the pool (gorm's DB()).
func (p *boundedPool) GetDBConn() (*sql.DB, error) { return p.db, nil }

// PrepareContext prepares within the bound.
func (p *boundedPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return prepare(ctx, p.db, p.timeout, query)
}

// ExecContext executes within the bound.
func (p *boundedPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return exec(ctx, p.db, p.timeout, query, args)
}

// QueryContext queries within the bound.
func (p *boundedPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return queryRows(ctx, p.db, p.timeout, query, args)
}

// QueryRowContext queries one row within the bound.
func (p *boundedPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return queryRow(ctx, p.db, p.timeout, query, args)
}

// BeginTx starts a transaction bounded as a whole: database/sql ties the
// transaction to its context (it rolls back when the context ends), so the
// BEGIN, every statement in it and the COMMIT finish within the bound.
func (p *boundedPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	bctx, cancel := bound(ctx, p.timeout)
	tx, err := p.db.BeginTx(bctx, opts)
	if err != nil {
		cancel()
		return nil, failed(bctx, ctx, err)
	}
	return &boundedTx{tx: tx, ctx: bctx, parent: ctx, cancel: cancel, timeout: p.timeout}, nil
}

// boundedTx is a transaction of a boundedPool.
type boundedTx struct {
	tx          *sql.Tx
	ctx, parent context.Context // the transaction's bounded context and the caller's
	cancel      context.CancelFunc
	timeout     time.Duration
}

// PrepareContext prepares within the bound.
func (t *boundedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return prepare(ctx, t.tx, t.timeout, query)
}

// ExecContext executes within the bound.
func (t *boundedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := exec(ctx, t.tx, t.timeout, query, args)
	return res, t.failed(err)
}

// QueryContext queries within the bound.
func (t *boundedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := queryRows(ctx, t.tx, t.timeout, query, args)
	return rows, t.failed(err)
}

// QueryRowContext queries one row within the bound.
func (t *boundedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return queryRow(ctx, t.tx, t.timeout, query, args)
}

// Commit commits and releases the transaction's deadline.
func (t *boundedTx) Commit() error {
	defer t.cancel()
	return t.failed(t.tx.Commit())
}

// Rollback rolls back and releases the transaction's deadline.
func (t *boundedTx) Rollback() error {
	defer t.cancel()
	return t.failed(t.tx.Rollback())
}

// failed reports a transaction ended by its bound (sql.ErrTxDone, or a
// cancelled statement) as ErrQueryTimeout.
func (t *boundedTx) failed(err error) error {
	if err == nil || apperr.As(err) != nil {
		return err
	}
	if t.parent.Err() == nil && errors.Is(context.Cause(t.ctx), ErrQueryTimeout) &&
		(errors.Is(err, sql.ErrTxDone) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return Translate(&timeoutError{err: err})
	}
	return err
}

// conn is what *sql.DB and *sql.Tx have in common.
type conn interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func prepare(ctx context.Context, c conn, d time.Duration, query string) (*sql.Stmt, error) {
	bctx, cancel := bound(ctx, d)
	defer cancel()
	st, err := c.PrepareContext(bctx, query)
	return st, failed(bctx, ctx, err)
}

func exec(ctx context.Context, c conn, d time.Duration, query string, args []any) (sql.Result, error) {
	bctx, cancel := bound(ctx, d)
	defer cancel()
	res, err := c.ExecContext(bctx, query, args...)
	return res, failed(bctx, ctx, err)
}

// queryRows and queryRow hand back rows that are read after they return,
// so their deadline is not cancelled here: its timer releases it, and
// database/sql stops watching it when the rows are closed.
func queryRows(ctx context.Context, c conn, d time.Duration, query string, args []any) (*sql.Rows, error) {
	bctx, cancel := bound(ctx, d)
	rows, err := c.QueryContext(bctx, query, args...)
	if err != nil {
		cancel()
		return nil, failed(bctx, ctx, err)
	}
	_ = cancel // released by its timer: the caller reads the rows after we return
	return rows, nil
}

func queryRow(ctx context.Context, c conn, d time.Duration, query string, args []any) *sql.Row {
	bctx, cancel := bound(ctx, d)
	_ = cancel // released by its timer: the caller scans the row after we return
	return c.QueryRowContext(bctx, query, args...)
}
