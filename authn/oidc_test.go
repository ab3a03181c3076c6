package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testIssuer is an OIDC provider on 127.0.0.1: discovery, a JWKS that the
// test can rotate, and a counter of key-set fetches.
type testIssuer struct {
	srv        *httptest.Server
	mu         sync.Mutex
	published  map[string]crypto.Signer // kid → key in the JWKS
	jwksHits   atomic.Int32
	down       atomic.Bool
	discoverAs string // issuer the discovery document names ("" = the real one)
}

func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	is := &testIssuer{published: map[string]crypto.Signer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		iss := is.discoverAs
		if iss == "" {
			iss = is.srv.URL
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss, "jwks_uri": is.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		if is.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(is.jwks(t))
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *testIssuer) publish(kid string, key crypto.Signer) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published[kid] = key
}

func (is *testIssuer) jwks(t testing.TB) []byte {
	is.mu.Lock()
	defer is.mu.Unlock()
	var keys []map[string]string
	for kid, k := range is.published {
		keys = append(keys, jwkOf(t, kid, k.Public()))
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	return b
}

func jwkOf(t testing.TB, kid string, pub crypto.PublicKey) map[string]string {
	switch p := pub.(type) {
	case *rsa.PublicKey:
		return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": b64.EncodeToString(p.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(p.E)).Bytes())}
	case *ecdsa.PublicKey:
		raw, err := p.Bytes()
		require.NoError(t, err)
		return map[string]string{"kty": "EC", "kid": kid, "crv": "P-256",
			"x": b64.EncodeToString(raw[1:33]), "y": b64.EncodeToString(raw[33:])}
	}
	t.Fatalf("unsupported key %T", pub)
	return nil
}

// sign mints a compact JWS with the given header fields and claims.
func sign(t testing.TB, key crypto.Signer, header map[string]any, claims map[string]any) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	c, err := json.Marshal(claims)
	require.NoError(t, err)
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
		require.NoError(t, err)
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		require.NoError(t, err)
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	}
	return input + "." + b64.EncodeToString(sig)
}

// testKeys are generated once per test binary: RSA generation is slow.
var testKeys = sync.OnceValue(func() map[string]crypto.Signer {
	r1, _ := rsa.GenerateKey(rand.Reader, 2048)
	r2, _ := rsa.GenerateKey(rand.Reader, 2048)
	e1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	e2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	return map[string]crypto.Signer{"rsa1": r1, "rsa2": r2, "ec1": e1, "ec2": e2}
})

type fakeClock struct{ now atomic.Int64 }

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.now.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.now.Add(int64(d)) }

func newOIDC(t testing.TB, is *testIssuer, clk *fakeClock, mod func(*Config)) *OIDCAuthenticator {
	t.Helper()
	cfg := Config{
		IssuerURL:   is.srv.URL,
		ClientID:    "orkit",
		CAPool:      poolOf(is.srv),
		GroupsClaim: "groups",
		Now:         clk.Now,
	}
	if mod != nil {
		mod(&cfg)
	}
	a, err := OIDC(cfg)
	require.NoError(t, err)
	return a
}

func poolOf(srv *httptest.Server) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(srv.Certificate())
	return p
}

