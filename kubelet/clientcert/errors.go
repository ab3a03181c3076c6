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
