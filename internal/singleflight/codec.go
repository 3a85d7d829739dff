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
	"strings"
)

// Payload encodings, the first word of a stored payload's header.
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

// header is the stored form of p's encoding, sizes and checksum, one field
// beside the data ("raw 40 40 <sha256 hex>"): fewer fields make the scripts
// cheaper in Redis.
func (p payload) header() string {
	b := make([]byte, 0, len(p.Enc)+len(p.Sum)+24)
	b = append(b, p.Enc...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Size), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Stored), 10)
	b = append(b, ' ')
	b = append(b, p.Sum...)
	return string(b)
}

// payloadFrom builds a payload from its stored header and data as Redis
// returns them; a missing or malformed header gives a payload that decode
// rejects.
func payloadFrom(header, data any) payload {
	h, _ := header.(string)
	d, _ := data.(string)
	p := payload{Size: -1, Stored: -1, Data: []byte(d)}
	enc, rest, _ := strings.Cut(h, " ")
	size, rest, _ := strings.Cut(rest, " ")
	stored, sum, ok := strings.Cut(rest, " ")
	if !ok {
		return p
	}
	var err1, err2 error
	p.Size, err1 = strconv.Atoi(size)
	p.Stored, err2 = strconv.Atoi(stored)
	if err1 != nil || err2 != nil {
		p.Size, p.Stored = -1, -1
	}
	p.Enc, p.Sum = enc, sum
	return p
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
