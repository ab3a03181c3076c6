package authn

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseJWT(t *testing.T) {
	keys := testKeys()
	good := sign(t, keys["ec1"], map[string]any{"alg": "ES256", "kid": "k"}, map[string]any{"sub": "x", "exp": 1})
	tests := []struct {
		name    string
		token   string
		wantErr error
	}{
		{"valid", good, nil},
		{"two parts", "a.b", ErrMalformedToken},
		{"four parts", good + ".x", ErrMalformedToken},
		{"JWE five parts", "a.b.c.d.e", ErrMalformedToken},
		{"empty", "", ErrMalformedToken},
		{"oversized", strings.Repeat("a", MaxTokenSize+1), ErrMalformedToken},
		{"payload array", b64.EncodeToString([]byte(`{"alg":"ES256"}`)) + "." + b64.EncodeToString([]byte(`[1]`)) + ".c2ln", ErrMalformedToken},
		{"payload null", b64.EncodeToString([]byte(`{"alg":"ES256"}`)) + "." + b64.EncodeToString([]byte(`null`)) + ".c2ln", ErrMalformedToken},
		{"trailing JSON", b64.EncodeToString([]byte(`{"alg":"ES256"}{}`)) + "." + b64.EncodeToString([]byte(`{}`)) + ".c2ln", ErrMalformedToken},
		{"empty signature", b64.EncodeToString([]byte(`{"alg":"ES256"}`)) + "." + b64.EncodeToString([]byte(`{}`)) + ".", ErrMalformedToken},
		{"alg none", b64.EncodeToString([]byte(`{"alg":"none"}`)) + "." + b64.EncodeToString([]byte(`{}`)) + ".c2ln", ErrUnsupportedAlgorithm},
		{"alg missing", b64.EncodeToString([]byte(`{}`)) + "." + b64.EncodeToString([]byte(`{}`)) + ".c2ln", ErrUnsupportedAlgorithm},
		{"alg case", b64.EncodeToString([]byte(`{"alg":"rs256"}`)) + "." + b64.EncodeToString([]byte(`{}`)) + ".c2ln", ErrUnsupportedAlgorithm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jwt, err := ParseJWT(tt.token)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, jwt)
				return
			}
			require.NoError(t, err)
			assert.NoError(t, jwt.Verify(keys["ec1"].Public()))
		})
	}
}

func TestJWTVerifyKeyMismatch(t *testing.T) {
	keys := testKeys()
	rs := sign(t, keys["rsa1"], map[string]any{"alg": "RS256"}, map[string]any{"sub": "x"})
	es := sign(t, keys["ec1"], map[string]any{"alg": "ES256"}, map[string]any{"sub": "x"})
	rj, err := ParseJWT(rs)
	require.NoError(t, err)
	ej, err := ParseJWT(es)
	require.NoError(t, err)
	assert.NoError(t, rj.Verify(keys["rsa1"].Public().(*rsa.PublicKey)))
	assert.ErrorIs(t, rj.Verify(keys["rsa2"].Public()), ErrBadSignature)
	assert.ErrorIs(t, rj.Verify(keys["ec1"].Public()), ErrBadSignature)
	assert.ErrorIs(t, ej.Verify(keys["rsa1"].Public()), ErrBadSignature)
	assert.ErrorIs(t, ej.Verify(keys["ec2"].Public().(*ecdsa.PublicKey)), ErrBadSignature)
}

func TestParseJWKS(t *testing.T) {
	keys := testKeys()
	rsaJWK := jwkOf(t, "r", keys["rsa1"].Public())
	ecJWK := jwkOf(t, "e", keys["ec1"].Public())
	set := func(ks ...any) []byte {
		b, _ := json.Marshal(map[string]any{"keys": ks})
		return b
	}
	tests := []struct {
		name    string
		doc     []byte
		wantN   int
		wantErr string
	}{
		{"rsa and ec", set(rsaJWK, ecJWK), 2, ""},
		{"encryption keys and unknown kty skipped", set(rsaJWK, map[string]string{"kty": "RSA", "use": "enc"}, map[string]string{"kty": "OKP"}), 1, ""},
		{"alg mismatch skipped", set(ecJWK, map[string]string{"kty": "RSA", "alg": "RS512", "n": rsaJWK["n"], "e": rsaJWK["e"]}), 1, ""},
		{"nothing usable", set(map[string]string{"kty": "oct"}), 0, "no RS256 or ES256"},
		{"not JSON", []byte("<html>"), 0, "key set"},
		{"small RSA", set(map[string]string{"kty": "RSA", "n": b64.EncodeToString([]byte{0xff, 0xff}), "e": "AQAB"}), 0, "bits"},
		{"even exponent", set(map[string]string{"kty": "RSA", "n": rsaJWK["n"], "e": "Ag"}), 0, "exponent"},
		{"EC point off curve", set(map[string]string{"kty": "EC", "crv": "P-256", "x": ecJWK["x"], "y": ecJWK["x"]}), 0, "key 0"},
		{"EC wrong curve", set(map[string]string{"kty": "EC", "crv": "P-384", "x": ecJWK["x"], "y": ecJWK["y"]}), 0, "curve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks, err := parseJWKS(tt.doc)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, ks, tt.wantN)
		})
	}
}

// FuzzParseJWT checks the JWT parser never panics, returns only typed
// errors, and never accepts an algorithm other than RS256/ES256.
func FuzzParseJWT(f *testing.F) {
	f.Add("eyJhbGciOiJSUzI1NiJ9.e30.c2ln")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		jwt, err := ParseJWT(tok)
		if err != nil {
			if !errors.Is(err, ErrUnauthorized) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if jwt.Header.Alg != AlgRS256 && jwt.Header.Alg != AlgES256 {
			t.Fatalf("accepted alg %q", jwt.Header.Alg)
		}
		_, _, _ = jwt.StringsClaim("aud")
		_, _, _ = jwt.TimeClaim("exp")
		if jwt.Verify(testKeys()["ec1"].Public()) == nil && jwt.Header.Alg != AlgES256 {
			t.Fatalf("verified with wrong key type")
		}
	})
}

// FuzzParseJWKS checks the key-set parser never panics.
func FuzzParseJWKS(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		ks, err := parseJWKS(doc)
		if err == nil && len(ks) == 0 {
			t.Fatal("no error and no keys")
		}
	})
}
