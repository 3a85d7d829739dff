package db

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&mysql.MySQLError{Number: 1213}, true},
		{fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: 1205}), true},
		{&mysql.MySQLError{Number: 1062}, false},
		{driver.ErrBadConn, true},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{errors.New("record not found"), false},
	}
	for _, tt := range tests {
		if got := IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestLikePattern(t *testing.T) {
	if got := LikePattern("50%_a!"); got != "%50!%!_a!!%" {
		t.Fatalf("LikePattern = %q", got)
	}
}
