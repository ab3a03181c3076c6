package authn

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// X509Authenticator authenticates a request by its verified TLS client
// certificate: the subject's CommonName is the user name and each
// Organization is a group. It is immutable after construction and safe for
// concurrent use.
type X509Authenticator struct {
	roots *x509.CertPool
	now   func() time.Time // nil: time.Now; a test seam
}

var _ Authenticator = (*X509Authenticator)(nil)

// X509 returns an authenticator that trusts client certificates chaining
// to roots with the ClientAuth extended key usage. Intermediates are taken
// from the rest of the peer's chain. The pool is shared, not copied: do not
// change it afterwards.
func X509(roots *x509.CertPool) *X509Authenticator {
	return &X509Authenticator{roots: roots}
}

// AuthenticateRequest implements Authenticator. A request without TLS or
// without a client certificate is not ok (nil error); a certificate that
// does not verify, or verifies but has no CommonName, is an error wrapping
// ErrInvalidCertificate.
//
// The server must request client certificates without verifying them
// itself (tls.RequestClientCert or VerifyClientCertIfGiven): verification
// here is what makes them count.
func (a *X509Authenticator) AuthenticateRequest(r *http.Request) (*User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	if a.roots == nil {
		return nil, false, fmt.Errorf("%w: no client CA configured", ErrInvalidCertificate)
	}
	leaf := r.TLS.PeerCertificates[0]
	opts := x509.VerifyOptions{
		Roots:         a.roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if a.now != nil {
		opts.CurrentTime = a.now()
	}
	for _, c := range r.TLS.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := leaf.Verify(opts); err != nil {
		return nil, false, fmt.Errorf("%w: %q: %w", ErrInvalidCertificate, leaf.Subject.CommonName, err)
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, fmt.Errorf("%w: subject has no common name", ErrInvalidCertificate)
	}
	return &User{
		Name:   leaf.Subject.CommonName,
		Groups: slices.Clone(leaf.Subject.Organization),
	}, true, nil
}
