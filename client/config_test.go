package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/pki"
)

// testPKI is a CA with a serving pair for 127.0.0.1 and a client pair.
type testPKI struct {
	ca             *pki.CA
	serving, alice pki.KeyPair
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	require.NoError(t, err)
	serving, err := ca.IssueServing("server", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	alice, err := ca.IssueClient("alice", "devs")
	require.NoError(t, err)
	return &testPKI{ca: ca, serving: serving, alice: alice}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// kubeconfigYAML is a kubeconfig as kubectl writes it, with two clusters,
// five users and contexts pairing them.
func kubeconfigYAML(p *testPKI) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: files
clusters:
- name: by-file
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: pki/ca.crt
- name: by-data
  cluster:
    server: https://localhost:7443/prefix
    certificate-authority-data: %s
    tls-server-name: kubernetes
users:
- name: cert-files
  user:
    client-certificate: pki/alice.crt
    client-key: pki/alice.key
- name: cert-data
  user:
    client-certificate-data: %s
    client-key-data: %s
- name: token-file
  user:
    tokenFile: secrets/token
- name: basic
  user:
    username: bob
    password: s3cret
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        id-token: eyJhbGciOi.payload.sig
        idp-issuer-url: https://issuer.example
contexts:
- name: files
  context: {cluster: by-file, user: cert-files, namespace: team}
- name: data
  context: {cluster: by-data, user: cert-data}
- name: token
  context: {cluster: by-file, user: token-file}
- name: basic
  context: {cluster: by-data, user: basic}
- name: oidc
  context: {cluster: by-data, user: oidc}
- name: anonymous
  context: {cluster: by-data}
`, b64(p.ca.CertPEM), b64(p.alice.CertPEM), b64(p.alice.KeyPEM))
}

func TestConfigFromKubeconfig(t *testing.T) {
	p := newTestPKI(t)
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config"), kubeconfigYAML(p))
	require.NoError(t, p.alice.Write(filepath.Join(dir, "pki"), "alice"))
	writeFile(t, filepath.Join(dir, "pki", "ca.crt"), string(p.ca.CertPEM))

	tests := []struct {
		context string
		check   func(t *testing.T, c *Config)
	}{
		{"", func(t *testing.T, c *Config) { // current-context: files, relative to the kubeconfig
			assert.Equal(t, "https://127.0.0.1:6443", c.Host)
			assert.Equal(t, p.ca.CertPEM, c.CAData)
			assert.Equal(t, p.alice.CertPEM, c.CertData)
			assert.Equal(t, p.alice.KeyPEM, c.KeyData)
			assert.Equal(t, "team", c.Namespace)
		}},
		{"data", func(t *testing.T, c *Config) {
			assert.Equal(t, "https://localhost:7443/prefix", c.Host)
			assert.Equal(t, p.ca.CertPEM, c.CAData)
			assert.Equal(t, p.alice.CertPEM, c.CertData)
			assert.Equal(t, "kubernetes", c.ServerName)
		}},
		{"token", func(t *testing.T, c *Config) {
			assert.Equal(t, filepath.Join(dir, "secrets", "token"), c.BearerTokenFile)
			assert.Empty(t, c.CertData)
		}},
		{"basic", func(t *testing.T, c *Config) {
			assert.Equal(t, "bob", c.Username)
			assert.Equal(t, "s3cret", c.Password)
		}},
		{"oidc", func(t *testing.T, c *Config) { assert.Equal(t, "eyJhbGciOi.payload.sig", c.BearerToken) }},
		{"anonymous", func(t *testing.T, c *Config) {
			assert.Empty(t, c.BearerToken)
			assert.Empty(t, c.CertData)
		}},
	}
	for _, tt := range tests {
		t.Run("context="+tt.context, func(t *testing.T) {
			c, err := ConfigFromKubeconfig(path, tt.context)
			require.NoError(t, err)
			tt.check(t, c)
			_, err = New(c)
			require.NoError(t, err, "every resolved config makes a client")
		})
	}
}

func TestConfigFromKubeconfigEnv(t *testing.T) {
	p := newTestPKI(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "kc"), kubeconfigYAML(p))
	t.Setenv("KUBECONFIG", path+string(os.PathListSeparator)+"/nonexistent")
	c, err := ConfigFromKubeconfig("", "oidc")
	require.NoError(t, err)
	assert.Equal(t, "https://localhost:7443/prefix", c.Host)
}

// TestConfigFromKubeconfigErrors: bad kubeconfigs fail with a clear,
// typed error naming what is wrong.
func TestConfigFromKubeconfigErrors(t *testing.T) {
	p := newTestPKI(t)
	base := kubeconfigYAML(p)
	tests := []struct {
		name    string
		yaml    string
		context string
		wantIs  error
		wantMsg string
	}{
		{"unknown context", base, "nope", ErrInvalidKubeconfig, `context "nope" not found`},
		{"no current context", strings.Replace(base, "current-context: files", "", 1), "", ErrInvalidKubeconfig, "current-context is not set"},
		{"missing cluster", strings.Replace(base, "cluster: by-data, user: basic", "cluster: gone, user: basic", 1), "basic", ErrInvalidKubeconfig, `cluster "gone", which is not defined`},
		{"missing user", strings.Replace(base, "cluster: by-data, user: basic", "cluster: by-data, user: gone", 1), "basic", ErrInvalidKubeconfig, `user "gone", which is not defined`},
		{"file and data", strings.Replace(base, "    tls-server-name: kubernetes", "    certificate-authority: x.crt", 1), "data", ErrInvalidKubeconfig, "both certificate-authority and certificate-authority-data"},
		{"cert without key", strings.Replace(base, "    client-key: pki/alice.key\n", "", 1), "files", ErrInvalidKubeconfig, "without its key"},
		{"token and basic", strings.Replace(base, "    username: bob", "    token: abc\n    username: bob", 1), "basic", ErrInvalidKubeconfig, "more than one authentication method"},
		{"unsupported provider", strings.Replace(base, "      name: oidc", "      name: gcp", 1), "oidc", ErrInvalidKubeconfig, `auth-provider "gcp" is not supported`},
		{"oidc without token", strings.Replace(base, "        id-token: eyJhbGciOi.payload.sig\n", "", 1), "oidc", ErrInvalidKubeconfig, "no id-token"},
		{"bad server", strings.Replace(base, "https://127.0.0.1:6443", "127.0.0.1:6443", 1), "files", ErrInvalidKubeconfig, "not an http(s) URL"},
		{"insecure with CA", strings.Replace(base, "    tls-server-name: kubernetes", "    insecure-skip-tls-verify: true", 1), "data", ErrInvalidKubeconfig, "insecure-skip-tls-verify"},
		{"malformed yaml", "clusters: [", "", ErrInvalidKubeconfig, "parse kubeconfig"},
		{"wrong types", "clusters: 7", "", ErrInvalidKubeconfig, "parse kubeconfig"},
		{"missing cert file", base, "files", os.ErrNotExist, "client-certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, filepath.Join(dir, "config"), tt.yaml)
			writeFile(t, filepath.Join(dir, "pki", "ca.crt"), string(p.ca.CertPEM))
			if tt.wantIs != os.ErrNotExist {
				require.NoError(t, p.alice.Write(filepath.Join(dir, "pki"), "alice"))
			}
			_, err := ConfigFromKubeconfig(path, tt.context)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestConfigFromKubeconfigFiles(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		_, err := ConfigFromKubeconfig(filepath.Join(t.TempDir(), "none"), "")
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("oversized", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(maxKubeconfigBytes+1))
		require.NoError(t, f.Close())
		_, err = ConfigFromKubeconfig(path, "")
		assert.ErrorIs(t, err, ErrInvalidKubeconfig)
		assert.Contains(t, err.Error(), "more than the")
	})
}

// tlsServer is an HTTPS server with HTTP/2 that asks for client
// certificates from p's CA and records what each request carried.
type tlsServer struct {
	*httptest.Server
	mu    sync.Mutex
	seen  []seenRequest
	reply func(w http.ResponseWriter, r *http.Request)
}

type seenRequest struct {
	proto, auth, cn, userAgent string
}

func newTLSServer(t *testing.T, p *testPKI) *tlsServer {
	t.Helper()
	s := &tlsServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sr := seenRequest{proto: r.Proto, auth: r.Header.Get("Authorization"), userAgent: r.UserAgent()}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			sr.cn = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		s.mu.Lock()
		s.seen = append(s.seen, sr)
		s.mu.Unlock()
		writeObject(w, http.StatusOK, configMap("a"))
	}))
	cert, err := tls.X509KeyPair(p.serving.CertPEM, p.serving.KeyPEM)
	require.NoError(t, err)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: p.ca.Pool()}
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *tlsServer) last() seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[len(s.seen)-1]
}

func getA(t *testing.T, c *Client) error {
	t.Helper()
	_, err := For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	return err
}

// TestTLSAndCredentials: the client verifies the server against the CA,
// speaks HTTP/2, and presents each kind of credential.
func TestTLSAndCredentials(t *testing.T) {
	p := newTestPKI(t)
	srv := newTLSServer(t, p)
	tests := []struct {
		name string
		cfg  Config
		want seenRequest
	}{
		{"client certificate", Config{CertData: p.alice.CertPEM, KeyData: p.alice.KeyPEM}, seenRequest{cn: "alice"}},
		{"bearer token", Config{BearerToken: "tok"}, seenRequest{auth: "Bearer tok"}},
		{"basic", Config{Username: "bob", Password: "pw"}, seenRequest{auth: "Basic " + b64([]byte("bob:pw"))}},
		{"user agent", Config{UserAgent: "kubelet/v1"}, seenRequest{userAgent: "kubelet/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Host, cfg.CAData = srv.URL, p.ca.CertPEM
			c, err := New(&cfg, WithRetry(0, 0, 0))
			require.NoError(t, err)
			require.NoError(t, getA(t, c))
			got := srv.last()
			assert.Equal(t, "HTTP/2.0", got.proto)
			assert.Equal(t, tt.want.cn, got.cn)
			assert.Equal(t, tt.want.auth, got.auth)
			if tt.want.userAgent != "" {
				assert.Equal(t, tt.want.userAgent, got.userAgent)
			} else {
				assert.Equal(t, DefaultUserAgent, got.userAgent)
			}
		})
	}
	t.Run("unknown CA is refused", func(t *testing.T) {
		other := newTestPKI(t)
		c, err := New(&Config{Host: srv.URL, CAData: other.ca.CertPEM}, WithRetry(0, 0, 0))
		require.NoError(t, err)
		err = getA(t, c)
		var uerr x509.UnknownAuthorityError
		assert.True(t, errors.As(err, &uerr), "%v", err)
	})
	t.Run("insecure skips verification", func(t *testing.T) {
		c, err := New(&Config{Host: srv.URL, Insecure: true}, WithRetry(0, 0, 0))
		require.NoError(t, err)
		require.NoError(t, getA(t, c))
	})
}

// TestTokenFileReread: a changed token file is picked up by the next
// request; a token file that disappears keeps the last good token.
func TestTokenFileReread(t *testing.T) {
	p := newTestPKI(t)
	srv := newTLSServer(t, p)
	tokenPath := writeFile(t, filepath.Join(t.TempDir(), "token"), "first\n")
	c, err := New(&Config{Host: srv.URL, CAData: p.ca.CertPEM, BearerTokenFile: tokenPath, BearerToken: "static"})
	require.NoError(t, err)
	require.NoError(t, getA(t, c))
	assert.Equal(t, "Bearer first", srv.last().auth)

	require.NoError(t, os.WriteFile(tokenPath, []byte("second"), 0o600))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(tokenPath, later, later))
	require.NoError(t, getA(t, c))
	assert.Equal(t, "Bearer second", srv.last().auth)

	require.NoError(t, os.Remove(tokenPath))
	require.NoError(t, getA(t, c))
	assert.Equal(t, "Bearer second", srv.last().auth, "last good token survives a missing file")
}

func TestTokenFileFallbacks(t *testing.T) {
	dir := t.TempDir()
	t.Run("static when the file never read", func(t *testing.T) {
		s := &tokenSource{static: "static", path: filepath.Join(dir, "none"), now: time.Now}
		tok, err := s.token()
		require.NoError(t, err)
		assert.Equal(t, "static", tok)
	})
	t.Run("error when nothing to fall back on", func(t *testing.T) {
		s := &tokenSource{path: filepath.Join(dir, "none"), now: time.Now}
		_, err := s.token()
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("empty file", func(t *testing.T) {
		s := &tokenSource{path: writeFile(t, filepath.Join(dir, "empty"), " \n"), now: time.Now}
		_, err := s.token()
		assert.ErrorIs(t, err, ErrInvalidConfig)
	})
	t.Run("same size and mtime re-read after the interval", func(t *testing.T) {
		path := writeFile(t, filepath.Join(dir, "tok"), "aaaa")
		fc := newFakeClock()
		s := &tokenSource{path: path, now: fc.Now}
		tok, _ := s.token()
		assert.Equal(t, "aaaa", tok)
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte("bbbb"), 0o600))
		require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
		tok, _ = s.token()
		assert.Equal(t, "aaaa", tok, "unchanged stat: cached")
		fc.Advance(tokenRereadInterval)
		tok, _ = s.token()
		assert.Equal(t, "bbbb", tok)
	})
}

// TestKubeconfigRoundTrip: a kubeconfig written by Write resolves to the
// credentials it was made with.
func TestKubeconfigRoundTrip(t *testing.T) {
	p := newTestPKI(t)
	path := filepath.Join(t.TempDir(), "kc")
	require.NoError(t, NewKubeconfig("https://127.0.0.1:1", p.ca.CertPEM, "alice",
		AuthInfo{ClientCertificateData: p.alice.CertPEM, ClientKeyData: p.alice.KeyPEM}).Write(path))
	c, err := ConfigFromKubeconfig(path, "")
	require.NoError(t, err)
	assert.Equal(t, p.ca.CertPEM, c.CAData)
	assert.Equal(t, p.alice.KeyPEM, c.KeyData)
}

// FuzzKubeconfig: any kubeconfig text either resolves into a Config that
// New accepts or rejects, or fails with a typed error; nothing panics.
func FuzzKubeconfig(f *testing.F) {
	p := newTestPKI(f)
	f.Add([]byte(kubeconfigYAML(p)), "data")
	f.Add([]byte("apiVersion: v1\nclusters: []\n"), "")
	f.Add([]byte("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {server: 'https://h'}\n"), "")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, context string) {
		path := filepath.Join(dir, "config")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := ConfigFromKubeconfig(path, context)
		if err != nil {
			if !errors.Is(err, ErrInvalidKubeconfig) && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
				var pe *os.PathError
				if !errors.As(err, &pe) {
					t.Fatalf("untyped error: %v", err)
				}
			}
			return
		}
		if cfg.Host == "" {
			t.Fatalf("resolved without a host")
		}
		if _, err := New(cfg); err != nil && !errors.Is(err, ErrInvalidConfig) {
			t.Fatalf("New: untyped error: %v", err)
		}
	})
}
