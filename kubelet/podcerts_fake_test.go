package kubelet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// testCA is a self-signed CA for the tests' signer.
type testCA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	pem  string
}

func newTestCA(t *testing.T, cn string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour), KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{key: key, cert: cert, pem: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// sign issues r for an hour through the status subresource, as a
// signer does.
func (ca *testCA) sign(t *testing.T, c *client.Client, r *certificates.PodCertificateRequest) {
	t.Helper()
	req, err := x509.ParseCertificateRequest(r.Spec.StubPKCS10Request)
	require.NoError(t, err)
	nb := time.Now().Add(-time.Minute).Truncate(time.Second)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: r.Spec.PodName}, NotBefore: nb, NotAfter: nb.Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, req.PublicKey, ca.key)
	require.NoError(t, err)
	r.Status = certificates.PodCertificateRequestStatus{
		Conditions:       []meta.Condition{{Type: "Issued", Status: meta.ConditionTrue, Reason: "Test", LastTransitionTime: meta.Time{Time: nb}}},
		CertificateChain: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		NotBefore:        &meta.Time{Time: nb}, NotAfter: &meta.Time{Time: nb.Add(time.Hour)}, BeginRefreshAt: &meta.Time{Time: nb.Add(30 * time.Minute)},
	}
	_, err = client.For[certificates.PodCertificateRequest](c, r.Namespace).UpdateStatus(context.Background(), r)
	require.NoError(t, err)
}

