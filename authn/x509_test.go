package authn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCA mints certificates for tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

func (ca *testCA) issue(t *testing.T, tmpl *x509.Certificate) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Minute)
	}
	if tmpl.NotAfter.IsZero() {
		tmpl.NotAfter = time.Now().Add(time.Hour)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

func client(cn string, orgs ...string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
}

func TestX509(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	other := newTestCA(t, "other-ca")
	interTmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "intermediate"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	inter := &testCA{}
	{
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		interTmpl.SerialNumber = big.NewInt(99)
		interTmpl.NotBefore, interTmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, interTmpl, ca.cert, &key.PublicKey, ca.key)
		require.NoError(t, err)
		inter.cert, _ = x509.ParseCertificate(der)
		inter.key = key
	}
	expired := client("old")
	expired.NotBefore, expired.NotAfter = time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
	serverOnly := client("srv")
	serverOnly.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}

	tests := []struct {
		name     string
		chain    []*x509.Certificate
		noTLS    bool
		wantUser *User
		wantOK   bool
		wantErr  error
	}{
		{name: "valid", chain: []*x509.Certificate{ca.issue(t, client("alice", "dev", "ops"))},
			wantUser: &User{Name: "alice", Groups: []string{"dev", "ops"}}, wantOK: true},
		{name: "via intermediate", chain: []*x509.Certificate{inter.issue(t, client("bob")), inter.cert},
			wantUser: &User{Name: "bob"}, wantOK: true},
		{name: "intermediate missing", chain: []*x509.Certificate{inter.issue(t, client("bob"))},
			wantErr: ErrInvalidCertificate},
		{name: "other CA", chain: []*x509.Certificate{other.issue(t, client("mallory", "system:masters"))},
			wantErr: ErrInvalidCertificate},
		{name: "expired", chain: []*x509.Certificate{ca.issue(t, expired)}, wantErr: ErrInvalidCertificate},
		{name: "server auth only", chain: []*x509.Certificate{ca.issue(t, serverOnly)}, wantErr: ErrInvalidCertificate},
		{name: "no common name", chain: []*x509.Certificate{ca.issue(t, client("", "dev"))}, wantErr: ErrInvalidCertificate},
		{name: "no client certificate"},
		{name: "plain HTTP", noTLS: true},
	}
	a := X509(ca.pool())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api", nil)
			if tt.noTLS {
				r.TLS = nil
			} else {
				r.TLS = &tls.ConnectionState{PeerCertificates: tt.chain}
			}
			u, ok, err := a.AuthenticateRequest(r)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.ErrorIs(t, err, ErrUnauthorized)
				assert.False(t, ok)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantUser, u)
		})
	}
}

func TestX509Clock(t *testing.T) {
	ca := newTestCA(t, "ca")
	cert := ca.issue(t, client("alice"))
	a := X509(ca.pool())
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	_, ok, err := a.AuthenticateRequest(r)
	require.NoError(t, err)
	require.True(t, ok)
	// The verified chain is cached, but not past the certificate's expiry.
	a.now = func() time.Time { return time.Now().Add(48 * time.Hour) }
	_, _, err = a.AuthenticateRequest(r)
	assert.ErrorIs(t, err, ErrInvalidCertificate)
}

func TestX509NoRoots(t *testing.T) {
	ca := newTestCA(t, "ca")
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{ca.issue(t, client("alice"))}}
	_, _, err := X509(nil).AuthenticateRequest(r)
	assert.ErrorIs(t, err, ErrInvalidCertificate)
}

// TestX509OverTLS runs a real TLS handshake on 127.0.0.1, the way the
// server will request (but not itself verify) client certificates.
func TestX509OverTLS(t *testing.T) {
	ca := newTestCA(t, "ca")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := client("carol", "qa")
	tmpl.SerialNumber = big.NewInt(7)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)

	a := Union(false, X509(ca.pool()))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _, err := a.AuthenticateRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(u.Name))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	defer srv.Close()

	plain := srv.Client().Transport.(*http.Transport)
	withCert := plain.Clone()
	withCert.TLSClientConfig.Certificates = []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}
	resp, err := (&http.Client{Transport: withCert}).Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp2, err := (&http.Client{Transport: plain.Clone()}).Get(srv.URL)
	require.NoError(t, err)
	defer resp2.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp2.StatusCode)
}
