package authn

import (
	"maps"
	"net/http"
	"slices"
)

// Well-known user and group names, as Kubernetes spells them.
const (
	// AnonymousUser is the user of a request without credentials.
	AnonymousUser = "system:anonymous"
	// GroupUnauthenticated holds the anonymous user.
	GroupUnauthenticated = "system:unauthenticated"
	// GroupAuthenticated holds every user that presented a valid credential.
	GroupAuthenticated = "system:authenticated"
	// GroupMasters is the group the authorizer always allows.
	GroupMasters = "system:masters"
	// GroupNodes holds every kubelet (users system:node:<name>).
	GroupNodes = "system:nodes"
	// GroupBootstrappers holds every bootstrap token's user
	// (system:bootstrap:<token id>), as Kubernetes names it.
	GroupBootstrappers = "system:bootstrappers"
)

// User is who made a request. A User returned by an Authenticator belongs
// to the caller, who may change it; authenticators never hand out a value
// they keep.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// InGroup reports whether u is a member of group g. A nil u is in no group.
func (u *User) InGroup(g string) bool {
	return u != nil && slices.Contains(u.Groups, g)
}

// Clone returns a deep copy of u (nil for nil).
func (u *User) Clone() *User {
	if u == nil {
		return nil
	}
	c := &User{Name: u.Name, UID: u.UID, Groups: slices.Clone(u.Groups)}
	if u.Extra != nil {
		c.Extra = make(map[string][]string, len(u.Extra))
		for k, v := range maps.All(u.Extra) {
			c.Extra[k] = slices.Clone(v)
		}
	}
	return c
}

// Authenticator finds the user of a request. ok=false with a nil error
// means "no credentials of my kind": the next authenticator is tried. An
// error means credentials were presented and are invalid; it wraps
// ErrUnauthorized. Implementations are safe for concurrent use and must
// not keep r.
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (u *User, ok bool, err error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (*User, bool, error)

// AuthenticateRequest calls f(r).
func (f AuthenticatorFunc) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	return f(r)
}

var _ Authenticator = AuthenticatorFunc(nil)
