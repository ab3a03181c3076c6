package pki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIssueAndVerify(t *testing.T) {
	ca, err := NewCA("orkit-ca")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, ca.Save(dir))
	loaded, err := LoadCA(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	require.NoError(t, err)

	client, err := loaded.IssueClient("alice", "dev", "ops")
	require.NoError(t, err)
	b, _ := pem.Decode(client.CertPEM)
	cert, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	assert.Equal(t, "alice", cert.Subject.CommonName)
	assert.Equal(t, []string{"dev", "ops"}, cert.Subject.Organization)
	_, err = cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err)

	srv, err := ca.IssueServing("apiserver", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	_, err = tls.X509KeyPair(srv.CertPEM, srv.KeyPEM)
	require.NoError(t, err)

	_, err = LoadCA(filepath.Join(dir, "missing.crt"), filepath.Join(dir, "ca.key"))
	assert.Error(t, err)
	_, err = ParsePrivateKey([]byte("garbage"))
	assert.Error(t, err)
}

// TestLoadOrCreateCA: the first call creates and saves the CA, the next
// one loads the same CA, so certificates issued before stay valid.
func TestLoadOrCreateCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	first, err := LoadOrCreateCA(dir, "orkit-ca")
	require.NoError(t, err)
	kp, err := first.IssueClient("bob")
	require.NoError(t, err)
	again, err := LoadOrCreateCA(dir, "ignored")
	require.NoError(t, err)
	assert.Equal(t, first.CertPEM, again.CertPEM)
	assert.Equal(t, "orkit-ca", again.Cert.Subject.CommonName)
	b, _ := pem.Decode(kp.CertPEM)
	cert, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	_, err = cert.Verify(x509.VerifyOptions{Roots: again.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err)
	_, err = kp.TLSCertificate()
	assert.NoError(t, err)
}

// TestParseCAErrors: bad input fails with the sentinel that names it.
func TestParseCAErrors(t *testing.T) {
	a, err := NewCA("a")
	require.NoError(t, err)
	b, err := NewCA("b")
	require.NoError(t, err)
	keyA := mustKeyPEM(t, a)
	tests := []struct {
		name      string
		cert, key []byte
		want      error // nil: the CA parses
	}{
		{name: "matching", cert: a.CertPEM, key: keyA},
		{name: "other CA's key", cert: b.CertPEM, key: keyA, want: ErrKeyMismatch},
		{name: "no certificate", cert: []byte("garbage"), key: keyA, want: ErrMalformed},
		{name: "key as certificate", cert: keyA, key: keyA, want: ErrMalformed},
		{name: "bad certificate bytes", cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2}}), key: keyA, want: ErrMalformed},
		{name: "no key", cert: a.CertPEM, key: nil, want: ErrMalformed},
		{name: "bad key bytes", cert: a.CertPEM, key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}), want: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca, err := ParseCA(tt.cert, tt.key)
			if tt.want == nil {
				require.NoError(t, err)
				assert.NotNil(t, ca)
				return
			}
			assert.ErrorIs(t, err, tt.want)
		})
	}
	_, err = KeyPair{CertPEM: a.CertPEM, KeyPEM: []byte("x")}.TLSCertificate()
	assert.ErrorIs(t, err, ErrMalformed)
}

func mustKeyPEM(t *testing.T, ca *CA) []byte {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, ca.Save(dir))
	b, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	require.NoError(t, err)
	return b
}

// FuzzParsePrivateKey: arbitrary bytes give a key or an ErrMalformed,
// never a panic.
func FuzzParsePrivateKey(f *testing.F) {
	ca, err := NewCA("fuzz")
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	if err := ca.Save(dir); err != nil {
		f.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(key)
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := ParsePrivateKey(b)
		if err != nil {
			assert.ErrorIs(t, err, ErrMalformed)
			return
		}
		assert.NotNil(t, k)
	})
}
