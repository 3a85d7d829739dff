package page

import (
	"errors"
	"math"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    Request
		ok   bool
	}{
		{"first page", Request{Current: 1, Size: 10}, true},
		{"largest page of 100", Request{Current: math.MaxInt64 / 100, Size: 100}, true},
		{"one past the largest page of 100", Request{Current: math.MaxInt64/100 + 1, Size: 100}, false},
		{"max int with size 100", Request{Current: math.MaxInt64, Size: 100}, false},
		{"max int with size 1", Request{Current: math.MaxInt64, Size: 1}, true},
		{"max int with size 2", Request{Current: math.MaxInt64, Size: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.Validate()
			if got := err == nil; got != tt.ok {
				t.Fatalf("Validate(%+v) = %v, want ok=%v", tt.r, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("Validate error %v is not ErrOutOfRange", err)
			}
			if err == nil && tt.r.Offset() < 0 {
				t.Fatalf("valid page %+v has negative offset %d", tt.r, tt.r.Offset())
			}
		})
	}
}
