package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadOrCreateSigningKey reads the private key in path (PEM: PKCS#8,
// SEC 1 or PKCS#1; ECDSA P-256 or RSA of at least 2048 bits), or, when
// the file does not exist, creates a P-256 key and saves it there as
// PKCS#8 (mode 0600, the directory 0700). It is the service-account
// signing key of kube-apiserver's --service-account-signing-key-file:
// several API servers given the same file sign and verify the same
// tokens. Two processes creating the file at once agree: the second
// reads what the first wrote. Errors wrap ErrMalformed for a file that
// holds no usable key.
func LoadOrCreateSigningKey(path string) (crypto.Signer, error) {
	if b, err := os.ReadFile(path); err == nil {
		return parseSigningKey(path, b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".signing-key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(pemBlock("PRIVATE KEY", der)); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	// A hard link fails when path exists: whoever linked first wins and
	// everyone reads the winner's key.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return parseSigningKey(path, b)
}

// LoadSigningKey reads the private key in path as LoadOrCreateSigningKey
// does, but never creates it: a missing file is an error (wrapping
// fs.ErrNotExist).
func LoadSigningKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return parseSigningKey(path, b)
}

func parseSigningKey(path string, b []byte) (crypto.Signer, error) {
	key, err := ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	if err := checkSigningKey(key.Public()); err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return key, nil
}

// checkSigningKey accepts the keys JWTs are signed with: ECDSA P-256 and
// RSA of at least 2048 bits.
func checkSigningKey(pub crypto.PublicKey) error {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return fmt.Errorf("ECDSA key on %s, want P-256: %w", k.Curve.Params().Name, ErrMalformed)
		}
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return fmt.Errorf("RSA key of %d bits, want at least 2048: %w", k.N.BitLen(), ErrMalformed)
		}
	default:
		return fmt.Errorf("%T is neither ECDSA nor RSA: %w", pub, ErrMalformed)
	}
	return nil
}

// LoadPublicKeys reads the verification keys in the PEM file path, as
// kube-apiserver's --service-account-key-file does: PUBLIC KEY blocks,
// RSA PUBLIC KEY blocks, certificates (their keys) and private keys
// (their public halves), in file order. Every key must be ECDSA P-256 or
// RSA of at least 2048 bits; a file with none fails with ErrMalformed.
func LoadPublicKeys(path string) ([]crypto.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	var keys []crypto.PublicKey
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			break
		}
		pub, err := publicKeyOf(block)
		if err != nil {
			return nil, fmt.Errorf("key file %s: %s block: %w", path, block.Type, err)
		}
		if err := checkSigningKey(pub); err != nil {
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		keys = append(keys, pub)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("key file %s holds no PEM key: %w", path, ErrMalformed)
	}
	return keys, nil
}

// publicKeyOf returns the public key a PEM block holds or implies.
func publicKeyOf(block *pem.Block) (crypto.PublicKey, error) {
	switch block.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return k, nil
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return k, nil
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return c.PublicKey, nil
	case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
		k, err := ParsePrivateKey(pem.EncodeToMemory(block))
		if err != nil {
			return nil, err
		}
		return k.Public(), nil
	}
	return nil, fmt.Errorf("unknown PEM block type: %w", ErrMalformed)
}
