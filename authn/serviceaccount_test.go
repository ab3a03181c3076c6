package authn

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// fakeObjects is a ServiceAccountObjects over a map keyed
// "resource/namespace/name".
type fakeObjects map[string]*meta.ObjectMeta

func (f fakeObjects) ObjectMeta(_ context.Context, resource, ns, name string) (*meta.ObjectMeta, bool, error) {
	if resource == "secrets" && name == "broken" {
		return nil, false, errors.New("store down")
	}
	m, ok := f[resource+"/"+ns+"/"+name]
	return m, ok, nil
}

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func saIssuer(t *testing.T, key crypto.Signer, extra ...crypto.PublicKey) *TokenIssuer {
	t.Helper()
	ti, err := NewTokenIssuer(TokenIssuerConfig{SigningKey: key, PublicKeys: extra, Now: func() time.Time { return testNow }})
	require.NoError(t, err)
	return ti
}

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

func saBearer(tok string) *http.Request {
	r, _ := http.NewRequest(http.MethodGet, "/api", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func TestServiceAccountToken(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	objects := fakeObjects{
		"serviceaccounts/team/robot": {Name: "robot", UID: "sa-uid"},
		"pods/team/web":              {Name: "web", UID: "pod-uid"},
		"pods/team/leaving":          {Name: "leaving", UID: "leaving-uid", DeletionTimestamp: &meta.Time{Time: testNow.Add(-30 * time.Second)}},
		"pods/team/gone-long-ago":    {Name: "gone-long-ago", UID: "old-uid", DeletionTimestamp: &meta.Time{Time: testNow.Add(-2 * time.Minute)}},
		"secrets/team/s":             {Name: "s", UID: "secret-uid"},
		"nodes//n1":                  {Name: "n1", UID: "node-uid"},
	}
	base := func() ServiceAccountToken {
		return ServiceAccountToken{Namespace: "team", ServiceAccount: ObjectRef{Name: "robot", UID: "sa-uid"},
			Audiences: []string{DefaultServiceAccountIssuer}, Expiration: testNow.Add(time.Hour), ID: "the-jti"}
	}
	tests := []struct {
		name    string
		mutate  func(*ServiceAccountToken)
		wantErr error
		check   func(t *testing.T, u *User)
	}{
		{name: "unbound", check: func(t *testing.T, u *User) {
			assert.Equal(t, "system:serviceaccount:team:robot", u.Name)
			assert.Equal(t, "sa-uid", u.UID)
			assert.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:team"}, u.Groups)
			assert.Equal(t, map[string][]string{ExtraCredentialID: {"JTI=the-jti"}}, u.Extra)
		}},
		{name: "bound to a pod", mutate: func(s *ServiceAccountToken) {
			s.Pod, s.Node = &ObjectRef{Name: "web", UID: "pod-uid"}, &ObjectRef{Name: "n1", UID: "node-uid"}
		}, check: func(t *testing.T, u *User) {
			assert.Equal(t, []string{"web"}, u.Extra[ExtraPodName])
			assert.Equal(t, []string{"pod-uid"}, u.Extra[ExtraPodUID])
			assert.Equal(t, []string{"n1"}, u.Extra[ExtraNodeName])
			assert.Equal(t, []string{"node-uid"}, u.Extra[ExtraNodeUID])
		}},
		{name: "bound to a pod being deleted, within the grace", mutate: func(s *ServiceAccountToken) {
			s.Pod = &ObjectRef{Name: "leaving", UID: "leaving-uid"}
		}},
		{name: "bound to a secret", mutate: func(s *ServiceAccountToken) { s.Secret = &ObjectRef{Name: "s", UID: "secret-uid"} }},
		{name: "bound to a node", mutate: func(s *ServiceAccountToken) { s.Node = &ObjectRef{Name: "n1", UID: "node-uid"} }},
		{name: "second audience accepted", mutate: func(s *ServiceAccountToken) { s.Audiences = []string{"vault", DefaultServiceAccountIssuer} }},
		{name: "expired", mutate: func(s *ServiceAccountToken) {
			s.IssuedAt, s.Expiration = testNow.Add(-2*time.Hour), testNow.Add(-2*time.Minute)
		}, wantErr: ErrTokenExpired},
		{name: "expired within the leeway", mutate: func(s *ServiceAccountToken) {
			s.IssuedAt, s.Expiration = testNow.Add(-2*time.Hour), testNow.Add(-30*time.Second)
		}},
		{name: "not yet valid", mutate: func(s *ServiceAccountToken) {
			s.IssuedAt, s.Expiration = testNow.Add(time.Hour), testNow.Add(2*time.Hour)
		}, wantErr: ErrInvalidClaims},
		{name: "another audience", mutate: func(s *ServiceAccountToken) { s.Audiences = []string{"vault"} }, wantErr: ErrInvalidClaims},
		{name: "account gone", mutate: func(s *ServiceAccountToken) { s.ServiceAccount.Name = "ghost" }, wantErr: ErrTokenInvalidated},
		{name: "account replaced", mutate: func(s *ServiceAccountToken) { s.ServiceAccount.UID = "old" }, wantErr: ErrTokenInvalidated},
		{name: "pod gone", mutate: func(s *ServiceAccountToken) { s.Pod = &ObjectRef{Name: "db", UID: "x"} }, wantErr: ErrTokenInvalidated},
		{name: "pod replaced", mutate: func(s *ServiceAccountToken) { s.Pod = &ObjectRef{Name: "web", UID: "x"} }, wantErr: ErrTokenInvalidated},
		{name: "pod deleted long ago", mutate: func(s *ServiceAccountToken) {
			s.Pod = &ObjectRef{Name: "gone-long-ago", UID: "old-uid"}
		}, wantErr: ErrTokenInvalidated},
		{name: "node replaced", mutate: func(s *ServiceAccountToken) { s.Node = &ObjectRef{Name: "n1", UID: "x"} }, wantErr: ErrTokenInvalidated},
		{name: "lookup fails", mutate: func(s *ServiceAccountToken) { s.Secret = &ObjectRef{Name: "broken", UID: "x"} }, wantErr: ErrUnauthorized},
	}
	for _, key := range []crypto.Signer{ecKey(t), rsaKey} {
		ti := saIssuer(t, key)
		a := ti.Authenticator(objects)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				spec := base()
				if tt.mutate != nil {
					tt.mutate(&spec)
				}
				tok, err := ti.Issue(spec)
				require.NoError(t, err)
				u, ok, err := a.AuthenticateRequest(saBearer(tok))
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
					require.ErrorIs(t, err, ErrUnauthorized)
					assert.False(t, ok)
					return
				}
				require.NoError(t, err)
				require.True(t, ok)
				if tt.check != nil {
					tt.check(t, u)
				}
			})
		}
	}
}

