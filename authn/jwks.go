package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"math/big"
)

// RSA key sizes accepted from a key set, in bits.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// jsonWebKey is one entry of a JWK Set (RFC 7517), reduced to the fields
// orkit reads.
type jsonWebKey struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
}

// verificationKey is a parsed public key with the id and algorithm it
// serves.
type verificationKey struct {
	kid string
	alg string // AlgRS256 or AlgES256
	key crypto.PublicKey
}

// parseJWKS parses a JWK Set document. Keys that are not signature keys
// or not of a supported type are skipped, as RFC 7517 allows; a supported
// key that is malformed is an error, as is a set with no usable key.
func parseJWKS(data []byte) ([]verificationKey, error) {
	var set struct {
		Keys []jsonWebKey `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	var keys []verificationKey
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var (
			vk  verificationKey
			err error
		)
		switch k.Kty {
		case "RSA":
			vk, err = k.rsaKey()
		case "EC":
			vk, err = k.ecKey()
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("key set: key %d (kid %q): %w", i, k.Kid, err)
		}
		if k.Alg != "" && k.Alg != vk.alg {
			continue
		}
		keys = append(keys, vk)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("key set: no RS256 or ES256 signing keys")
	}
	return keys, nil
}

func (k jsonWebKey) rsaKey() (verificationKey, error) {
	n, err := b64.DecodeString(k.N)
	if err != nil || len(n) == 0 {
		return verificationKey{}, fmt.Errorf("bad modulus")
	}
	e, err := b64.DecodeString(k.E)
	if err != nil || len(e) == 0 || len(e) > 4 {
		return verificationKey{}, fmt.Errorf("bad exponent")
	}
	var exp int
	for _, b := range e {
		exp = exp<<8 | int(b)
	}
	mod := new(big.Int).SetBytes(n)
	if bits := mod.BitLen(); bits < minRSABits || bits > maxRSABits {
		return verificationKey{}, fmt.Errorf("RSA key of %d bits, want %d to %d", bits, minRSABits, maxRSABits)
	}
	if exp < 3 || exp%2 == 0 {
		return verificationKey{}, fmt.Errorf("bad exponent %d", exp)
	}
	return verificationKey{kid: k.Kid, alg: AlgRS256, key: &rsa.PublicKey{N: mod, E: exp}}, nil
}

func (k jsonWebKey) ecKey() (verificationKey, error) {
	if k.Crv != "P-256" {
		return verificationKey{}, fmt.Errorf("unsupported curve %q", k.Crv)
	}
	x, errX := b64.DecodeString(k.X)
	y, errY := b64.DecodeString(k.Y)
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return verificationKey{}, fmt.Errorf("bad P-256 coordinates")
	}
	point := append(append([]byte{4}, x...), y...)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return verificationKey{}, err
	}
	return verificationKey{kid: k.Kid, alg: AlgES256, key: pub}, nil
}
