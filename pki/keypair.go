package pki

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// KeyPair is an issued certificate and its private key, PEM-encoded. It
// is a plain value: copy it freely.
type KeyPair struct {
	CertPEM, KeyPEM []byte
}

// TLSCertificate returns the pair as a tls.Certificate, for a server's
// TLS config or a client's.
func (kp KeyPair) TLSCertificate() (tls.Certificate, error) {
	c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return c, nil
}

// Write stores the pair as name.crt and name.key (mode 0600) in dir,
// creating dir (mode 0700).
func (kp KeyPair) Write(dir, name string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), kp.CertPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".key"), kp.KeyPEM, 0o600)
}

// ParsePrivateKey decodes a PEM private key in PKCS#8, SEC 1 or PKCS#1
// form; anything else fails with ErrMalformed.
func ParsePrivateKey(keyPEM []byte) (crypto.Signer, error) {
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, fmt.Errorf("no PEM private key: %w", ErrMalformed)
	}
	if k, err := x509.ParsePKCS8PrivateKey(kb.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, fmt.Errorf("PKCS#8 key is not a signing key: %w", ErrMalformed)
	}
	if k, err := x509.ParseECPrivateKey(kb.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(kb.Bytes); err == nil {
		return k, nil
	}
	return nil, fmt.Errorf("private key is neither PKCS#8, SEC 1 nor PKCS#1: %w", ErrMalformed)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
