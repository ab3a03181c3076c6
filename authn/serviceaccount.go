package authn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// serviceAccountLeeway is the clock skew allowed on exp, nbf and iat, as
// kube-apiserver's validator allows (go-jose's default).
const serviceAccountLeeway = time.Minute

// deletedGrace is how long after its deletion began a bound object still
// vouches for its tokens (kube-apiserver's figure): a terminating pod may
// still call the API while it shuts down.
const deletedGrace = 60 * time.Second

// ServiceAccountObjects reads the objects service-account tokens name:
// the service account itself and the pod, secret or node a token is
// bound to. Resource is "serviceaccounts", "pods", "secrets" or "nodes"
// (namespace "" for nodes). found is false when the object does not
// exist; an error means the answer is unknown. The returned metadata is
// not changed by the caller. Implementations are safe for concurrent use
// and cheap (one read per authenticated request).
type ServiceAccountObjects interface {
	ObjectMeta(ctx context.Context, resource, namespace, name string) (m *meta.ObjectMeta, found bool, err error)
}

// ServiceAccountAuthenticator accepts the service-account tokens of one
// TokenIssuer, as kube-apiserver's service-account authenticator does: a
// bearer JWT whose iss is the issuer's (any other token is not its
// kind), signed by one of its keys, not expired, for one of the API
// audiences, whose service account still exists with the same UID, as
// does the object it is bound to. The user is
// system:serviceaccount:<ns>:<name> (UID the account's) in groups
// system:serviceaccounts and system:serviceaccounts:<ns>, with the bound
// pod's and node's names and UIDs and the token's ID in its extra. It is
// immutable and safe for concurrent use.
type ServiceAccountAuthenticator struct {
	issuer  *TokenIssuer
	objects ServiceAccountObjects
}

var _ Authenticator = (*ServiceAccountAuthenticator)(nil)

// Authenticator returns the authenticator of ti's tokens, reading the
// objects they name through objects.
func (ti *TokenIssuer) Authenticator(objects ServiceAccountObjects) *ServiceAccountAuthenticator {
	return &ServiceAccountAuthenticator{issuer: ti, objects: objects}
}

// AuthenticateRequest implements Authenticator for the request's bearer
// token.
func (a *ServiceAccountAuthenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	tok, found := BearerToken(r)
	if !found {
		return nil, false, nil
	}
	return a.AuthenticateToken(r.Context(), tok)
}

// AuthenticateToken checks one token. ok=false with a nil error means the
// token is not a JWT of this issuer; an error (wrapping ErrUnauthorized)
// means it is one and is not valid.
func (a *ServiceAccountAuthenticator) AuthenticateToken(ctx context.Context, tok string) (*User, bool, error) {
	if len(tok) > MaxTokenSize || strings.Count(tok, ".") != 2 {
		return nil, false, nil
	}
	t, err := ParseJWT(tok)
	if err != nil {
		return nil, false, nil // not a JWT orkit can read: not ours
	}
	if iss, _, _ := t.StringClaim("iss"); iss != a.issuer.cfg.Issuer {
		return nil, false, nil
	}
	if err := a.verify(t); err != nil {
		return nil, false, fmt.Errorf("service account token: %w", err)
	}
	var c tokenClaims
	if err := decodeClaims(t, &c); err != nil {
		return nil, false, fmt.Errorf("service account token: %w", err)
	}
	if err := a.checkClaims(c); err != nil {
		return nil, false, fmt.Errorf("service account token: %w", err)
	}
	if err := a.checkObjects(ctx, c.Kube); err != nil {
		return nil, false, fmt.Errorf("service account token: %w", err)
	}
	return userOfToken(c), true, nil
}

// verify checks the signature with the key the header names (every key
// when it names none).
func (a *ServiceAccountAuthenticator) verify(t *JWT) error {
	tried := false
	for _, k := range a.issuer.keys {
		if k.alg != t.Header.Alg || (t.Header.Kid != "" && k.kid != t.Header.Kid) {
			continue
		}
		tried = true
		if t.Verify(k.key) == nil {
			return nil
		}
	}
	if !tried {
		return fmt.Errorf("%w: kid %q", ErrUnknownKey, t.Header.Kid)
	}
	return ErrBadSignature
}

// decodeClaims decodes the verified payload into c.
func decodeClaims(t *JWT, c *tokenClaims) error {
	raw, err := json.Marshal(t.Claims)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidClaims, err)
	}
	if err := json.Unmarshal(raw, c); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidClaims, err)
	}
	return nil
}

