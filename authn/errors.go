package authn

import (
	"errors"
	"fmt"
)

// ErrUnauthorized is the root of every error returned while authenticating
// a request: the server answers 401 Unauthorized for anything that
// errors.Is it.
var ErrUnauthorized = errors.New("unauthorized")

// Request-time errors. Each wraps ErrUnauthorized.
var (
	// ErrNoCredentials: the request carried no credential any authenticator
	// accepts and anonymous requests are disabled.
	ErrNoCredentials = fmt.Errorf("%w: no credentials", ErrUnauthorized)
	// ErrInvalidToken: a bearer token was presented that is not known.
	ErrInvalidToken = fmt.Errorf("%w: invalid bearer token", ErrUnauthorized)
	// ErrInvalidBasicAuth: basic credentials were presented that do not match.
	ErrInvalidBasicAuth = fmt.Errorf("%w: invalid basic auth", ErrUnauthorized)
	// ErrInvalidCertificate: a client certificate was presented that does
	// not verify against the trusted roots, or names no user.
	ErrInvalidCertificate = fmt.Errorf("%w: invalid client certificate", ErrUnauthorized)
	// ErrMalformedToken: a JWT could not be parsed.
	ErrMalformedToken = fmt.Errorf("%w: malformed token", ErrUnauthorized)
	// ErrUnsupportedAlgorithm: a JWT names an algorithm other than RS256
	// or ES256 ("none" included).
	ErrUnsupportedAlgorithm = fmt.Errorf("%w: unsupported signing algorithm", ErrUnauthorized)
	// ErrUnknownKey: a JWT names a key id the issuer does not publish, even
	// after refetching its key set.
	ErrUnknownKey = fmt.Errorf("%w: unknown signing key", ErrUnauthorized)
	// ErrBadSignature: a JWT's signature does not verify.
	ErrBadSignature = fmt.Errorf("%w: signature verification failed", ErrUnauthorized)
	// ErrTokenExpired: a JWT's exp is in the past (beyond the clock skew).
	ErrTokenExpired = fmt.Errorf("%w: token is expired", ErrUnauthorized)
	// ErrInvalidClaims: a JWT's iss, aud, nbf, iat, username, groups,
	// email_verified or required claims do not hold.
	ErrInvalidClaims = fmt.Errorf("%w: invalid token claims", ErrUnauthorized)
	// ErrTokenInvalidated: a service-account token verifies but the
	// account, or the pod, secret or node it is bound to, is gone or was
	// replaced (another UID), as kube-apiserver words it.
	ErrTokenInvalidated = fmt.Errorf("%w: service account token has been invalidated", ErrUnauthorized)
	// ErrProviderUnavailable: the OIDC discovery document or key set could
	// not be fetched or parsed.
	ErrProviderUnavailable = fmt.Errorf("%w: identity provider unavailable", ErrUnauthorized)
)

// Load-time and configuration errors.
var (
	// ErrInvalidFile: a token or password file is malformed. The concrete
	// error is a *LineError naming the file and line.
	ErrInvalidFile = errors.New("invalid credentials file")
	// ErrInvalidConfig: an authenticator's configuration is unusable.
	ErrInvalidConfig = errors.New("invalid authenticator configuration")
)

// LineError reports a malformed line of a token or password file. It
// wraps ErrInvalidFile. Line is 1-based; 0 means the file as a whole.
type LineError struct {
	Path string // file name, or "" when loaded from a reader
	Line int
	Msg  string
}

// Error formats the error as "path:line: msg".
func (e *LineError) Error() string {
	name := e.Path
	if name == "" {
		name = "<input>"
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", name, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", name, e.Line, e.Msg)
}

// Unwrap returns ErrInvalidFile.
func (e *LineError) Unwrap() error { return ErrInvalidFile }

// UnionError is what Union returns when no authenticator accepted the
// request and at least one rejected a credential. It wraps every
// rejection, and ErrUnauthorized through them.
type UnionError struct {
	Errs []error
}

// Error joins the rejections.
func (e *UnionError) Error() string {
	return errors.Join(e.Errs...).Error()
}

// Unwrap returns the rejections.
func (e *UnionError) Unwrap() []error { return e.Errs }

// Is reports ErrUnauthorized even if an authenticator returned a foreign
// error, so the server always answers 401.
func (e *UnionError) Is(target error) bool { return target == ErrUnauthorized }
