package authn

import (
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// chainKey hashes a peer chain and returns the earliest NotAfter in it.
func chainKey(chain []*x509.Certificate) ([sha256.Size]byte, time.Time) {
	h := sha256.New()
	until := chain[0].NotAfter
	for _, c := range chain {
		h.Write(c.Raw)
		if c.NotAfter.Before(until) {
			until = c.NotAfter
		}
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k, until
}

func (a *X509Authenticator) cached(k [sha256.Size]byte, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	until, ok := a.verified[k]
	return ok && now.Before(until)
}

func (a *X509Authenticator) remember(k [sha256.Size]byte, until time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.verified == nil || len(a.verified) >= maxVerified {
		a.verified = map[[sha256.Size]byte]time.Time{}
	}
	a.verified[k] = until
}

// X509Authenticator authenticates a request by its verified TLS client
// certificate: the subject's CommonName is the user name and each
// Organization is a group. It is safe for concurrent use; it caches
// chains that verified until they expire.
type X509Authenticator struct {
	roots *x509.CertPool
	now   func() time.Time // nil: time.Now; a test seam
	// verified remembers chains that verified, until the earliest
	// NotAfter in them, so a client's every request does not pay for
	// signature checks (the roots never change).
	mu       sync.Mutex
	verified map[[sha256.Size]byte]time.Time
}

// maxVerified bounds the verification cache; past it the cache restarts.
const maxVerified = 4096

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
	now := time.Now()
	if a.now != nil {
		now = a.now()
	}
	key, until := chainKey(r.TLS.PeerCertificates)
	if !a.cached(key, now) {
		for _, c := range r.TLS.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := leaf.Verify(opts); err != nil {
			return nil, false, fmt.Errorf("%w: %q: %w", ErrInvalidCertificate, leaf.Subject.CommonName, err)
		}
		a.remember(key, until)
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, fmt.Errorf("%w: subject has no common name", ErrInvalidCertificate)
	}
	return &User{
		Name:   leaf.Subject.CommonName,
		Groups: slices.Clone(leaf.Subject.Organization),
	}, true, nil
}
