package pki

import "errors"

// Sentinel errors, wrapped with the file or subject they concern; check
// with errors.Is.
var (
	// ErrMalformed: a certificate or key is not PEM, or not a form pki
	// reads (an unknown key type, a key that cannot sign).
	ErrMalformed = errors.New("pki: malformed certificate or key")
	// ErrKeyMismatch: a CA's key is not the key of its certificate.
	ErrKeyMismatch = errors.New("pki: key does not match certificate")
)
