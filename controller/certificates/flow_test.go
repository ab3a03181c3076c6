package certificates_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/authentication"
	certs "github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn/bootstraptoken"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates/approver"
	"github.com/orkit/orkit/controller/certificates/signer"
	"github.com/orkit/orkit/controlplane"
)

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// keyAndRequest makes a key and a PEM request for cn in orgs; the key is
// returned PEM-encoded.
func keyAndRequest(t *testing.T, cn string, orgs ...string) (keyPEM, reqPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	require.NoError(t, err)
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

type env struct {
	cp    *controlplane.ControlPlane
	admin *client.Client
}

// start runs a control plane with bootstrap token authentication and a
// controller manager running the approver and the signer.
func start(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: freeAddr(t),
		Auth: controlplane.AuthConfig{BootstrapTokenAuth: true}})
	require.NoError(t, err)
	cfg, err := cp.ClientConfig("system:kube-controller-manager")
	require.NoError(t, err)
	cmc, err := client.New(cfg)
	require.NoError(t, err)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cmc})
	require.NoError(t, err)
	a, err := approver.New(m, approver.Config{})
	require.NoError(t, err)
	require.NoError(t, m.Add(a))
	s, err := signer.New(m, signer.Config{CA: cp.CA})
	require.NoError(t, err)
	require.NoError(t, m.Add(s))
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	acfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	admin, err := client.New(acfg)
	require.NoError(t, err)
	return &env{cp: cp, admin: admin}
}

func (e *env) createCSR(t *testing.T, c *client.Client, name, signerName string, req []byte, usages ...certs.KeyUsage) {
	t.Helper()
	_, err := client.For[certs.CertificateSigningRequest](c, "").Create(context.Background(), &certs.CertificateSigningRequest{
		ObjectMeta: meta.ObjectMeta{Name: name},
		Spec:       certs.CertificateSigningRequestSpec{Request: req, SignerName: signerName, Usages: usages},
	})
	require.NoError(t, err)
}

// wait polls csr name until done says it is finished.
func (e *env) wait(t *testing.T, name string, done func(*certs.CertificateSigningRequest) bool) *certs.CertificateSigningRequest {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		csr, err := client.For[certs.CertificateSigningRequest](e.admin, "").Get(context.Background(), name)
		require.NoError(t, err)
		if done(csr) {
			return csr
		}
		require.True(t, time.Now().Before(deadline), "csr %s did not finish: %+v", name, csr.Status)
		time.Sleep(50 * time.Millisecond)
	}
}

func issued(csr *certs.CertificateSigningRequest) bool { return len(csr.Status.Certificate) > 0 }

