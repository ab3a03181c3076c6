package controller

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
)

// testCluster is a real in-process control plane for one test.
type testCluster struct {
	cp *controlplane.ControlPlane
}

func startCluster(t *testing.T) *testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: addr, Logger: quietLogger()})
	require.NoError(t, err)
	return &testCluster{cp: cp}
}

// client returns a new admin client (each manager gets its own, as
// separate processes would).
func (tc *testCluster) client(t *testing.T) *client.Client {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(tc.cp.AdminKubeconfig, "")
	require.NoError(t, err)
	c, err := client.New(cfg, client.WithLogger(quietLogger()))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// finalize clears a namespace's spec.finalizers through the finalize
// subresource (which the client does not wrap), as the namespace
// controller will; a terminating namespace is then removed.
func (tc *testCluster) finalize(t *testing.T, ns string) {
	t.Helper()
	kp, err := tc.cp.CA.IssueClient("admin", "system:masters")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tc.cp.CA.Pool(), Certificates: []tls.Certificate{cert}}}}
	defer hc.CloseIdleConnections()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q},"spec":{"finalizers":[]}}`, ns)
	req, err := http.NewRequest(http.MethodPut, tc.cp.URL+"/api/v1/namespaces/"+ns+"/finalize", bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