// checkClaims checks times, audience and the account's claims.
func (a *ServiceAccountAuthenticator) checkClaims(c tokenClaims) error {
	now := a.issuer.cfg.Now()
	switch {
	case c.Expiry == 0:
		return fmt.Errorf("%w: exp claim is missing", ErrInvalidClaims)
	case now.After(time.Unix(c.Expiry, 0).Add(serviceAccountLeeway)):
		return fmt.Errorf("%w: expired at %s", ErrTokenExpired, time.Unix(c.Expiry, 0).UTC().Format(time.RFC3339))
	case c.NotBefore != 0 && now.Add(serviceAccountLeeway).Before(time.Unix(c.NotBefore, 0)):
		return fmt.Errorf("%w: not valid before %s", ErrInvalidClaims, time.Unix(c.NotBefore, 0).UTC().Format(time.RFC3339))
	case c.IssuedAt != 0 && now.Add(serviceAccountLeeway).Before(time.Unix(c.IssuedAt, 0)):
		return fmt.Errorf("%w: issued in the future", ErrInvalidClaims)
	}
	if !slices.ContainsFunc(c.Audience, func(aud string) bool { return slices.Contains(a.issuer.cfg.APIAudiences, aud) }) {
		return fmt.Errorf("%w: token audiences %q is invalid for the target audiences %q", ErrInvalidClaims, c.Audience, a.issuer.cfg.APIAudiences)
	}
	k := c.Kube
	if k.Namespace == "" || k.ServiceAccount.Name == "" || k.ServiceAccount.UID == "" ||
		c.Subject != ServiceAccountUsername(k.Namespace, k.ServiceAccount.Name) {
		return fmt.Errorf("%w: kubernetes.io claim does not name a service account matching sub %q", ErrInvalidClaims, c.Subject)
	}
	return nil
}

// checkObjects checks that the account and the bound objects exist with
// the UIDs the token names, and are not deleted (beyond deletedGrace).
func (a *ServiceAccountAuthenticator) checkObjects(ctx context.Context, k kubernetesClaim) error {
	refs := []struct {
		resource, namespace string
		ref                 *ObjectRef
	}{
		{"serviceaccounts", k.Namespace, &k.ServiceAccount},
		{"pods", k.Namespace, k.Pod},
		{"secrets", k.Namespace, k.Secret},
	}
	if k.Pod == nil { // a pod-bound token names its node for information only
		refs = append(refs, struct {
			resource, namespace string
			ref                 *ObjectRef
		}{"nodes", "", k.Node})
	}
	now := a.issuer.cfg.Now()
	for _, r := range refs {
		if r.ref == nil {
			continue
		}
		m, found, err := a.objects.ObjectMeta(ctx, r.resource, r.namespace, r.ref.Name)
		if err != nil {
			return fmt.Errorf("%w: look up %s %q: %w", ErrUnauthorized, r.resource, r.ref.Name, err)
		}
		switch {
		case !found:
			return fmt.Errorf("%w: %s %q not found", ErrTokenInvalidated, r.resource, r.ref.Name)
		case string(m.UID) != r.ref.UID:
			return fmt.Errorf("%w: %s %q UID (%s) does not match claim (%s)", ErrTokenInvalidated, r.resource, r.ref.Name, m.UID, r.ref.UID)
		case m.DeletionTimestamp != nil && m.DeletionTimestamp.Time.Before(now.Add(-deletedGrace)):
			return fmt.Errorf("%w: %s %q is being deleted", ErrTokenInvalidated, r.resource, r.ref.Name)
		}
	}
	return nil
}

// userOfToken is the user a valid token names.
func userOfToken(c tokenClaims) *User {
	k := c.Kube
	u := &User{Name: c.Subject, UID: k.ServiceAccount.UID, Groups: ServiceAccountGroups(k.Namespace)}
	extra := map[string][]string{}
	if k.Pod != nil {
		extra[ExtraPodName], extra[ExtraPodUID] = []string{k.Pod.Name}, []string{k.Pod.UID}
	}
	if k.Node != nil {
		extra[ExtraNodeName], extra[ExtraNodeUID] = []string{k.Node.Name}, []string{k.Node.UID}
	}
	if c.ID != "" {
		extra[ExtraCredentialID] = []string{"JTI=" + c.ID}
	}
	if len(extra) > 0 {
		u.Extra = extra
	}
	return u
}
