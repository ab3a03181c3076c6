package store

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// continueVersion is the first byte of every encoded token; bump it when the
// layout changes so old tokens fail cleanly with ErrInvalidContinue.
const continueVersion = 1

// maxContinueLen bounds the encoded token a decoder will look at.
const maxContinueLen = 4 * MaxKeySize

// ContinueToken is the decoded form of ListResult.Continue: the revision the
// first page was read at and the last key already returned; the next page
// starts after it.
// Backends may use it to build their own opaque tokens; callers treat tokens
// as opaque strings.
type ContinueToken struct {
	Revision int64
	After    string
}

// Encode returns the token as an opaque URL-safe string.
func (c ContinueToken) Encode() string {
	buf := make([]byte, 0, 1+binary.MaxVarintLen64+len(c.After))
	buf = append(buf, continueVersion)
	buf = binary.AppendUvarint(buf, uint64(c.Revision))
	buf = append(buf, c.After...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// DecodeContinue parses token, which must have come from a List under
// prefix. Every failure (bad encoding, unknown version, non-positive
// revision, a last key that is not a valid key under prefix) wraps
// ErrInvalidContinue; DecodeContinue never panics.
func DecodeContinue(token, prefix string) (ContinueToken, error) {
	bad := func(reason string) (ContinueToken, error) {
		return ContinueToken{}, fmt.Errorf("continue token: %s: %w", reason, ErrInvalidContinue)
	}
	if len(token) > maxContinueLen {
		return bad("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return bad("not base64url")
	}
	if len(raw) == 0 || raw[0] != continueVersion {
		return bad("unknown version")
	}
	rev, n := binary.Uvarint(raw[1:])
	if n <= 0 || rev == 0 || rev > 1<<62 {
		return bad("bad revision")
	}
	key := string(raw[1+n:])
	if !strings.HasPrefix(key, prefix) {
		return bad("issued for another prefix")
	}
	if ValidateKey(key) != nil {
		return bad("bad key")
	}
	return ContinueToken{Revision: int64(rev), After: key}, nil
}
