package clientcert

import "errors"

var (
	// ErrInvalidConfig reports a Config New cannot use.
	ErrInvalidConfig = errors.New("clientcert: invalid config")
	// ErrDenied reports a request the cluster denied or failed to sign.
	ErrDenied = errors.New("clientcert: certificate request denied or failed")
	// ErrNoCertificate reports a Manager with no certificate yet (call
	// Bootstrap first).
	ErrNoCertificate = errors.New("clientcert: no certificate yet")
)

var (
	// ErrInvalidCAHash reports a CA pin that is not "sha256:" and 64 hex
	// digits.
	ErrInvalidCAHash = errors.New("clientcert: invalid CA hash")
	// ErrCAMismatch reports a server whose TLS chain holds no CA with the
	// pinned public key, or whose certificate does not verify under it.
	ErrCAMismatch = errors.New("clientcert: the server's CA does not match the pinned hash")
)
