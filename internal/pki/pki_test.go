package pki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
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