func TestServiceAccountTokenNotOurs(t *testing.T) {
	ti := saIssuer(t, ecKey(t))
	a := ti.Authenticator(fakeObjects{})
	other, err := NewTokenIssuer(TokenIssuerConfig{Issuer: "https://elsewhere", SigningKey: ecKey(t), Now: ti.Now})
	require.NoError(t, err)
	foreign, err := other.Issue(ServiceAccountToken{Namespace: "a", ServiceAccount: ObjectRef{Name: "b", UID: "c"},
		Audiences: []string{"x"}, Expiration: testNow.Add(time.Hour)})
	require.NoError(t, err)
	for _, tok := range []string{"opaque-static-token", "a.b.c", foreign, strings.Repeat("x", MaxTokenSize+1)} {
		_, ok, err := a.AuthenticateRequest(saBearer(tok))
		assert.NoError(t, err, "another issuer's or a non-JWT token is left to the other authenticators")
		assert.False(t, ok)
	}
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	_, ok, err := a.AuthenticateRequest(r)
	assert.NoError(t, err)
	assert.False(t, ok)
}

func TestServiceAccountTokenSignature(t *testing.T) {
	oldKey, newKey := ecKey(t), ecKey(t)
	old := saIssuer(t, oldKey)
	tok, err := old.Issue(ServiceAccountToken{Namespace: "team", ServiceAccount: ObjectRef{Name: "robot", UID: "sa-uid"},
		Audiences: []string{DefaultServiceAccountIssuer}, Expiration: testNow.Add(time.Hour)})
	require.NoError(t, err)
	objects := fakeObjects{"serviceaccounts/team/robot": {Name: "robot", UID: "sa-uid"}}

	_, _, err = saIssuer(t, newKey).Authenticator(objects).AuthenticateRequest(saBearer(tok))
	require.ErrorIs(t, err, ErrUnknownKey, "a key the server does not hold")

	rotated := saIssuer(t, newKey, &oldKey.PublicKey)
	_, ok, err := rotated.Authenticator(objects).AuthenticateRequest(saBearer(tok))
	require.NoError(t, err, "the previous key still verifies (--service-account-key-file)")
	assert.True(t, ok)

	parts := strings.Split(tok, ".")
	forged := parts[0] + "." + b64.EncodeToString([]byte(`{"iss":"`+DefaultServiceAccountIssuer+`","sub":"x"}`)) + "." + parts[2]
	_, _, err = old.Authenticator(objects).AuthenticateRequest(saBearer(forged))
	require.ErrorIs(t, err, ErrBadSignature)
}

