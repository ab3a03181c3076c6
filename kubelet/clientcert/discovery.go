package clientcert

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CAHashPrefix starts every CA hash (kubeadm's format).
const CAHashPrefix = "sha256:"

// CAHash returns the pin of a CA certificate as kubeadm's
// --discovery-token-ca-cert-hash spells it: "sha256:" and the hex SHA-256
// of the certificate's SubjectPublicKeyInfo.
func CAHash(ca *x509.Certificate) string {
	sum := sha256.Sum256(ca.RawSubjectPublicKeyInfo)
	return CAHashPrefix + hex.EncodeToString(sum[:])
}

// ParseCAHash checks a "sha256:<64 hex digits>" pin and returns its
// digest. Errors wrap ErrInvalidCAHash.
func ParseCAHash(pin string) ([]byte, error) {
	hexDigits, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(pin)), CAHashPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: %q does not start with %s", ErrInvalidCAHash, pin, CAHashPrefix)
	}
	sum, err := hex.DecodeString(hexDigits)
	if err != nil || len(sum) != sha256.Size {
		return nil, fmt.Errorf("%w: %q is not %s and 64 hex digits", ErrInvalidCAHash, pin, CAHashPrefix)
	}
	return sum, nil
}

// DiscoverCA connects to the API server at serverURL ("https://host:port")
// and returns the cluster CA (PEM) its TLS chain ends in, after checking
// that the CA's public key matches pin (see CAHash) and that the server's
// certificate is valid for host under that CA. Nothing is sent before the
// check, so a bootstrap token used afterwards cannot leak to a server that
// does not hold the pinned CA's key. Errors: ErrInvalidCAHash for a
// malformed pin, ErrCAMismatch when no certificate of the chain matches or
// the server's certificate does not verify, else the dial error.
func DiscoverCA(ctx context.Context, serverURL, pin string) ([]byte, error) {
	want, err := ParseCAHash(pin)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%w: server %q: want https://host:port", ErrInvalidConfig, serverURL)
	}
	host, addr := u.Hostname(), u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(host, "443")
	}
	var (
		ca        *x509.Certificate
		verifyErr error
	)
	d := tls.Dialer{Config: &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The chain is checked below, against the pinned CA, instead of
		// against roots this node does not have yet.
		InsecureSkipVerify: true, //nolint:gosec // verified in VerifyConnection
		VerifyConnection: func(cs tls.ConnectionState) error {
			ca, verifyErr = pinnedCA(cs.PeerCertificates, want, host)
			return verifyErr
		},
	}}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if verifyErr != nil {
			return nil, fmt.Errorf("%s: %w", serverURL, verifyErr)
		}
		return nil, fmt.Errorf("discover the cluster CA at %s: %w", serverURL, err)
	}
	conn.Close()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), nil
}

// pinnedCA finds the CA certificate of chain whose key hashes to want and
// verifies chain[0] for host under it.
func pinnedCA(chain []*x509.Certificate, want []byte, host string) (*x509.Certificate, error) {
	if len(chain) == 0 {
		return nil, fmt.Errorf("%w: the server sent no certificate", ErrCAMismatch)
	}
	for _, c := range chain {
		sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
		if !c.IsCA || subtle.ConstantTimeCompare(sum[:], want) != 1 {
			continue
		}
		roots, inter := x509.NewCertPool(), x509.NewCertPool()
		roots.AddCert(c)
		for _, i := range chain[1:] {
			inter.AddCert(i)
		}
		if _, err := chain[0].Verify(x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: inter}); err != nil {
			return nil, fmt.Errorf("%w: the server's certificate does not verify under the pinned CA: %v", ErrCAMismatch, err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("%w: no CA certificate in the server's chain has the pinned public key (the server sends its chain with the CA; is the hash of this cluster's CA?)", ErrCAMismatch)
}