func bearer(tok string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func TestOIDC(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("rsa1", keys["rsa1"])
	is.publish("ec1", keys["ec1"])
	clk := &fakeClock{}
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	clk.now.Store(now.UnixNano())
	claims := func(mod func(map[string]any)) map[string]any {
		c := map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u123",
			"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "groups": []string{"dev", "ops"}}
		if mod != nil {
			mod(c)
		}
		return c
	}
	rs := map[string]any{"alg": "RS256", "kid": "rsa1", "typ": "JWT"}
	es := map[string]any{"alg": "ES256", "kid": "ec1"}
	prefix := is.srv.URL + "#"
	tests := []struct {
		name     string
		token    string
		cfg      func(*Config)
		wantUser *User
		wantErr  error
		notMine  bool
	}{
		{name: "RS256 valid", token: sign(t, keys["rsa1"], rs, claims(nil)),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "ES256 valid", token: sign(t, keys["ec1"], es, claims(nil)),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "no kid tries all keys", token: sign(t, keys["ec1"], map[string]any{"alg": "ES256"}, claims(nil)),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "audience list", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["aud"] = []string{"x", "orkit"} })),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "group as string, prefixes", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["groups"] = "solo" })),
			cfg:      func(c *Config) { c.UsernamePrefix = "oidc:"; c.GroupsPrefix = "oidc:" },
			wantUser: &User{Name: "oidc:u123", Groups: []string{"oidc:solo"}}},
		{name: "prefix dash means none", token: sign(t, keys["rsa1"], rs, claims(nil)),
			cfg: func(c *Config) { c.UsernamePrefix = "-"; c.GroupsClaim = "" }, wantUser: &User{Name: "u123"}},
		{name: "email claim has no default prefix", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) {
			c["email"] = "a@example.com"
			c["email_verified"] = true
		})), cfg: func(c *Config) { c.UsernameClaim = "email" }, wantUser: &User{Name: "a@example.com", Groups: []string{"dev", "ops"}}},
		{name: "email without email_verified", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["email"] = "a@example.com" })),
			cfg: func(c *Config) { c.UsernameClaim = "email" }, wantUser: &User{Name: "a@example.com", Groups: []string{"dev", "ops"}}},
		{name: "email not verified", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) {
			c["email"] = "a@example.com"
			c["email_verified"] = false
		})), cfg: func(c *Config) { c.UsernameClaim = "email" }, wantErr: ErrInvalidClaims},
		{name: "required claim present", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["hd"] = "example.com" })),
			cfg: func(c *Config) { c.RequiredClaims = map[string]string{"hd": "example.com"} }, wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "required claim wrong", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["hd"] = "evil.com" })),
			cfg: func(c *Config) { c.RequiredClaims = map[string]string{"hd": "example.com"} }, wantErr: ErrInvalidClaims},
		{name: "expired", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() })), wantErr: ErrTokenExpired},
		{name: "expired within skew", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() })),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "no exp", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { delete(c, "exp") })), wantErr: ErrInvalidClaims},
		{name: "not yet valid", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["nbf"] = now.Add(10 * time.Minute).Unix() })), wantErr: ErrInvalidClaims},
		{name: "issued in the future", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["iat"] = now.Add(10 * time.Minute).Unix() })), wantErr: ErrInvalidClaims},
		{name: "fractional exp", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["exp"] = float64(now.Add(time.Hour).Unix()) + 0.5 })),
			wantUser: &User{Name: prefix + "u123", Groups: []string{"dev", "ops"}}},
		{name: "exp not a number", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["exp"] = "soon" })), wantErr: ErrInvalidClaims},
		{name: "wrong audience", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["aud"] = "other" })), wantErr: ErrInvalidClaims},
		{name: "wrong issuer is not mine", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["iss"] = "https://evil.example" })), notMine: true},
		{name: "missing sub", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { delete(c, "sub") })), wantErr: ErrInvalidClaims},
		{name: "groups wrong type", token: sign(t, keys["rsa1"], rs, claims(func(c map[string]any) { c["groups"] = 7 })), wantErr: ErrInvalidClaims},
		{name: "bad signature", token: tamper(sign(t, keys["rsa1"], rs, claims(nil))), wantErr: ErrBadSignature},
		{name: "signed by unpublished key with published kid", token: sign(t, keys["rsa2"], rs, claims(nil)), wantErr: ErrBadSignature},
		{name: "ES256 header on RSA kid", token: sign(t, keys["ec1"], map[string]any{"alg": "ES256", "kid": "rsa1"}, claims(nil)), wantErr: ErrUnknownKey},
		{name: "alg none", token: unsigned(map[string]any{"alg": "none"}, claims(nil)), wantErr: ErrUnsupportedAlgorithm},
		{name: "alg HS256", token: unsigned(map[string]any{"alg": "HS256", "kid": "rsa1"}, claims(nil)), wantErr: ErrUnsupportedAlgorithm},
		{name: "crit header", token: sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1", "crit": []string{"x"}}, claims(nil)), wantErr: ErrMalformedToken},
		{name: "header not JSON", token: "bm90anNvbg." + strings.Split(sign(t, keys["rsa1"], rs, claims(nil)), ".")[1] + ".c2ln", wantErr: ErrMalformedToken},
		{name: "padded base64 signature", token: sign(t, keys["rsa1"], rs, claims(nil)) + "=", wantErr: ErrMalformedToken},
		{name: "not a JWT", token: "opaque-token", notMine: true},
		{name: "payload garbage", token: "eyJhbGciOiJSUzI1NiJ9.!!!.sig", notMine: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newOIDC(t, is, clk, tt.cfg)
			u, ok, err := a.AuthenticateRequest(bearer(tt.token))
			switch {
			case tt.notMine:
				assert.NoError(t, err)
				assert.False(t, ok)
			case tt.wantErr != nil:
				assert.ErrorIs(t, err, tt.wantErr)
				assert.ErrorIs(t, err, ErrUnauthorized)
				assert.False(t, ok)
				assert.Nil(t, u)
			default:
				require.NoError(t, err)
				assert.True(t, ok)
				assert.Equal(t, tt.wantUser, u)
			}
		})
	}
}

// tamper flips one bit of the payload, keeping the signature.
func tamper(tok string) string {
	p := strings.Split(tok, ".")
	raw, _ := b64.DecodeString(p[1])
	raw = []byte(strings.Replace(string(raw), `"u123"`, `"u124"`, 1))
	return p[0] + "." + b64.EncodeToString(raw) + "." + p[2]
}

func unsigned(header, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return b64.EncodeToString(h) + "." + b64.EncodeToString(c) + "."
}

