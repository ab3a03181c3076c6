package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadOrCreateSigningKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pki", "sa.key")
	var wg sync.WaitGroup
	keys := make([]any, 4)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := LoadOrCreateSigningKey(path)
			assert.NoError(t, err)
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		assert.True(t, keys[0].(*ecdsa.PrivateKey).Equal(k), "API servers starting together share one key")
	}
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	again, err := LoadOrCreateSigningKey(path)
	require.NoError(t, err)
	assert.True(t, keys[0].(*ecdsa.PrivateKey).Equal(again), "a restart keeps the key")

	pubs, err := LoadPublicKeys(path)
	require.NoError(t, err, "a private key file lists its public half")
	require.Len(t, pubs, 1)
}

func TestSigningKeyFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	ca, err := NewCA("c")
	require.NoError(t, err)
	p384DER, _ := x509.MarshalPKCS8PrivateKey(p384)

	both := write("both.pem", append(append(pemBlock("PUBLIC KEY", ecPub), pemBlock("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&rk.PublicKey))...),
		ca.CertPEM...))
	pubs, err := LoadPublicKeys(both)
	require.NoError(t, err)
	assert.Len(t, pubs, 3)

	for name, b := range map[string][]byte{
		"empty":      nil,
		"garbage":    []byte("not pem"),
		"small RSA":  pemBlock("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&small.PublicKey)),
		"P-384":      pemBlock("PRIVATE KEY", p384DER),
		"bad block":  pemBlock("PUBLIC KEY", []byte("x")),
		"odd header": pemBlock("SOMETHING", []byte("x")),
	} {
		_, err := LoadPublicKeys(write(name, b))
		assert.ErrorIs(t, err, ErrMalformed, name)
	}
	_, err = LoadOrCreateSigningKey(write("p384.key", pemBlock("PRIVATE KEY", p384DER)))
	assert.ErrorIs(t, err, ErrMalformed, "a P-384 key cannot sign ES256")
	_, err = LoadOrCreateSigningKey(write("junk.key", []byte("junk")))
	assert.ErrorIs(t, err, ErrMalformed)
	_, err = LoadPublicKeys(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}
