package clientcert_test

import (
	"context"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	certs "github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/authn/bootstraptoken"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates/approver"
	"github.com/orkit/orkit/controller/certificates/signer"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/kubelet/clientcert"
)

// cluster starts a control plane with bootstrap tokens, the approver and
// the signer, and returns it with a valid bootstrap token.
func cluster(t *testing.T) (*controlplane.ControlPlane, string) {
	t.Helper()
	cp, token, _ := clusterWith(t, approver.Config{})
	return cp, token
}

// clusterWith is cluster with the approver's config; it returns an
// admin client too.
func clusterWith(t *testing.T, acfg approver.Config) (*controlplane.ControlPlane, string, *client.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: addr,
		Auth: controlplane.AuthConfig{BootstrapTokenAuth: true}})
	require.NoError(t, err)
	cfg, err := cp.ClientConfig("system:kube-controller-manager")
	require.NoError(t, err)
	cmc, err := client.New(cfg)
	require.NoError(t, err)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cmc})
	require.NoError(t, err)
	a, err := approver.New(m, acfg)
	require.NoError(t, err)
	s, err := signer.New(m, signer.Config{CA: cp.CA})
	require.NoError(t, err)
	require.NoError(t, m.Add(a))
	require.NoError(t, m.Add(s))
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	admcfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	admin, err := client.New(admcfg)
	require.NoError(t, err)
	tok, err := bootstraptoken.Generate()
	require.NoError(t, err)
	_, err = client.For[core.Secret](admin, bootstraptoken.Namespace).Create(ctx, bootstraptoken.NewSecret(tok, time.Hour, "test"))
	require.NoError(t, err)
	return cp, tok.String(), admin
}

// TestBootstrapAndRenew: a node with a bootstrap token gets its own
// certificate and talks as system:node:<name>; started again it reuses
// the certificate in its directory without the token; Renew replaces it
// with a new one (asked with the current certificate) that clients made
// earlier pick up at their next connection.
func TestBootstrapAndRenew(t *testing.T) {
	cp, token := cluster(t)
	ctx := context.Background()
	dir := t.TempDir()
	m, err := clientcert.New(clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, BootstrapToken: token, NodeName: "n1", Dir: dir, ExpirationSeconds: 3600})
	require.NoError(t, err)
	require.NoError(t, m.Bootstrap(ctx))
	first := m.Current()
	assert.Equal(t, "system:node:n1", first.Subject.CommonName)
	assert.InDelta(t, float64(time.Hour+5*time.Minute), float64(first.NotAfter.Sub(first.NotBefore)), float64(time.Minute))

	node, err := client.New(m.ClientConfig())
	require.NoError(t, err)
	_, err = client.For[core.Node](node, "").Get(ctx, "n1")
	assert.True(t, apierrors.IsNotFound(err), "authorized as node n1 (its Node does not exist yet): %v", err)

	// Started again: the certificate on disk, no token needed.
	again, err := clientcert.New(clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, NodeName: "n1", Dir: dir})
	require.NoError(t, err)
	require.NoError(t, again.Bootstrap(ctx))
	assert.Equal(t, first.SerialNumber, again.Current().SerialNumber)

	require.NoError(t, m.Renew(ctx))
	second := m.Current()
	assert.NotEqual(t, first.SerialNumber, second.SerialNumber)
	node.CloseIdleConnections()
	_, err = client.For[core.Node](node, "").Get(ctx, "n1")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)

	csrs, err := client.For[certs.CertificateSigningRequest](node, "").List(ctx, client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, csrs.Items, 2, "one request to join, one to renew")
}

func TestBootstrapRefused(t *testing.T) {
	cp, _ := cluster(t)
	m, err := clientcert.New(clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, BootstrapToken: "abcdef.0123456789abcdef", NodeName: "n1", Dir: t.TempDir()})
	require.NoError(t, err)
	err = m.Bootstrap(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Unauthorized")
	assert.Nil(t, m.Current())
	_, err = clientcert.New(clientcert.Config{Server: cp.URL})
	assert.ErrorIs(t, err, clientcert.ErrInvalidConfig)
	none, err := clientcert.New(clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, NodeName: "n1", Dir: t.TempDir()})
	require.NoError(t, err)
	assert.ErrorIs(t, none.Bootstrap(context.Background()), clientcert.ErrInvalidConfig, "no certificate and no token")
	assert.ErrorIs(t, none.Renew(context.Background()), clientcert.ErrNoCertificate)
}

func TestRenewAt(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &x509.Certificate{NotBefore: start, NotAfter: start.Add(10 * time.Hour)}
	assert.Equal(t, start.Add(8*time.Hour), clientcert.RenewAt(c, 0.8))
}
