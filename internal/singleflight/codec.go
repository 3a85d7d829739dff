package singleflight

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Payload encodings stored in the result hash's "enc" field.
const (
	encRaw  = "raw"
	encGzip = "gzip"
)

// errCorrupt reports a stored payload that does not match its size or
// checksum. It never reaches a caller: a corrupt result is a miss.
var errCorrupt = errors.New("singleflight: stored result is corrupt")

// payload is a result as stored in Redis: binary-safe bytes with their
// encoding, the original and stored sizes, and the SHA-256 of the original.
type payload struct {
	Enc    string
	Size   int    // bytes before encoding
	Stored int    // bytes of Data
	Sum    string // hex SHA-256 of the original bytes
	Data   []byte
}

// encodePayload encodes v, gzip-compressing it when it is longer than
// compressOver bytes (and compressOver > 0) and compression pays.
func encodePayload(v []byte, compressOver int) payload {
	sum := sha256.Sum256(v)
	p := payload{Enc: encRaw, Size: len(v), Stored: len(v), Sum: hex.EncodeToString(sum[:]), Data: v}
	if compressOver > 0 && len(v) > compressOver {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(v) // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		if b.Len() < len(v) {
			p.Enc, p.Data, p.Stored = encGzip, b.Bytes(), b.Len()
		}
	}
	return p
}

// decode returns the original bytes, or errCorrupt when the encoding, the
// sizes or the checksum do not match.
func (p payload) decode() ([]byte, error) {
	if len(p.Data) != p.Stored {
		return nil, errCorrupt
	}
	var v []byte
	switch p.Enc {
	case encRaw:
		v = p.Data
	case encGzip:
		zr, err := gzip.NewReader(bytes.NewReader(p.Data))
		if err != nil {
			return nil, errCorrupt
		}
		// Never inflate past the recorded size: a corrupt size cannot make us
		// allocate without bound.
		v, err = io.ReadAll(io.LimitReader(zr, int64(p.Size)+1))
		if err != nil {
			return nil, errCorrupt
		}
	default:
		return nil, errCorrupt
	}
	if len(v) != p.Size {
		return nil, errCorrupt
	}
	sum := sha256.Sum256(v)
	if hex.EncodeToString(sum[:]) != p.Sum {
		return nil, errCorrupt
	}
	return v, nil
}

// payloadFrom builds a payload from the four stored fields (enc, size,
// stored, sum) and the data as Redis returns them; missing or malformed
// fields give a payload that decode rejects.
func payloadFrom(enc, size, stored, sum any, data any) payload {
	str := func(x any) string { s, _ := x.(string); return s }
	num := func(x any) int {
		n, err := strconv.Atoi(str(x))
		if err != nil {
			return -1
		}
		return n
	}
	return payload{Enc: str(enc), Size: num(size), Stored: num(stored), Sum: str(sum), Data: []byte(str(data))}
}

// Failure is a failed call as stored in Redis and replayed to followers and
// later callers.
type Failure struct {
	Type      string // Go type of the error, for diagnostics
	Code      string // envelope code (from ErrorCode() string), may be empty
	Message   string
	Retryable bool // a retryable failure lets the next caller take over at once
}

// ErrorCodec turns fn's errors into stored failures and stored failures back
// into errors for replay.
type ErrorCodec interface {
	Encode(err error) Failure
	Decode(f Failure) error
}

// codec returns the policy's codec, DefaultErrorCodec when it has none.
func (p Policy) codec() ErrorCodec {
	if p.Codec == nil {
		return DefaultErrorCodec{}
	}
	return p.Codec
}

// DefaultErrorCodec is the codec of a policy whose Codec is nil. Encode
// takes Retryable from the first error in the chain with an
// IsRetryable() bool method (errors with none are retryable: an unclassified
// error must not block the request for FailedTTL) and Code from the first
// with an ErrorCode() string method. Decode returns a *ReplayedError.
type DefaultErrorCodec struct{}

var _ ErrorCodec = DefaultErrorCodec{}

// Encode implements ErrorCodec.
func (DefaultErrorCodec) Encode(err error) Failure {
	f := Failure{Type: fmt.Sprintf("%T", err), Message: err.Error(), Retryable: true}
	var r interface{ IsRetryable() bool }
	if errors.As(err, &r) {
		f.Retryable = r.IsRetryable()
	}
	var c interface{ ErrorCode() string }
	if errors.As(err, &c) {
		f.Code = c.ErrorCode()
	}
	return f
}

// Decode implements ErrorCodec.
func (DefaultErrorCodec) Decode(f Failure) error { return &ReplayedError{Failure: f} }

// ReplayedError is a failure of an earlier call of the same flight (by this
// or another instance), replayed without calling the model.
type ReplayedError struct {
	Failure
}

// Error returns the original message.
func (e *ReplayedError) Error() string { return e.Message }

// IsRetryable reports whether the original failure was retryable.
func (e *ReplayedError) IsRetryable() bool { return e.Retryable }

// ErrorCode returns the original envelope code.
func (e *ReplayedError) ErrorCode() string { return e.Code }

// PanicError is the error every caller of a flight receives when fn panicked.
type PanicError struct {
	Value any    // what fn panicked with
	Stack []byte // the stack of the panic
}

// Error implements error.
func (e *PanicError) Error() string {
	return fmt.Sprintf("singleflight: fn panicked: %v", e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
