package authn

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// MaxTokenSize is the largest bearer token the OIDC authenticator parses.
const MaxTokenSize = 64 << 10

// The JWS algorithms orkit verifies. Everything else, "none" included, is
// rejected before any key is looked at.
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
)

// jwtHeader is the JOSE header of a compact JWS.
type jwtHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid,omitempty"`
	Typ  string          `json:"typ,omitempty"`
	Crit json.RawMessage `json:"crit,omitempty"`
}

// JWT is a compact JWS parsed but not yet verified. Its fields are valid
// only once Verify has succeeded.
type JWT struct {
	Header       jwtHeader
	Claims       map[string]json.RawMessage
	signingInput string
	signature    []byte
}

var b64 = base64.RawURLEncoding.Strict()

// ParseJWT splits and decodes a compact JWS (header.payload.signature)
// without verifying it. The header must name RS256 or ES256 and carry no
// "crit" extensions; the payload must be a JSON object. Errors wrap
// ErrMalformedToken or ErrUnsupportedAlgorithm.
func ParseJWT(token string) (*JWT, error) {
	if len(token) > MaxTokenSize {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformedToken, MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: want 3 dot-separated parts, found %d", ErrMalformedToken, len(parts))
	}
	t := &JWT{signingInput: parts[0] + "." + parts[1]}
	if err := decodeSegment(parts[0], "header", &t.Header); err != nil {
		return nil, err
	}
	switch t.Header.Alg {
	case AlgRS256, AlgES256:
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedAlgorithm, t.Header.Alg)
	}
	if len(t.Header.Crit) > 0 {
		return nil, fmt.Errorf("%w: unsupported critical header extensions", ErrMalformedToken)
	}
	if err := decodeSegment(parts[1], "payload", &t.Claims); err != nil {
		return nil, err
	}
	if t.Claims == nil {
		return nil, fmt.Errorf("%w: payload is not a JSON object", ErrMalformedToken)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("%w: signature: %w", ErrMalformedToken, err)
	}
	if len(sig) == 0 {
		return nil, fmt.Errorf("%w: empty signature", ErrMalformedToken)
	}
	t.signature = sig
	return t, nil
}

// decodeSegment base64url-decodes seg and unmarshals it as JSON into v.
func decodeSegment(seg, what string, v any) error {
	raw, err := b64.DecodeString(seg)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrMalformedToken, what, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrMalformedToken, what, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: %s: trailing data", ErrMalformedToken, what)
	}
	return nil
}

// Verify checks the signature with key, which must match the header's
// algorithm: an *rsa.PublicKey for RS256, a P-256 *ecdsa.PublicKey for
// ES256. A mismatch or a bad signature wraps ErrBadSignature.
func (t *JWT) Verify(key crypto.PublicKey) error {
	digest := sha256.Sum256([]byte(t.signingInput))
	switch t.Header.Alg {
	case AlgRS256:
		pub, ok := key.(*rsa.PublicKey)
		if !ok {
			return fmt.Errorf("%w: RS256 token, %T key", ErrBadSignature, key)
		}
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], t.signature); err != nil {
			return fmt.Errorf("%w: %w", ErrBadSignature, err)
		}
		return nil
	case AlgES256:
		pub, ok := key.(*ecdsa.PublicKey)
		if !ok || pub.Curve.Params().Name != "P-256" {
			return fmt.Errorf("%w: ES256 token, %T key", ErrBadSignature, key)
		}
		if len(t.signature) != 64 {
			return fmt.Errorf("%w: ES256 signature is %d bytes, want 64", ErrBadSignature, len(t.signature))
		}
		r := new(big.Int).SetBytes(t.signature[:32])
		s := new(big.Int).SetBytes(t.signature[32:])
		if !ecdsa.Verify(pub, digest[:], r, s) {
			return ErrBadSignature
		}
		return nil
	}
	return fmt.Errorf("%w: %q", ErrUnsupportedAlgorithm, t.Header.Alg)
}

// StringClaim returns the claim name as a string. present is false when
// the claim is absent; an error wrapping ErrInvalidClaims means it is
// present but not a string.
func (t *JWT) StringClaim(name string) (value string, present bool, err error) {
	raw, ok := t.Claims[name]
	if !ok {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", true, fmt.Errorf("%w: claim %q is not a string", ErrInvalidClaims, name)
	}
	return value, true, nil
}

// StringsClaim returns a claim that is a string or an array of strings.
func (t *JWT) StringsClaim(name string) (values []string, present bool, err error) {
	raw, ok := t.Claims[name]
	if !ok {
		return nil, false, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true, nil
	}
	if err := json.Unmarshal(raw, &values); err != nil {
		return nil, true, fmt.Errorf("%w: claim %q is not a string or a list of strings", ErrInvalidClaims, name)
	}
	return values, true, nil
}

// TimeClaim returns a NumericDate claim (seconds since the epoch, possibly
// fractional) as whole seconds.
func (t *JWT) TimeClaim(name string) (secs int64, present bool, err error) {
	raw, ok := t.Claims[name]
	if !ok {
		return 0, false, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, true, fmt.Errorf("%w: claim %q is not a number", ErrInvalidClaims, name)
	}
	if i, err := n.Int64(); err == nil {
		return i, true, nil
	}
	f, err := n.Float64()
	if err != nil || f != f || f > 1<<62 || f < -(1<<62) {
		return 0, true, fmt.Errorf("%w: claim %q is out of range", ErrInvalidClaims, name)
	}
	return int64(f), true, nil
}
