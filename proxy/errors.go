package proxy

import "errors"

var (
	// ErrApply: nft rejected a script (the message says why).
	ErrApply = errors.New("proxy: apply rules")
	// ErrNoBackend: neither nft nor a usable replacement is installed.
	ErrNoBackend = errors.New("proxy: nft is not installed")
	// ErrInvalidConfig: a required Config field is missing.
	ErrInvalidConfig = errors.New("proxy: invalid config")
)