func TestOIDCKeyRotation(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("rsa1", keys["rsa1"])
	clk := &fakeClock{}
	clk.now.Store(time.Now().UnixNano())
	a := newOIDC(t, is, clk, nil)
	claims := map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": clk.Now().Add(time.Hour).Unix()}

	ok1, _, err := a.AuthenticateRequest(bearer(sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1"}, claims)))
	require.NoError(t, err)
	require.NotNil(t, ok1)
	assert.Equal(t, int32(1), is.jwksHits.Load())

	// Cached: another token with the known kid does not fetch.
	_, _, err = a.AuthenticateRequest(bearer(sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1"}, claims)))
	require.NoError(t, err)
	assert.Equal(t, int32(1), is.jwksHits.Load())

	// Unknown kid: one refetch right away is rate-limited (the first
	// fetch was just now), so it fails without a fetch...
	rotated := sign(t, keys["ec2"], map[string]any{"alg": "ES256", "kid": "ec2"}, claims)
	_, _, err = a.AuthenticateRequest(bearer(rotated))
	assert.ErrorIs(t, err, ErrUnknownKey)
	assert.Equal(t, int32(1), is.jwksHits.Load())

	// ...and once the provider rotated and the interval passed, it fetches
	// once and succeeds.
	is.publish("ec2", keys["ec2"])
	clk.Advance(DefaultMinRefreshInterval + time.Second)
	u, ok, err := a.AuthenticateRequest(bearer(rotated))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, is.srv.URL+"#u", u.Name)
	assert.Equal(t, int32(2), is.jwksHits.Load())

	// A flood of unknown kids within the interval makes no more fetches.
	for i := range 20 {
		tok := sign(t, keys["ec1"], map[string]any{"alg": "ES256", "kid": fmt.Sprintf("bogus-%d", i)}, claims)
		_, _, err = a.AuthenticateRequest(bearer(tok))
		assert.ErrorIs(t, err, ErrUnknownKey)
	}
	assert.Equal(t, int32(2), is.jwksHits.Load())
}

func TestOIDCProviderDown(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("rsa1", keys["rsa1"])
	is.down.Store(true)
	clk := &fakeClock{}
	clk.now.Store(time.Now().UnixNano())
	a := newOIDC(t, is, clk, nil)
	tok := sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1"},
		map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": clk.Now().Add(time.Hour).Unix()})

	_, _, err := a.AuthenticateRequest(bearer(tok))
	assert.ErrorIs(t, err, ErrProviderUnavailable)
	_, _, err = a.AuthenticateRequest(bearer(tok))
	assert.ErrorIs(t, err, ErrProviderUnavailable)
	assert.Equal(t, int32(1), is.jwksHits.Load(), "retry is rate-limited")

	is.down.Store(false)
	clk.Advance(DefaultMinRefreshInterval)
	_, ok, err := a.AuthenticateRequest(bearer(tok))
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestOIDCDiscoveryIssuerMismatch(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("rsa1", keys["rsa1"])
	is.discoverAs = "https://impostor.example"
	clk := &fakeClock{}
	clk.now.Store(time.Now().UnixNano())
	a := newOIDC(t, is, clk, nil)
	tok := sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1"},
		map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": clk.Now().Add(time.Hour).Unix()})
	_, _, err := a.AuthenticateRequest(bearer(tok))
	assert.ErrorIs(t, err, ErrProviderUnavailable)
	assert.Contains(t, err.Error(), "impostor")
}

func TestOIDCUntrustedProviderCert(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("rsa1", keys["rsa1"])
	a, err := OIDC(Config{IssuerURL: is.srv.URL, ClientID: "orkit", CAPool: x509.NewCertPool()})
	require.NoError(t, err)
	tok := sign(t, keys["rsa1"], map[string]any{"alg": "RS256", "kid": "rsa1"},
		map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": time.Now().Add(time.Hour).Unix()})
	_, _, err = a.AuthenticateRequest(bearer(tok))
	assert.ErrorIs(t, err, ErrProviderUnavailable)
	assert.Equal(t, int32(0), is.jwksHits.Load())
}

func TestOIDCConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"http issuer", Config{IssuerURL: "http://127.0.0.1:1", ClientID: "x"}},
		{"no client id", Config{IssuerURL: "https://127.0.0.1:1"}},
		{"query in issuer", Config{IssuerURL: "https://127.0.0.1:1/?a=b", ClientID: "x"}},
		{"missing CA file", Config{IssuerURL: "https://127.0.0.1:1", ClientID: "x", CAFile: "/nonexistent/ca.crt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OIDC(tt.cfg)
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
}

func TestOIDCConcurrent(t *testing.T) {
	keys := testKeys()
	is := newTestIssuer(t)
	is.publish("ec1", keys["ec1"])
	clk := &fakeClock{}
	clk.now.Store(time.Now().UnixNano())
	a := newOIDC(t, is, clk, nil)
	tok := sign(t, keys["ec1"], map[string]any{"alg": "ES256", "kid": "ec1"},
		map[string]any{"iss": is.srv.URL, "aud": "orkit", "sub": "u", "exp": clk.Now().Add(time.Hour).Unix()})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, ok, err := a.AuthenticateRequest(bearer(tok))
			assert.NoError(t, err)
			assert.True(t, ok)
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), is.jwksHits.Load(), "concurrent first requests share one fetch")
}
