package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Service-account identities, as Kubernetes spells them.
const (
	// ServiceAccountUsernamePrefix starts every service account's user
	// name: system:serviceaccount:<namespace>:<name>.
	ServiceAccountUsernamePrefix = "system:serviceaccount:"
	// GroupServiceAccounts holds every service account; each is also in
	// GroupServiceAccounts + ":" + its namespace.
	GroupServiceAccounts = "system:serviceaccounts"
	// DefaultServiceAccountIssuer is the issuer (iss) of orkit's tokens
	// when none is configured, kubeadm's default.
	DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
)

// The user extra keys of a service account bound to an object, as
// kube-apiserver sets them.
const (
	ExtraPodName      = "authentication.kubernetes.io/pod-name"
	ExtraPodUID       = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName     = "authentication.kubernetes.io/node-name"
	ExtraNodeUID      = "authentication.kubernetes.io/node-uid"
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
)

// ServiceAccountUsername returns system:serviceaccount:<ns>:<name>.
func ServiceAccountUsername(namespace, name string) string {
	return ServiceAccountUsernamePrefix + namespace + ":" + name
}

// SplitServiceAccountUsername returns the namespace and name of a service
// account's user name; ok is false for any other user.
func SplitServiceAccountUsername(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, ServiceAccountUsernamePrefix)
	if !found {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// ServiceAccountGroups returns the groups of a service account of
// namespace: system:serviceaccounts and system:serviceaccounts:<ns>.
func ServiceAccountGroups(namespace string) []string {
	return []string{GroupServiceAccounts, GroupServiceAccounts + ":" + namespace}
}

// ObjectRef names an object and its UID: the service account a token is
// for, and the pod, secret or node it is bound to.
type ObjectRef struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// ServiceAccountToken is what a service-account token says (the claims
// kube-apiserver puts in it). A plain value; Issue reads it.
type ServiceAccountToken struct {
	// Namespace and ServiceAccount name the account the token is for.
	Namespace      string
	ServiceAccount ObjectRef
	// Audiences (aud) are who the token is for; at least one.
	Audiences []string
	// IssuedAt (iat, nbf) defaults to now; Expiration (exp) is required.
	IssuedAt, Expiration time.Time
	// Pod, Secret and Node are the objects the token is bound to (nil:
	// none); a token bound to an object is valid only while it exists
	// with the same UID. A token bound to a pod carries the pod's node
	// too, as Kubernetes 1.32's does.
	Pod, Secret, Node *ObjectRef
	// ID (jti) defaults to a random UUID.
	ID string
}

// tokenClaims is the JWT payload of a service-account token.
type tokenClaims struct {
	Issuer    string          `json:"iss"`
	Subject   string          `json:"sub"`
	Audience  []string        `json:"aud"`
	Expiry    int64           `json:"exp"`
	IssuedAt  int64           `json:"iat"`
	NotBefore int64           `json:"nbf"`
	ID        string          `json:"jti,omitempty"`
	Kube      kubernetesClaim `json:"kubernetes.io"`
}

// kubernetesClaim is the private "kubernetes.io" claim.
type kubernetesClaim struct {
	Namespace      string     `json:"namespace"`
	ServiceAccount ObjectRef  `json:"serviceaccount"`
	Pod            *ObjectRef `json:"pod,omitempty"`
	Secret         *ObjectRef `json:"secret,omitempty"`
	Node           *ObjectRef `json:"node,omitempty"`
}

// TokenIssuerConfig configures a TokenIssuer, as kube-apiserver's
// --service-account-* flags do. SigningKey is required.
type TokenIssuerConfig struct {
	// Issuer is the iss of every token and the issuer OIDC discovery
	// announces (--service-account-issuer); default
	// DefaultServiceAccountIssuer.
	Issuer string
	// SigningKey signs the tokens (--service-account-signing-key-file):
	// ECDSA P-256 (ES256) or RSA of at least 2048 bits (RS256).
	SigningKey crypto.Signer
	// PublicKeys are more keys tokens may be verified with
	// (--service-account-key-file), such as a previous signing key's;
	// the signing key's public half is always one.
	PublicKeys []crypto.PublicKey
	// APIAudiences are the audiences the API server accepts
	// (--api-audiences) and the default audiences of a TokenRequest;
	// default [Issuer].
	APIAudiences []string
	// JWKSURI is the jwks_uri of the discovery document
	// (--service-account-jwks-uri); default Issuer + "/openid/v1/jwks".
	JWKSURI string
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// TokenIssuer mints service-account tokens (JWTs signed with the API
// server's key), publishes their verification keys for OIDC discovery,
// and verifies them (Authenticator). It is immutable after NewTokenIssuer
// and safe for concurrent use.
type TokenIssuer struct {
	cfg       TokenIssuerConfig
	alg       string
	kid       string
	keys      []verificationKey
	jwks      []byte
	discovery []byte
}

// NewTokenIssuer checks cfg and returns the issuer. Errors wrap
// ErrInvalidConfig: no signing key, a key that is neither P-256 nor RSA,
// an issuer that is neither a URL nor a plain name.
func NewTokenIssuer(cfg TokenIssuerConfig) (*TokenIssuer, error) {
	if cfg.SigningKey == nil {
		return nil, fmt.Errorf("%w: service account signing key is required", ErrInvalidConfig)
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultServiceAccountIssuer
	}
	if strings.Contains(cfg.Issuer, ":") {
		if u, err := url.Parse(cfg.Issuer); err != nil || u.Scheme == "" {
			return nil, fmt.Errorf("%w: service account issuer %q is not a valid URL", ErrInvalidConfig, cfg.Issuer)
		}
	}
	if len(cfg.APIAudiences) == 0 {
		cfg.APIAudiences = []string{cfg.Issuer}
	}
	cfg.APIAudiences = slices.Clone(cfg.APIAudiences)
	if cfg.JWKSURI == "" {
		cfg.JWKSURI = strings.TrimSuffix(cfg.Issuer, "/") + "/openid/v1/jwks"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ti := &TokenIssuer{cfg: cfg}
	signing, err := newVerificationKey(cfg.SigningKey.Public())
	if err != nil {
		return nil, fmt.Errorf("%w: signing key: %w", ErrInvalidConfig, err)
	}
	ti.alg, ti.kid, ti.keys = signing.alg, signing.kid, []verificationKey{signing}
	for i, pub := range cfg.PublicKeys {
		vk, err := newVerificationKey(pub)
		if err != nil {
			return nil, fmt.Errorf("%w: public key %d: %w", ErrInvalidConfig, i, err)
		}
		if !slices.ContainsFunc(ti.keys, func(k verificationKey) bool { return k.kid == vk.kid }) {
			ti.keys = append(ti.keys, vk)
		}
	}
	if ti.jwks, err = keySetJSON(ti.keys); err != nil {
		return nil, err
	}
	ti.discovery, err = json.Marshal(map[string]any{
		"issuer": cfg.Issuer, "jwks_uri": cfg.JWKSURI,
		"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": algorithms(ti.keys),
	})
	return ti, err
}

// Issuer returns the iss of the tokens.
func (ti *TokenIssuer) Issuer() string { return ti.cfg.Issuer }

// APIAudiences returns the audiences the API server accepts (a copy).
func (ti *TokenIssuer) APIAudiences() []string { return slices.Clone(ti.cfg.APIAudiences) }

// Now returns the issuer's clock reading.
func (ti *TokenIssuer) Now() time.Time { return ti.cfg.Now() }

// KeySet returns the JWK Set of the verification keys
// (/openid/v1/jwks). The caller must not change it.
func (ti *TokenIssuer) KeySet() []byte { return ti.jwks }

// DiscoveryDocument returns the OpenID provider configuration
// (/.well-known/openid-configuration). The caller must not change it.
func (ti *TokenIssuer) DiscoveryDocument() []byte { return ti.discovery }

// Issue signs a token saying t. Errors: no audience, no expiration, an
// expiration before the issue time, or a failing signer.
func (ti *TokenIssuer) Issue(t ServiceAccountToken) (string, error) {
	if len(t.Audiences) == 0 || t.Expiration.IsZero() || t.Namespace == "" || t.ServiceAccount.Name == "" {
		return "", fmt.Errorf("service account token: namespace, account, audiences and expiration are required")
	}
	if t.IssuedAt.IsZero() {
		t.IssuedAt = ti.cfg.Now()
	}
	if !t.Expiration.After(t.IssuedAt) {
		return "", fmt.Errorf("service account token: expiration %v is not after issue time %v", t.Expiration, t.IssuedAt)
	}
	if t.ID == "" {
		t.ID = newUUID()
	}
	claims := tokenClaims{
		Issuer: ti.cfg.Issuer, Subject: ServiceAccountUsername(t.Namespace, t.ServiceAccount.Name),
		Audience: t.Audiences, Expiry: t.Expiration.Unix(), IssuedAt: t.IssuedAt.Unix(), NotBefore: t.IssuedAt.Unix(),
		ID:   t.ID,
		Kube: kubernetesClaim{Namespace: t.Namespace, ServiceAccount: t.ServiceAccount, Pod: t.Pod, Secret: t.Secret, Node: t.Node},
	}
	header, err := json.Marshal(jwtHeader{Alg: ti.alg, Kid: ti.kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(header) + "." + b64.EncodeToString(payload)
	sig, err := signJWS(ti.cfg.SigningKey, ti.alg, input)
	if err != nil {
		return "", fmt.Errorf("service account token: sign: %w", err)
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// signJWS signs input with key under alg (RS256: PKCS #1 v1.5; ES256: the
// JWS form r||s, 32 bytes each).
func signJWS(key crypto.Signer, alg, input string) ([]byte, error) {
	digest := sha256.Sum256([]byte(input))
	if alg == AlgRS256 {
		return key.Sign(rand.Reader, digest[:], crypto.SHA256)
	}
	ek, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("ES256 needs an *ecdsa.PrivateKey, have %T", key)
	}
	r, s, err := ecdsa.Sign(rand.Reader, ek, digest[:])
	if err != nil {
		return nil, err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return sig, nil
}

// newVerificationKey returns pub with its algorithm and key id (the
// base64url SHA-256 of its PKIX form, as kube-apiserver computes it).
func newVerificationKey(pub crypto.PublicKey) (verificationKey, error) {
	var alg string
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return verificationKey{}, fmt.Errorf("ECDSA key on %s, want P-256", k.Curve.Params().Name)
		}
		alg = AlgES256
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return verificationKey{}, fmt.Errorf("RSA key of %d bits, want at least %d", k.N.BitLen(), minRSABits)
		}
		alg = AlgRS256
	default:
		return verificationKey{}, fmt.Errorf("%T is neither ECDSA nor RSA", pub)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return verificationKey{}, err
	}
	sum := sha256.Sum256(der)
	return verificationKey{kid: base64.RawURLEncoding.EncodeToString(sum[:]), alg: alg, key: pub}, nil
}

// keySetJSON is the JWK Set of keys.
func keySetJSON(keys []verificationKey) ([]byte, error) {
	set := struct {
		Keys []jsonWebKey `json:"keys"`
	}{Keys: []jsonWebKey{}}
	for _, k := range keys {
		jwk := jsonWebKey{Kid: k.kid, Use: "sig", Alg: k.alg}
		switch pub := k.key.(type) {
		case *ecdsa.PublicKey:
			jwk.Kty, jwk.Crv = "EC", "P-256"
			x, y := make([]byte, 32), make([]byte, 32)
			pub.X.FillBytes(x)
			pub.Y.FillBytes(y)
			jwk.X, jwk.Y = b64.EncodeToString(x), b64.EncodeToString(y)
		case *rsa.PublicKey:
			jwk.Kty = "RSA"
			jwk.N = b64.EncodeToString(pub.N.Bytes())
			jwk.E = b64.EncodeToString(big.NewInt(int64(pub.E)).Bytes())
		}
		set.Keys = append(set.Keys, jwk)
	}
	return json.Marshal(set)
}

func algorithms(keys []verificationKey) []string {
	var algs []string
	for _, k := range keys {
		if !slices.Contains(algs, k.alg) {
			algs = append(algs, k.alg)
		}
	}
	slices.Sort(algs)
	return algs
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