// TestFakeProjectedTrustBundlesAndPodCertificates: a projected volume
// gets a named ClusterTrustBundle, the matching bundles of a signer, an
// empty optional one, and a pod certificate: the kubelet creates a
// PodCertificateRequest for the pod and writes the key and the chain the
// signer issued once it is issued; a required bundle that does not exist
// keeps the pod from starting.
func TestFakeProjectedTrustBundlesAndPodCertificates(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	tc.startFakeKubelet(t, "node-ctb", func(c *Config) { c.RootDir = root })
	ctx := context.Background()
	_, err := client.For[core.ServiceAccount](tc.admin, "default").Create(ctx, &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "default"}})
	require.NoError(t, err)
	ca1, ca2, ca3 := newTestCA(t, "one"), newTestCA(t, "two"), newTestCA(t, "three")
	bundles := client.For[certificates.ClusterTrustBundle](tc.admin, "")
	for _, b := range []certificates.ClusterTrustBundle{
		{ObjectMeta: meta.ObjectMeta{Name: "plain"}, Spec: certificates.ClusterTrustBundleSpec{TrustBundle: ca1.pem}},
		{ObjectMeta: meta.ObjectMeta{Name: "example.com:s:a", Labels: map[string]string{"live": "true"}}, Spec: certificates.ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: ca2.pem}},
		{ObjectMeta: meta.ObjectMeta{Name: "example.com:s:b", Labels: map[string]string{"live": "false"}}, Spec: certificates.ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: ca3.pem + ca2.pem}},
	} {
		_, err = bundles.Create(ctx, &b)
		require.NoError(t, err)
	}
	name, signer, yes := "plain", "example.com/s", true
	p := simplePod("certs", "node-ctb")
	p.Spec.Volumes = []core.Volume{{Name: "tls", VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
		{ClusterTrustBundle: &core.ClusterTrustBundleProjection{Name: &name, Path: "plain.pem"}},
		{ClusterTrustBundle: &core.ClusterTrustBundleProjection{SignerName: &signer, LabelSelector: &meta.LabelSelector{}, Path: "all.pem"}},
		{ClusterTrustBundle: &core.ClusterTrustBundleProjection{SignerName: &signer, Path: "none.pem", Optional: &yes}},
		{PodCertificate: &core.PodCertificateProjection{SignerName: "example.com/s", KeyType: "ECDSAP256", CredentialBundlePath: "cred.pem", CertificateChainPath: "chain.pem"}},
	}}}}}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)

	var pcr *certificates.PodCertificateRequest
	t.Cleanup(func() {
		if t.Failed() {
			l, _ := client.For[core.Event](tc.admin, "default").List(ctx, client.ListOptions{})
			for _, e := range l.Items {
				t.Logf("event %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
			}
		}
	})
	waitFor(t, 15*time.Second, "a PodCertificateRequest", func() bool {
		l, err := client.For[certificates.PodCertificateRequest](tc.admin, "default").List(ctx, client.ListOptions{})
		if err == nil && len(l.Items) == 1 {
			pcr = &l.Items[0]
		}
		return pcr != nil
	})
	assert.Equal(t, "certs", pcr.Spec.PodName)
	assert.Equal(t, string(created.UID), pcr.Spec.PodUID)
	assert.Equal(t, "node-ctb", pcr.Spec.NodeName)
	assert.Equal(t, int32(certificates.DefaultMaxExpirationSeconds), *pcr.Spec.MaxExpirationSeconds)
	assert.Equal(t, "pending", podPhaseOrPending(t, tc, "certs"), "the pod waits for its certificate")
	ca1.sign(t, tc.admin, pcr)
	waitPod(t, tc.admin, "default", "certs", 15*time.Second, "Running", running)

	dir := filepath.Join(root, "pods", string(created.UID), "volumes", pluginProjected, "tls")
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, ca1.pem, read("plain.pem"))
	all := read("all.pem")
	assert.Equal(t, 1, strings.Count(all, ca2.pem), "deduplicated")
	assert.Contains(t, all, ca3.pem)
	assert.NotContains(t, all, ca1.pem)
	assert.Empty(t, read("none.pem"), "a nil selector matches nothing")
	chain := read("chain.pem")
	assert.Equal(t, strings.TrimSpace(pcr.Status.CertificateChain), strings.TrimSpace(chain))
	cred := read("cred.pem")
	assert.True(t, strings.HasPrefix(cred, "-----BEGIN PRIVATE KEY-----"), "key first")
	assert.True(t, strings.HasSuffix(cred, chain))
	fi, err := os.Stat(filepath.Join(dir, "cred.pem"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	missing := "does-not-exist"
	q := simplePod("stuck", "node-ctb")
	q.Spec.Volumes = []core.Volume{{Name: "ctb", VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
		{ClusterTrustBundle: &core.ClusterTrustBundleProjection{Name: &missing, Path: "x.pem"}}}}}}}
	_, err = pods(tc.admin, "default").Create(ctx, q)
	require.NoError(t, err)
	waitFor(t, 15*time.Second, "a FailedMount event", func() bool {
		l, err := client.For[core.Event](tc.admin, "default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=stuck"})
		return err == nil && len(l.Items) > 0 && l.Items[0].Reason == EventFailedMount
	})
	assert.Equal(t, "pending", podPhaseOrPending(t, tc, "stuck"))

	// A denied request keeps the pod from starting, with the reason in an event.
	d := simplePod("denied", "node-ctb")
	d.Spec.Volumes = []core.Volume{{Name: "tls", VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
		{PodCertificate: &core.PodCertificateProjection{SignerName: "example.com/s", KeyType: "ED25519", KeyPath: "key.pem"}}}}}}}
	_, err = pods(tc.admin, "default").Create(ctx, d)
	require.NoError(t, err)
	var denied *certificates.PodCertificateRequest
	waitFor(t, 15*time.Second, "the denied pod's request", func() bool {
		l, err := client.For[certificates.PodCertificateRequest](tc.admin, "default").List(ctx, client.ListOptions{FieldSelector: "spec.podName=denied"})
		if err == nil && len(l.Items) == 1 {
			denied = &l.Items[0]
		}
		return denied != nil
	})
	denied.Status.Conditions = []meta.Condition{{Type: "Denied", Status: meta.ConditionTrue, Reason: "Policy", LastTransitionTime: meta.Now()}}
	_, err = client.For[certificates.PodCertificateRequest](tc.admin, "default").UpdateStatus(ctx, denied)
	require.NoError(t, err)
	waitFor(t, 15*time.Second, "a FailedMount event naming the denial", func() bool {
		l, err := client.For[core.Event](tc.admin, "default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=denied"})
		if err != nil {
			return false
		}
		for _, e := range l.Items {
			if strings.Contains(e.Message, "was denied or failed") {
				return true
			}
		}
		return false
	})
	assert.Equal(t, "pending", podPhaseOrPending(t, tc, "denied"))

	for _, n := range []string{"certs", "stuck", "denied"} { // the kubelet unmounts the volumes' tmpfs
		require.NoError(t, pods(tc.admin, "default").Delete(ctx, n, nil))
	}
	waitFor(t, 15*time.Second, "pods gone", func() bool {
		l, err := pods(tc.admin, "default").List(ctx, client.ListOptions{})
		return err == nil && len(l.Items) == 0
	})
	waitFor(t, 15*time.Second, "volumes torn down", func() bool {
		_, err := os.Stat(dir)
		return os.IsNotExist(err)
	})
}

// podPhaseOrPending is "pending" while the pod has not started.
func podPhaseOrPending(t *testing.T, tc *testCluster, name string) string {
	t.Helper()
	p, err := pods(tc.admin, "default").Get(context.Background(), name)
	require.NoError(t, err)
	if p.Status.Phase == "" || p.Status.Phase == core.PodPending {
		return "pending"
	}
	return string(p.Status.Phase)
}
