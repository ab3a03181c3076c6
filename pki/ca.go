package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority that signs the cluster's certificates.
// It holds its key in memory and no other resource; its fields must not
// change after it is made. Safe for concurrent use.
type CA struct {
	// Cert is the CA certificate.
	Cert *x509.Certificate
	// Key signs what the CA issues.
	Key crypto.Signer
	// CertPEM is Cert encoded, as written to ca.crt.
	CertPEM []byte
}

const validity = 10 * 365 * 24 * time.Hour

// NewCA creates a self-signed CA named cn, valid for ten years. It is
// only in memory until Save.
func NewCA(cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("self-sign CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertPEM: pemBlock("CERTIFICATE", der)}, nil
}

// LoadCA reads a CA from a certificate and key file (PEM; the key PKCS#8,
// SEC 1 EC or PKCS#1 RSA, so an operator's openssl-made CA works too).
func LoadCA(certFile, keyFile string) (*CA, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("read CA certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read CA key: %w", err)
	}
	ca, err := ParseCA(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("CA %s, %s: %w", certFile, keyFile, err)
	}
	return ca, nil
}

// ParseCA makes a CA of a PEM certificate and its PEM private key. It
// fails with ErrMalformed when either does not parse and ErrKeyMismatch
// when the key is not the certificate's.
func ParseCA(certPEM, keyPEM []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("no PEM certificate: %w", ErrMalformed)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("certificate: %w: %w", ErrMalformed, err)
	}
	key, err := ParsePrivateKey(keyPEM)
	if err != nil {
		return nil, err
	}
	if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(cert.PublicKey) {
		return nil, ErrKeyMismatch
	}
	return &CA{Cert: cert, Key: key, CertPEM: certPEM}, nil
}

// LoadOrCreateCA reads dir/ca.crt and dir/ca.key, or, when there is no
// dir/ca.crt yet, creates a CA named cn and saves it there (the key mode
// 0600). A control plane started again on the same directory keeps its
// CA, so the certificates it issued stay valid.
func LoadOrCreateCA(dir, cn string) (*CA, error) {
	crt, key := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if _, err := os.Stat(crt); err == nil {
		return LoadCA(crt, key)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("CA %s: %w", crt, err)
	}
	ca, err := NewCA(cn)
	if err != nil {
		return nil, err
	}
	return ca, ca.Save(dir)
}

// Save writes ca.crt and ca.key into dir, creating it (mode 0700; the
// key file 0600).
func (ca *CA) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(ca.Key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca.CertPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "ca.key"), pemBlock("PRIVATE KEY", keyDER), 0o600)
}

// Pool returns a pool holding the CA certificate.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// IssueServing issues a server certificate named cn for the given DNS
// names and IPs, valid for ten years.
func (ca *CA) IssueServing(cn string, dnsNames []string, ips []net.IP) (KeyPair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// IssueClient issues a client certificate for user in groups (CN = user,
// O = groups), valid for ten years: the credentials of a component
// ("system:kube-scheduler", "system:node:<name>" in "system:nodes") or of
// a person.
func (ca *CA) IssueClient(user string, groups ...string) (KeyPair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func (ca *CA) issue(tmpl *x509.Certificate) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generate key: %w", err)
	}
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{CertPEM: pemBlock("CERTIFICATE", der), KeyPEM: pemBlock("PRIVATE KEY", keyDER)}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return n
}

// Sign signs a certificate for pub from tmpl (the caller sets subject,
// validity, usages; a serial number is filled in when absent) with the
// CA and returns it PEM-encoded: a signer answering a certificate
// request.
func (ca *CA) Sign(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	if tmpl.SerialNumber == nil {
		tmpl.SerialNumber = serial()
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, pub, ca.Key)
	if err != nil {
		return nil, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	return pemBlock("CERTIFICATE", der), nil
}
