package bootstraptoken

import (
	"context"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authn"
)

// SecretGetter reads one Secret; the API server's storage, or a client.
type SecretGetter interface {
	GetSecret(ctx context.Context, namespace, name string) (*core.Secret, error)
}

// SecretGetterFunc adapts a function to SecretGetter.
type SecretGetterFunc func(ctx context.Context, namespace, name string) (*core.Secret, error)

// GetSecret calls f.
func (f SecretGetterFunc) GetSecret(ctx context.Context, namespace, name string) (*core.Secret, error) {
	return f(ctx, namespace, name)
}

// Authenticator authenticates bearer tokens of the bootstrap form against
// their Secrets, as kube-apiserver does: the Secret
// kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token
// must hold the same token-id and token-secret, allow
// usage-bootstrap-authentication, not be expired nor being deleted. The
// user is system:bootstrap:<id> in system:bootstrappers plus the Secret's
// auth-extra-groups (each system:bootstrappers:<name>).
//
// Like Kubernetes', it never fails a request: a token it cannot vouch for
// is "not mine" (ok=false, nil error), so other token authenticators may
// try and the union answers 401. Safe for concurrent use; it keeps only
// the getter.
type Authenticator struct {
	secrets SecretGetter
	now     func() time.Time
}

var _ authn.Authenticator = (*Authenticator)(nil)

// NewAuthenticator returns an Authenticator reading Secrets through g.
func NewAuthenticator(g SecretGetter) *Authenticator {
	return &Authenticator{secrets: g, now: time.Now}
}

// AuthenticateRequest implements authn.Authenticator.
func (a *Authenticator) AuthenticateRequest(r *http.Request) (*authn.User, bool, error) {
	tok, ok := authn.BearerToken(r)
	if !ok {
		return nil, false, nil
	}
	u, ok := a.AuthenticateToken(r.Context(), tok)
	return u, ok, nil
}

// AuthenticateToken checks a bearer token taken from elsewhere.
func (a *Authenticator) AuthenticateToken(ctx context.Context, bearer string) (*authn.User, bool) {
	t, err := Parse(bearer)
	if err != nil {
		return nil, false
	}
	s, err := a.secrets.GetSecret(ctx, Namespace, SecretPrefix+t.ID)
	if err != nil || s == nil || s.Type != SecretType || s.DeletionTimestamp != nil {
		return nil, false
	}
	if string(s.Data[KeyTokenID]) != t.ID || subtle.ConstantTimeCompare(s.Data[KeyTokenSecret], []byte(t.Secret)) != 1 {
		return nil, false
	}
	if string(s.Data[KeyUsageAuthenticate]) != "true" || a.expired(s) {
		return nil, false
	}
	groups, ok := extraGroups(s)
	if !ok {
		return nil, false
	}
	return &authn.User{Name: UserPrefix + t.ID, Groups: append([]string{Group}, groups...)}, true
}

// expired reports an expiration in the past, or one that does not parse.
func (a *Authenticator) expired(s *core.Secret) bool {
	v, ok := s.Data[KeyExpiration]
	if !ok {
		return false
	}
	exp, err := time.Parse(time.RFC3339, string(v))
	return err != nil || !a.now().Before(exp)
}

// extraGroups returns the Secret's auth-extra-groups; ok=false when one
// is not a system:bootstrappers:<name> group.
func extraGroups(s *core.Secret) ([]string, bool) {
	v := strings.TrimSpace(string(s.Data[KeyAuthExtraGroups]))
	if v == "" {
		return nil, true
	}
	var out []string
	for _, g := range strings.Split(v, ",") {
		g = strings.TrimSpace(g)
		name, ok := strings.CutPrefix(g, extraGroupPrefix)
		if !ok || name == "" || len(g) > maxExtraGroupNameSize || strings.ContainsFunc(name, badGroupChar) {
			return nil, false
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out, true
}

func badGroupChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == ':' || r == '-')
}
