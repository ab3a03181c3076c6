package authn

import (
	"net/http"
	"slices"
)

// UnionAuthenticator tries several authenticators in order. It is
// immutable after construction and safe for concurrent use.
type UnionAuthenticator struct {
	auths     []Authenticator
	anonymous bool
}

var _ Authenticator = (*UnionAuthenticator)(nil)

// Union returns an authenticator that asks auths in order; the first that
// answers ok wins, and its user gets the group system:authenticated. As in
// kube-apiserver, an authenticator that rejects a credential does not stop
// the later ones (a bearer token unknown to a token file may still be a
// valid OIDC token), but if none accepts the request, any rejection fails
// it with a *UnionError (401) — a bad credential never falls back to
// anonymous, and neither does a bearer token no authenticator claims
// (ErrInvalidToken). When no authenticator saw a credential at all, the request
// runs as system:anonymous in group system:unauthenticated if anonymous is
// true, else fails with ErrNoCredentials. Nil entries are skipped.
func Union(anonymous bool, auths ...Authenticator) *UnionAuthenticator {
	list := make([]Authenticator, 0, len(auths))
	for _, a := range auths {
		if a != nil {
			list = append(list, a)
		}
	}
	return &UnionAuthenticator{auths: list, anonymous: anonymous}
}

// AuthenticateRequest implements Authenticator. It never returns ok=false
// with a nil error: the answer is a user or a 401 error.
func (u *UnionAuthenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	var errs []error
	for _, a := range u.auths {
		user, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok && user != nil {
			return withAuthenticatedGroup(user), true, nil
		}
	}
	if len(errs) > 0 {
		return nil, false, &UnionError{Errs: errs}
	}
	if _, found := BearerToken(r); found {
		// Like kube-apiserver: a bearer token nobody claims is invalid,
		// never a reason to fall back to anonymous.
		return nil, false, ErrInvalidToken
	}
	if !u.anonymous {
		return nil, false, ErrNoCredentials
	}
	return &User{Name: AnonymousUser, Groups: []string{GroupUnauthenticated}}, true, nil
}

// withAuthenticatedGroup returns a copy of user with system:authenticated
// added, unless it is anonymous or already in either system group (as
// Kubernetes' AuthenticatedGroupAdder does).
func withAuthenticatedGroup(user *User) *User {
	c := user.Clone()
	if c.Name == AnonymousUser ||
		slices.Contains(c.Groups, GroupAuthenticated) ||
		slices.Contains(c.Groups, GroupUnauthenticated) {
		return c
	}
	c.Groups = append(c.Groups, GroupAuthenticated)
	return c
}
