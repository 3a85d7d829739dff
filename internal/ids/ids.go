// Package ids makes opaque, time-ordered identifiers for rows and sessions.
package ids

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"time"
)

var enc = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// New returns a 26-character identifier: 48 bits of milliseconds since the
// Unix epoch followed by 80 random bits, so identifiers sort by creation time
// and never collide in practice across instances.
func New() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	return enc.EncodeToString(b[:])
}

// Token returns a random URL-safe secret of n bytes of entropy.
func Token(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	return enc.EncodeToString(b)
}
