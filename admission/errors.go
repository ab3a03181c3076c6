package admission

import "errors"

// Sentinel errors of the built-in plugins and the initializer runner.
// They are wrapped with %w (inside the Status a plugin returns, or in the
// error a constructor returns) and checked with errors.Is.
var (
	// ErrWrongType: the request names a kind (pods, persistentvolumeclaims)
	// but carries an object of another Go type. The plugins report it as a
	// 400 BadRequest Status; it is a wiring bug in the server.
	ErrWrongType = errors.New("admission: object of the wrong type for its resource")

	// ErrQuotaContention: the ResourceQuota plugin lost the compare-and-swap
	// on a quota's status more times than its retry budget allows.
	ErrQuotaContention = errors.New("admission: too much contention on resource quota status")

	// ErrInvalidRunner: NewRunner was given no source, no resources, an
	// initializer without a name or two initializers of the same name.
	ErrInvalidRunner = errors.New("admission: invalid initializer runner configuration")
)
