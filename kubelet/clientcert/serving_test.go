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
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller/certificates/approver"
	"github.com/orkit/orkit/kubelet/clientcert"
)

// TestServingCertificate: a node asks, as itself, for a kubelet serving
// certificate for its name and address; the approver (with
// ApproveKubeletServing) approves it and the signer issues a server auth
// certificate with those names, which a restart reuses. A request naming
// an address that is not the node's stays pending.
func TestServingCertificate(t *testing.T) {
	cp, token, admin := clusterWith(t, approver.Config{ApproveKubeletServing: true})
	ctx := context.Background()
	cm, err := clientcert.New(clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, BootstrapToken: token, NodeName: "n1", Dir: t.TempDir()})
	require.NoError(t, err)
	require.NoError(t, cm.Bootstrap(ctx))
	node, err := client.New(cm.ClientConfig())
	require.NoError(t, err)
	n, err := client.For[core.Node](node, "").Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "n1"}})
	require.NoError(t, err)
	n.Status.Addresses = []core.NodeAddress{{Type: core.NodeInternalIP, Address: "127.0.0.1"}, {Type: core.NodeHostName, Address: "n1"}}
	_, err = client.For[core.Node](node, "").UpdateStatus(ctx, n)
	require.NoError(t, err)

	dir := t.TempDir()
	cfg := clientcert.Config{Server: cp.URL, CAData: cp.CA.CertPEM, NodeName: "n1", Dir: dir, Client: node,
		SignerName: certs.KubeletServingSignerName, DNSNames: []string{"n1"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	sm, err := clientcert.New(cfg)
	require.NoError(t, err)
	_, err = sm.ServingCertificate(nil)
	assert.ErrorIs(t, err, clientcert.ErrNoCertificate)
	require.NoError(t, sm.Bootstrap(ctx))
	c := sm.Current()
	assert.Equal(t, "system:node:n1", c.Subject.CommonName)
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, c.ExtKeyUsage)
	assert.Equal(t, []string{"n1"}, c.DNSNames)
	require.Len(t, c.IPAddresses, 1)
	_, err = c.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: cp.CA.Pool()})
	require.NoError(t, err)
	got, err := sm.ServingCertificate(nil)
	require.NoError(t, err)
	assert.Equal(t, c, got.Leaf)

	again, err := clientcert.New(cfg)
	require.NoError(t, err)
	require.NoError(t, again.Bootstrap(ctx))
	assert.Equal(t, c.SerialNumber, again.Current().SerialNumber, "reused from %s", clientcert.ServingFileName)

	cfg.IPAddresses, cfg.Dir = []net.IP{net.ParseIP("10.9.9.9")}, t.TempDir()
	foreign, err := clientcert.New(cfg)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	assert.ErrorIs(t, foreign.Bootstrap(short), context.DeadlineExceeded, "not the node's address: left for a person")
	csrs, err := client.For[certs.CertificateSigningRequest](admin, "").List(ctx, client.ListOptions{})
	require.NoError(t, err)
	pending := 0
	for _, r := range csrs.Items {
		if !r.HasCondition(certs.CertificateApproved) {
			pending++
		}
	}
	assert.Equal(t, 1, pending)
}

// TestServingConfigErrors: a serving manager needs names and a client; a
// client manager takes no names; unknown signers are refused.
func TestServingConfigErrors(t *testing.T) {
	base := clientcert.Config{Server: "https://127.0.0.1:1", CAData: []byte("x"), NodeName: "n1", Dir: t.TempDir()}
	for name, mod := range map[string]func(*clientcert.Config){
		"serving without names":  func(c *clientcert.Config) { c.SignerName = certs.KubeletServingSignerName; c.Client = &client.Client{} },
		"serving without client": func(c *clientcert.Config) { c.SignerName = certs.KubeletServingSignerName; c.DNSNames = []string{"n1"} },
		"client with names":      func(c *clientcert.Config) { c.DNSNames = []string{"n1"} },
		"unknown signer":         func(c *clientcert.Config) { c.SignerName = "example.com/x" },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base
			mod(&cfg)
			_, err := clientcert.New(cfg)
			assert.ErrorIs(t, err, clientcert.ErrInvalidConfig)
		})
	}
}
