package authn

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Defaults of Config's zero values.
const (
	DefaultUsernameClaim      = "sub"
	DefaultClockSkew          = time.Minute
	DefaultMinRefreshInterval = 10 * time.Second
	DefaultFetchTimeout       = 10 * time.Second
)

// Config configures the OIDC authenticator, as kube-apiserver's --oidc-*
// flags do. The zero value of every optional field means the default.
type Config struct {
	// IssuerURL is the provider's https URL. Tokens must carry exactly
	// this iss, and <IssuerURL>/.well-known/openid-configuration must
	// name it too. Required.
	IssuerURL string
	// ClientID must be among a token's audiences. Required.
	ClientID string
	// UsernameClaim names the claim holding the user name ("sub" if empty).
	UsernameClaim string
	// UsernamePrefix is put before the user name. Empty means the
	// Kubernetes default: "<IssuerURL>#" unless UsernameClaim is "email",
	// which gets no prefix. "-" means no prefix.
	UsernamePrefix string
	// GroupsClaim names the claim holding the groups (a string or a list
	// of strings); empty means tokens give no groups.
	GroupsClaim string
	// GroupsPrefix is put before every group name.
	GroupsPrefix string
	// CAFile or CAPool is the CA that signs the provider's serving
	// certificate; both empty means the system roots. CAPool wins.
	CAFile string
	CAPool *x509.CertPool
	// RequiredClaims must each be present in a token with exactly the
	// given string value.
	RequiredClaims map[string]string
	// Client fetches discovery and keys; nil means one built from the CA
	// with FetchTimeout. A test seam.
	Client *http.Client
	// ClockSkew is the leeway for exp, nbf and iat (DefaultClockSkew if 0).
	ClockSkew time.Duration
	// MinRefreshInterval is the least time between two fetches of the key
	// set, so tokens with unknown kids cannot make the server hammer the
	// provider (DefaultMinRefreshInterval if 0).
	MinRefreshInterval time.Duration
	// FetchTimeout bounds one discovery or key-set fetch (DefaultFetchTimeout if 0).
	FetchTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// OIDCAuthenticator authenticates OpenID Connect ID tokens sent as bearer
// tokens. It discovers the provider's key set lazily on the first token,
// caches it, and refetches it (at most once per MinRefreshInterval) when a
// token names a key id it does not know. It starts no goroutines; fetches
// run in the requesting goroutine, bounded by FetchTimeout. Safe for
// concurrent use.
type OIDCAuthenticator struct {
	cfg            Config
	usernamePrefix string
	keys           *keyCache
}

var _ Authenticator = (*OIDCAuthenticator)(nil)

// OIDC validates cfg, fills its defaults and returns the authenticator.
// It does not contact the provider. Errors wrap ErrInvalidConfig.
func OIDC(cfg Config) (*OIDCAuthenticator, error) {
	if err := cfg.complete(); err != nil {
		return nil, fmt.Errorf("%w: oidc: %w", ErrInvalidConfig, err)
	}
	prefix := cfg.UsernamePrefix
	switch {
	case prefix == "-":
		prefix = ""
	case prefix == "" && cfg.UsernameClaim != "email":
		prefix = cfg.IssuerURL + "#"
	}
	return &OIDCAuthenticator{
		cfg:            cfg,
		usernamePrefix: prefix,
		keys:           newKeyCache(&cfg),
	}, nil
}

// complete checks c and fills its defaults.
func (c *Config) complete() error {
	u, err := url.Parse(c.IssuerURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("issuer URL %q must be an https URL without query or fragment", c.IssuerURL)
	}
	if c.ClientID == "" {
		return fmt.Errorf("client ID is required")
	}
	if c.UsernameClaim == "" {
		c.UsernameClaim = DefaultUsernameClaim
	}
	c.ClockSkew = orDefault(c.ClockSkew, DefaultClockSkew)
	c.MinRefreshInterval = orDefault(c.MinRefreshInterval, DefaultMinRefreshInterval)
	c.FetchTimeout = orDefault(c.FetchTimeout, DefaultFetchTimeout)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Client != nil {
		return nil
	}
	pool := c.CAPool
	if pool == nil && c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return fmt.Errorf("CA file: %w", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("CA file %q holds no PEM certificates", c.CAFile)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig.RootCAs = pool
	c.Client = &http.Client{Transport: tr, Timeout: c.FetchTimeout}
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// AuthenticateRequest implements Authenticator. A request without a
// bearer token, or whose token is not a JWT issued by this provider, is
// not ok (nil error), so other token authenticators may try it. A token
// from this issuer that fails any check is an error wrapping one of
// ErrMalformedToken, ErrUnsupportedAlgorithm, ErrUnknownKey,
// ErrBadSignature, ErrTokenExpired, ErrInvalidClaims or
// ErrProviderUnavailable.
func (a *OIDCAuthenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	tok, found := BearerToken(r)
	if !found || !a.mayBeOurs(tok) {
		return nil, false, nil
	}
	t, err := ParseJWT(tok)
	if err != nil {
		return nil, false, fmt.Errorf("oidc: %w", err)
	}
	if err := a.keys.verify(r.Context(), t); err != nil {
		return nil, false, fmt.Errorf("oidc: %w", err)
	}
	if err := a.checkTimes(t); err != nil {
		return nil, false, fmt.Errorf("oidc: %w", err)
	}
	u, err := a.userOf(t)
	if err != nil {
		return nil, false, fmt.Errorf("oidc: %w", err)
	}
	return u, true, nil
}

// mayBeOurs reports whether tok looks like a JWT whose (unverified) iss
// is this issuer, as kube-apiserver checks before verifying.
func (a *OIDCAuthenticator) mayBeOurs(tok string) bool {
	if len(tok) > MaxTokenSize || strings.Count(tok, ".") != 2 {
		return false
	}
	payload := strings.Split(tok, ".")[1]
	var claims struct {
		Iss string `json:"iss"`
	}
	if decodeSegment(payload, "payload", &claims) != nil {
		return false
	}
	return claims.Iss == a.cfg.IssuerURL
}

// checkTimes checks exp (required), nbf and iat against the clock with
// ClockSkew leeway.
func (a *OIDCAuthenticator) checkTimes(t *JWT) error {
	now := a.cfg.Now()
	skew := a.cfg.ClockSkew
	exp, ok, err := t.TimeClaim("exp")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: exp claim is missing", ErrInvalidClaims)
	}
	if now.After(time.Unix(exp, 0).Add(skew)) {
		return fmt.Errorf("%w: expired at %s", ErrTokenExpired, time.Unix(exp, 0).UTC().Format(time.RFC3339))
	}
	if nbf, ok, err := t.TimeClaim("nbf"); err != nil {
		return err
	} else if ok && now.Add(skew).Before(time.Unix(nbf, 0)) {
		return fmt.Errorf("%w: not valid before %s", ErrInvalidClaims, time.Unix(nbf, 0).UTC().Format(time.RFC3339))
	}
	if iat, ok, err := t.TimeClaim("iat"); err != nil {
		return err
	} else if ok && now.Add(skew).Before(time.Unix(iat, 0)) {
		return fmt.Errorf("%w: issued in the future (%s)", ErrInvalidClaims, time.Unix(iat, 0).UTC().Format(time.RFC3339))
	}
	return nil
}

// userOf checks iss, aud, the required claims and email_verified, and
// builds the user from the username and groups claims.
func (a *OIDCAuthenticator) userOf(t *JWT) (*User, error) {
	if iss, _, _ := t.StringClaim("iss"); iss != a.cfg.IssuerURL {
		return nil, fmt.Errorf("%w: issuer %q, want %q", ErrInvalidClaims, iss, a.cfg.IssuerURL)
	}
	aud, _, err := t.StringsClaim("aud")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(aud, a.cfg.ClientID) {
		return nil, fmt.Errorf("%w: audience %q does not include %q", ErrInvalidClaims, aud, a.cfg.ClientID)
	}
	for name, want := range a.cfg.RequiredClaims {
		if got, ok, err := t.StringClaim(name); err != nil || !ok || got != want {
			return nil, fmt.Errorf("%w: required claim %q=%q not present", ErrInvalidClaims, name, want)
		}
	}
	name, ok, err := t.StringClaim(a.cfg.UsernameClaim)
	if err != nil {
		return nil, err
	}
	if !ok || name == "" {
		return nil, fmt.Errorf("%w: username claim %q is missing", ErrInvalidClaims, a.cfg.UsernameClaim)
	}
	if a.cfg.UsernameClaim == "email" {
		if err := checkEmailVerified(t); err != nil {
			return nil, err
		}
	}
	u := &User{Name: a.usernamePrefix + name}
	if a.cfg.GroupsClaim != "" {
		groups, _, err := t.StringsClaim(a.cfg.GroupsClaim)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			u.Groups = append(u.Groups, a.cfg.GroupsPrefix+g)
		}
	}
	return u, nil
}

// checkEmailVerified fails when email_verified is present and not true
// (kube-apiserver accepts tokens that omit it).
func checkEmailVerified(t *JWT) error {
	raw, ok := t.Claims["email_verified"]
	if !ok {
		return nil
	}
	if string(raw) != "true" {
		return fmt.Errorf("%w: email not verified", ErrInvalidClaims)
	}
	return nil
}