func TestTokenIssuerDiscovery(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	ec := ecKey(t)
	ti := saIssuer(t, ec, &rsaKey.PublicKey, &ec.PublicKey)
	keys, err := parseJWKS(ti.KeySet())
	require.NoError(t, err)
	require.Len(t, keys, 2, "the signing key once, the extra RSA key")
	assert.Equal(t, AlgES256, keys[0].alg)
	assert.Equal(t, ti.kid, keys[0].kid)
	assert.True(t, ec.PublicKey.Equal(keys[0].key))
	assert.Equal(t, AlgRS256, keys[1].alg)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(ti.DiscoveryDocument(), &doc))
	assert.Equal(t, map[string]any{
		"issuer": DefaultServiceAccountIssuer, "jwks_uri": DefaultServiceAccountIssuer + "/openid/v1/jwks",
		"response_types_supported": []any{"id_token"}, "subject_types_supported": []any{"public"},
		"id_token_signing_alg_values_supported": []any{"ES256", "RS256"},
	}, doc)
	var set map[string][]map[string]string
	require.NoError(t, json.Unmarshal(ti.KeySet(), &set))
	assert.Equal(t, "sig", set["keys"][0]["use"])
	assert.NotContains(t, set["keys"][0], "n", "an EC key has no RSA fields")
}

func TestNewTokenIssuerErrors(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	for name, cfg := range map[string]TokenIssuerConfig{
		"no key":        {},
		"small RSA key": {SigningKey: small},
		"P-384 key":     {SigningKey: p384},
		"bad extra key": {SigningKey: ecKey(t), PublicKeys: []crypto.PublicKey{&small.PublicKey}},
		"bad issuer":    {SigningKey: ecKey(t), Issuer: "://x"},
	} {
		_, err := NewTokenIssuer(cfg)
		assert.ErrorIs(t, err, ErrInvalidConfig, name)
	}
	ti := saIssuer(t, ecKey(t))
	_, err = ti.Issue(ServiceAccountToken{Namespace: "a", ServiceAccount: ObjectRef{Name: "b"}, Audiences: []string{"x"}})
	assert.Error(t, err, "no expiration")
	_, err = ti.Issue(ServiceAccountToken{Namespace: "a", ServiceAccount: ObjectRef{Name: "b"}, Audiences: []string{"x"},
		Expiration: testNow.Add(-time.Hour)})
	assert.Error(t, err, "expiration before issue time")
}

func TestSplitServiceAccountUsername(t *testing.T) {
	for in, want := range map[string][2]string{
		"system:serviceaccount:team:robot": {"team", "robot"},
		"system:serviceaccount:team":       {},
		"system:serviceaccount::robot":     {},
		"system:serviceaccount:a:b:c":      {},
		"alice":                            {},
	} {
		ns, name, ok := SplitServiceAccountUsername(in)
		assert.Equal(t, want[0] != "", ok, in)
		assert.Equal(t, want, [2]string{ns, name}, in)
	}
}

func FuzzServiceAccountToken(f *testing.F) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ti, _ := NewTokenIssuer(TokenIssuerConfig{SigningKey: key, Now: func() time.Time { return testNow }})
	tok, _ := ti.Issue(ServiceAccountToken{Namespace: "a", ServiceAccount: ObjectRef{Name: "b", UID: "c"},
		Audiences: []string{DefaultServiceAccountIssuer}, Expiration: testNow.Add(time.Hour)})
	f.Add(tok)
	f.Add("a.b.c")
	a := ti.Authenticator(fakeObjects{"serviceaccounts/a/b": {Name: "b", UID: "c"}})
	f.Fuzz(func(t *testing.T, s string) {
		u, ok, err := a.AuthenticateToken(context.Background(), s)
		if err != nil && !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("error not wrapping ErrUnauthorized: %v", err)
		}
		if ok && (u == nil || u.Name != "system:serviceaccount:a:b") {
			t.Fatalf("accepted as %v", u)
		}
	})
}
