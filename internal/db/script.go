package db

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"gorm.io/gorm"
)

// Stmt is one SQL statement with its arguments, as gorm builds it (Dry).
type Stmt struct {
	SQL  string
	Vars []any
}

// Dry returns the statement build makes on gdb, without running it.
func Dry(gdb *gorm.DB, build func(tx *gorm.DB) *gorm.DB) (Stmt, error) {
	tx := build(gdb.Session(&gorm.Session{DryRun: true, NewDB: true}))
	if tx.Error != nil {
		return Stmt{}, tx.Error
	}
	return Stmt{SQL: tx.Statement.SQL.String(), Vars: tx.Statement.Vars}, nil
}

// ScriptSeparator ends each statement of a script (tests split on it).
const ScriptSeparator = ";\n"

// scriptCheck is the statement after a script's guard: it fails (error
// 1242, a subquery that returns two rows) unless the guard changed exactly
// one row, and the server runs none of the statements after a failed one.
// (A SELECT: MariaDB's DO evaluates the same subquery without failing.)
const scriptCheck = "SELECT (SELECT 1 FROM (SELECT 1 UNION ALL SELECT 2) AS lost WHERE ROW_COUNT() <> 1) AS guard_check"

// errSubqueryRows is MySQL's "Subquery returns more than 1 row".
const errSubqueryRows = 1242

// GuardedScript runs guard, a compare-and-set UPDATE, and then the
// statements of then only when guard changed exactly one row, all in one
// transaction, and reports whether they ran (false: guard matched nothing,
// and nothing is stored).
//
// On MySQL and MariaDB the transaction is one round trip: START
// TRANSACTION, guard, the check, then, COMMIT, sent as one multi-statement
// query, instead of one round trip per statement and two for the
// transaction (issue 21: an answer's claim went from four round trips to
// one, its completion from five or six to one). A script that fails part
// way (the check when guard lost, a duplicate key, a deadlock) is rolled
// back on its connection before the connection is given back; a deadlock
// victim is run again, up to 3 times, as Transaction does. Elsewhere
// (SQLite) it is a Transaction of the same statements.
func GuardedScript(ctx context.Context, gdb *gorm.DB, guard Stmt, then ...Stmt) (bool, error) {
	if gdb.Dialector.Name() != "mysql" {
		won := false
		err := Transaction(ctx, gdb, func(tx *gorm.DB) error {
			res := tx.Exec(guard.SQL, guard.Vars...)
			if res.Error != nil || res.RowsAffected != 1 {
				return res.Error
			}
			for _, s := range then {
				if err := tx.Exec(s.SQL, s.Vars...).Error; err != nil {
					return err
				}
			}
			won = true
			return nil
		})
		return won, err
	}
	var b strings.Builder
	b.WriteString("START TRANSACTION" + ScriptSeparator + guard.SQL + ScriptSeparator + scriptCheck + ScriptSeparator)
	vars := append([]any(nil), guard.Vars...)
	for _, s := range then {
		b.WriteString(s.SQL + ScriptSeparator)
		vars = append(vars, s.Vars...)
	}
	b.WriteString("COMMIT")
	script := b.String()
	var err error
	for attempt := range 3 {
		err = gdb.WithContext(ctx).Connection(func(tx *gorm.DB) error {
			err := tx.Exec(script, vars...).Error
			if err != nil {
				// Whatever ran stays uncommitted on this connection: undo
				// it before the pool hands the connection out again (on
				// the connection itself: tx carries the script's error).
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				_, _ = tx.Statement.ConnPool.ExecContext(rctx, "ROLLBACK")
				cancel()
			}
			return err
		})
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == errSubqueryRows {
			return false, nil
		}
		if !isDeadlock(err) {
			break
		}
		select {
		case <-ctx.Done():
			return false, Translate(err)
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		}
	}
	if err != nil {
		return false, Translate(err)
	}
	return true, nil
}
