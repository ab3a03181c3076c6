// Package authn owns the first stage of the API server's handler chain:
// finding out who made a request.
//
// An Authenticator looks at one kind of credential — a verified TLS client
// certificate (X509), a static bearer token (TokenFile), HTTP basic
// credentials (BasicAuthFile) or an OpenID Connect ID token (OIDC) — and
// either names the User, says the request carries no credential of its kind
// (ok=false, nil error), or rejects the credential it found (an error).
// Union runs several in order, adds the group system:authenticated, and
// falls back to the anonymous user when that is enabled.
//
// Every error returned while authenticating a request satisfies
// errors.Is(err, ErrUnauthorized), so the server maps it to a 401 Status
// in one place; errors while loading a file are *LineError or wrap
// ErrInvalidFile. The behaviour follows kube-apiserver's authenticators.
//
//	request ─▶ Union ─┬─ X509        (r.TLS.PeerCertificates)
//	                  ├─ TokenFile   (Authorization: Bearer)
//	                  ├─ OIDC        (Authorization: Bearer <JWT>)
//	                  ├─ BasicAuth   (Authorization: Basic)
//	                  └─ anonymous?  (system:anonymous / system:unauthenticated)
//
// The package depends only on the object model: the API server runs the
// authenticators, and admission plugins read the User they found, so it
// sits below both.
package authn
