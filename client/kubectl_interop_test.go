package client_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/client"
)

// TestKubectlSharesDiscoveryCache: the discovery cache directory is laid
// out as kubectl's --cache-dir, so kubectl and the client can share it:
// the client reads what kubectl wrote without asking the server again,
// and kubectl works from what the client wrote.
func TestKubectlSharesDiscoveryCache(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	tc := startCluster(t)
	ctx := context.Background()
	kubectl := func(cacheDir string, args ...string) string {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, "kubectl", append([]string{"--kubeconfig", tc.cp.AdminKubeconfig, "--cache-dir", cacheDir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), "kubectl %v: %s", args, errb.String())
		return out.String()
	}
	cfg, err := client.ConfigFromKubeconfig(tc.cp.AdminKubeconfig, "")
	require.NoError(t, err)

	t.Run("client reads kubectl's cache", func(t *testing.T) {
		dir := t.TempDir()
		kubectl(dir, "get", "deployments", "-A")
		kubectl(dir, "api-resources")
		host := client.HostDir(strings.TrimPrefix(tc.cp.URL, "https://"))
		disc := filepath.Join(dir, "discovery")
		require.FileExists(t, filepath.Join(disc, host, "servergroups.json"), "kubectl's layout")
		n := &countingTransport{}
		c, err := client.New(cfg, client.WithDiscoveryCache(disc, time.Hour), client.WithTransport(n.wrap(t, cfg)))
		require.NoError(t, err)
		m, err := c.RESTMapper().ForResource(ctx, "deploy")
		require.NoError(t, err)
		assert.Equal(t, "apps", m.Resource.Group)
		t.Logf("requests after reading kubectl's cache: %d", n.count())
		assert.Zero(t, n.count(), "everything came from kubectl's cache")
	})
	t.Run("kubectl reads the client's cache", func(t *testing.T) {
		dir := t.TempDir()
		c, err := client.New(cfg, client.WithDiscoveryCache(filepath.Join(dir, "discovery"), time.Hour))
		require.NoError(t, err)
		_, err = c.RESTMapper().ForResource(ctx, "deploy")
		require.NoError(t, err)
		out := kubectl(dir, "get", "deploy,po,ns", "-A", "-o", "name")
		assert.Contains(t, out, "namespace/default")
	})
}

// countingTransport counts the requests sent through an HTTPS transport
// built from a Config's CA and client certificate.
type countingTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	n    int
}

func (c *countingTransport) wrap(t *testing.T, cfg *client.Config) http.RoundTripper {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(cfg.CAData))
	cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
	require.NoError(t, err)
	c.base = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
	return c
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.base.RoundTrip(r)
}

func (c *countingTransport) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