// TestNodeJoinsWithBootstrapToken is the kubeadm/k3s join: a bootstrap
// token authenticates as system:bootstrap:<id>, creates a kubelet client
// request, the approver approves it (nodeclient), the signer issues it,
// and the node then talks as system:node:<name> with its own
// certificate, renews it (selfnodeclient), and a request the rules do
// not allow stays pending or fails.
func TestNodeJoinsWithBootstrapToken(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	tok, err := bootstraptoken.Generate()
	require.NoError(t, err)
	_, err = client.For[core.Secret](e.admin, bootstraptoken.Namespace).Create(ctx, bootstraptoken.NewSecret(tok, time.Hour, "join"))
	require.NoError(t, err)

	boot, err := client.New(&client.Config{Host: e.cp.URL, CAData: e.cp.CA.CertPEM, BearerToken: tok.String()})
	require.NoError(t, err)
	assert.Equal(t, "system:bootstrap:"+tok.ID, whoAmI(t, boot))

	// A bootstrapper's request for a non-node name is left for a person.
	_, badReq := keyAndRequest(t, "admin", "system:masters")
	e.createCSR(t, boot, "bad", certs.KubeAPIServerClientKubeletSignerName, badReq, certs.UsageDigitalSignature, certs.UsageClientAuth)

	keyPEM, req := keyAndRequest(t, "system:node:n1", "system:nodes")
	e.createCSR(t, boot, "node-csr-n1", certs.KubeAPIServerClientKubeletSignerName, req,
		certs.UsageDigitalSignature, certs.UsageKeyEncipherment, certs.UsageClientAuth)
	csr := e.wait(t, "node-csr-n1", issued)
	assert.True(t, csr.IsApproved())
	assert.Equal(t, "system:bootstrap:"+tok.ID, csr.Spec.Username)
	assert.Equal(t, "AutoApproved", csr.Status.Conditions[0].Reason)

	node, err := client.New(&client.Config{Host: e.cp.URL, CAData: e.cp.CA.CertPEM, CertData: csr.Status.Certificate, KeyData: keyPEM})
	require.NoError(t, err)
	// It is system:node:n1: the Node authorizer lets it read Nodes (its
	// own is not there yet) and names it when refusing a write to another's.
	_, err = client.For[core.Node](node, "").Get(ctx, "n1")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	err = client.For[core.Node](node, "").Delete(ctx, "n2", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `User "system:node:n1" cannot delete resource "nodes"`)

	// Renewal: the node asks for its own name with its certificate.
	_, req2 := keyAndRequest(t, "system:node:n1", "system:nodes")
	e.createCSR(t, node, "node-csr-n1-renew", certs.KubeAPIServerClientKubeletSignerName, req2, certs.UsageDigitalSignature, certs.UsageClientAuth)
	renewed := e.wait(t, "node-csr-n1-renew", issued)
	assert.Contains(t, renewed.Status.Conditions[0].Message, "self kubelet client")

	bad, err := client.For[certs.CertificateSigningRequest](e.admin, "").Get(ctx, "bad")
	require.NoError(t, err)
	assert.Empty(t, bad.Status.Conditions, "a request for another subject is not auto-approved")

	// A wrong token secret is refused.
	wrong, err := client.New(&client.Config{Host: e.cp.URL, CAData: e.cp.CA.CertPEM, BearerToken: tok.ID + ".0000000000000000"})
	require.NoError(t, err)
	_, err = client.For[authentication.SelfSubjectReview](wrong, "").Create(ctx, &authentication.SelfSubjectReview{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Unauthorized")
}

// TestSignerRefusesServerUsage: an approved kube-apiserver-client request
// asking for server auth is marked Failed, never signed; one asking for
// client auth is signed with the request's subject and expiration.
func TestSignerRules(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	_, req := keyAndRequest(t, "alice", "devs")
	e.createCSR(t, e.admin, "server", certs.KubeAPIServerClientSignerName, req, certs.UsageDigitalSignature, certs.UsageServerAuth)
	exp := int32(3600)
	_, err := client.For[certs.CertificateSigningRequest](e.admin, "").Create(ctx, &certs.CertificateSigningRequest{
		ObjectMeta: meta.ObjectMeta{Name: "alice"},
		Spec: certs.CertificateSigningRequestSpec{Request: req, SignerName: certs.KubeAPIServerClientSignerName, ExpirationSeconds: &exp,
			Usages: []certs.KeyUsage{certs.UsageDigitalSignature, certs.UsageClientAuth}},
	})
	require.NoError(t, err)
	for _, name := range []string{"server", "alice"} {
		csr, err := client.For[certs.CertificateSigningRequest](e.admin, "").Get(ctx, name)
		require.NoError(t, err)
		csr.Status.Conditions = append(csr.Status.Conditions, certs.CertificateSigningRequestCondition{Type: certs.CertificateApproved, Status: meta.ConditionTrue, Reason: "Test"})
		_, err = client.For[certs.CertificateSigningRequest](e.admin, "").UpdateSubresource(ctx, csr, "approval")
		require.NoError(t, err)
	}
	failed := e.wait(t, "server", func(c *certs.CertificateSigningRequest) bool { return c.HasCondition(certs.CertificateFailed) })
	assert.Empty(t, failed.Status.Certificate)
	alice := e.wait(t, "alice", issued)
	b, _ := pem.Decode(alice.Status.Certificate)
	cert, err := x509.ParseCertificate(b.Bytes)
	require.NoError(t, err)
	assert.Equal(t, "alice", cert.Subject.CommonName)
	assert.Equal(t, []string{"devs"}, cert.Subject.Organization)
	assert.InDelta(t, float64(time.Hour+5*time.Minute), float64(cert.NotAfter.Sub(cert.NotBefore)), float64(time.Minute))
	_, err = cert.Verify(x509.VerifyOptions{Roots: e.cp.CA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err)
}

func whoAmI(t *testing.T, c *client.Client) string {
	t.Helper()
	r, err := client.For[authentication.SelfSubjectReview](c, "").Create(context.Background(), &authentication.SelfSubjectReview{})
	require.NoError(t, err)
	return r.Status.UserInfo.Username
}
