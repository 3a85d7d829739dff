// Package page holds the pagination request and result shared by every list
// endpoint: current is 1-based, size defaults to 10 and is at most 100.
package page

import (
	"errors"
	"fmt"
	"math"
)

// Limits of a page request.
const (
	DefaultSize = 10
	MaxSize     = 100
)

// Request asks for one page.
type Request struct {
	Current int
	Size    int
}

// Normalize returns r with defaults applied and bounds enforced.
func (r Request) Normalize() Request {
	if r.Current < 1 {
		r.Current = 1
	}
	if r.Size < 1 {
		r.Size = DefaultSize
	}
	if r.Size > MaxSize {
		r.Size = MaxSize
	}
	return r
}

// ErrOutOfRange is returned by Validate for a page whose records lie
// beyond any representable offset.
var ErrOutOfRange = errors.New("page out of range")

// Validate rejects a page whose end, Current × Size, does not fit in an
// int64: its Offset would overflow and wrap around to an earlier page.
// r is expected to be normalized.
func (r Request) Validate() error {
	if r.Size > 0 && int64(r.Current) > math.MaxInt64/int64(r.Size) {
		return fmt.Errorf("%w: current × size must be at most %d, current is %d with size %d",
			ErrOutOfRange, int64(math.MaxInt64), r.Current, r.Size)
	}
	return nil
}

// Offset is the number of records before the page.
func (r Request) Offset() int { return (r.Current - 1) * r.Size }

// Result is one page of records.
type Result[T any] struct {
	Records []T   `json:"records"`
	Total   int64 `json:"total"`
	Size    int   `json:"size"`
	Current int   `json:"current"`
	Pages   int64 `json:"pages"`
}

// NewResult builds the page result for records out of total.
func NewResult[T any](r Request, records []T, total int64) Result[T] {
	if records == nil {
		records = []T{}
	}
	pages := int64(0)
	if r.Size > 0 {
		pages = (total + int64(r.Size) - 1) / int64(r.Size)
	}
	return Result[T]{Records: records, Total: total, Size: r.Size, Current: r.Current, Pages: pages}
}

// Map converts the records of a page.
func Map[T, U any](p Result[T], f func(T) U) Result[U] {
	out := make([]U, len(p.Records))
	for i, r := range p.Records {
		out[i] = f(r)
	}
	return Result[U]{Records: out, Total: p.Total, Size: p.Size, Current: p.Current, Pages: p.Pages}
}
