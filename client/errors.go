package client

import "errors"

// Sentinel errors of the client. Every error the client returns that is
// not a server's *meta.Status wraps one of these (check with errors.Is);
// errors from the server wrap the decoded *meta.Status instead (check with
// the api/errors predicates or errors.As).
var (
	// ErrInvalidKubeconfig: a kubeconfig that is malformed, incomplete or
	// contradicts itself (a context naming a missing cluster, both a
	// certificate file and certificate data, two ways of authenticating).
	ErrInvalidKubeconfig = errors.New("invalid kubeconfig")
	// ErrInvalidConfig: a Config that cannot be used (no host, a
	// certificate without its key, PEM that does not parse).
	ErrInvalidConfig = errors.New("invalid client config")
	// ErrNotRegistered: a Go type or kind the client's scheme does not know.
	ErrNotRegistered = errors.New("kind not registered in the client's scheme")
	// ErrNoMatch: discovery has no resource or kind of that name.
	ErrNoMatch = errors.New("no matching resource on the server")
	// ErrDecode: a response body or watch frame that is not what the API
	// promises (malformed JSON, a frame over the size limit, a missing type).
	ErrDecode = errors.New("decode response")
	// ErrRequest: a request that could not be built (a missing name, an
	// object that does not encode).
	ErrRequest = errors.New("bad request")
	// ErrRetriesExhausted wraps the last error when every retry failed.
	ErrRetriesExhausted = errors.New("retries exhausted")
)
