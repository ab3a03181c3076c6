package apiserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trustRBAC lets mallory write ClusterTrustBundles and
// PodCertificateRequests (and their status), without any signer
// permission.
const trustRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: pcr}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cert-writer}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [clustertrustbundles, podcertificaterequests, podcertificaterequests/status]
  verbs: [get, list, create, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: mallory-cert-writer}
subjects: [{kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: cert-writer, apiGroup: rbac.authorization.k8s.io}
`

// signerRBAC grants mallory "attest" and "sign" for every example.com signer.
const signerRBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: example-signer}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [signers]
  resourceNames: ["example.com/*"]
  verbs: [attest, sign]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: mallory-example-signer}
subjects: [{kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: example-signer, apiGroup: rbac.authorization.k8s.io}
`

func selfSignedCA(t *testing.T) (*ecdsa.PrivateKey, *x509.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return key, cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func ctbJSON(name, signer, bundle string) string {
	b, _ := json.Marshal(map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "ClusterTrustBundle",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"signerName": signer, "trustBundle": bundle}})
	return string(b)
}

// TestKubectlClusterTrustBundlesAndPodCertificateRequests: writing a
// ClusterTrustBundle for a signer needs "attest" on it (403 otherwise),
// one without a signer does not; malformed bundles and names get kube's
// 422s; kubectl lists bundles with their signer; answering a
// PodCertificateRequest through its status needs "sign" on its signer.
func TestKubectlClusterTrustBundlesAndPodCertificateRequests(t *testing.T) {
	c := startCluster(t)
	mallory := filepath.Join(c.dir, "mallory.kubeconfig")
	require.NoError(t, c.cp.WriteKubeconfig(mallory, "mallory"))
	mustKubectl(t, c.admin, trustRBAC, "apply", "-f", "-")
	caKey, caCert, caPEM := selfSignedCA(t)

	mustKubectl(t, mallory, ctbJSON("plain", "", caPEM), "create", "-f", "-")
	for _, tt := range []struct{ name, stdin, want string }{
		{"no attest", ctbJSON("example.com:s:roots", "example.com/s", caPEM),
			`clustertrustbundles.certificates.k8s.io "example.com:s:roots" is forbidden: user not permitted to attest for signerName "example.com/s"`},
		{"garbage bundle", ctbJSON("junk", "", "not pem"), `spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`},
		{"name without signer prefix", ctbJSON("roots", "example.com/s", caPEM), `must be named with prefix example.com:s:`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, mallory, tt.stdin, "create", "-f", "-")
			require.Error(t, err)
			assert.Contains(t, errOut, tt.want)
		})
	}
	mustKubectl(t, c.admin, signerRBAC, "apply", "-f", "-")
	mustKubectl(t, mallory, ctbJSON("example.com:s:roots", "example.com/s", caPEM), "create", "-f", "-")
	out := mustKubectl(t, c.admin, "", "get", "clustertrustbundles")
	assert.Regexp(t, `NAME\s+SIGNERNAME`, out)
	assert.Regexp(t, `example.com:s:roots\s+example.com/s`, out)
	assert.Regexp(t, `plain\s+<none>`, out)
	out = mustKubectl(t, c.admin, "", "get", "clustertrustbundles", "--field-selector=spec.signerName=example.com/s", "-o", "name")
	assert.Equal(t, "clustertrustbundle.certificates.k8s.io/example.com:s:roots\n", out)

	// A request, as a kubelet makes it (here by the admin), answered by
	// the signer through the status subresource.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	stub, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	require.NoError(t, err)
	pcr := func(signer string) string {
		return fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1","kind":"PodCertificateRequest","metadata":{"name":"req-%s","namespace":"pcr"},`+
			`"spec":{"signerName":%q,"podName":"web","podUID":"u1","serviceAccountName":"default","serviceAccountUID":"u2","nodeName":"n1","nodeUID":"u3",`+
			`"stubPKCS10Request":%q}}`, path.Base(signer), signer, base64.StdEncoding.EncodeToString(stub))
	}
	mustKubectl(t, c.admin, pcr("other.io/abc"), "create", "-f", "-")
	mustKubectl(t, c.admin, pcr("example.com/s"), "create", "-f", "-")
	assert.Equal(t, "86400", mustKubectl(t, c.admin, "", "-n", "pcr", "get", "podcertificaterequest", "req-abc", "-o", "jsonpath={.spec.maxExpirationSeconds}"))
	nb := time.Now().Add(-time.Minute).Truncate(time.Second)
	leaf, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), NotBefore: nb, NotAfter: nb.Add(2 * time.Hour)}, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	status := fmt.Sprintf(`{"status":{"certificateChain":%q,"notBefore":%q,"notAfter":%q,"beginRefreshAt":%q,`+
		`"conditions":[{"type":"Issued","status":"True","reason":"Test","message":"ok","lastTransitionTime":%q}]}}`,
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf}), nb.Format(time.RFC3339), nb.Add(2*time.Hour).Format(time.RFC3339),
		nb.Add(time.Hour).Format(time.RFC3339), nb.Format(time.RFC3339))
	_, errOut, err := kubectl(t, mallory, "", "-n", "pcr", "patch", "podcertificaterequest", "req-abc", "--subresource=status", "--type=merge", "-p", status)
	require.Error(t, err)
	assert.Contains(t, errOut, `spec.signerName: Forbidden: User "mallory" is not permitted to "sign" for signer "other.io/abc"`)
	mustKubectl(t, mallory, "", "-n", "pcr", "patch", "podcertificaterequest", "req-s", "--subresource=status", "--type=merge", "-p", status)
	out = mustKubectl(t, c.admin, "", "-n", "pcr", "get", "podcertificaterequests")
	assert.Regexp(t, `req-s\s+web\s+default\s+n1\s+example.com/s\s+Issued`, out)
	assert.Regexp(t, `req-abc\s+web\s+default\s+n1\s+other.io/abc\s+Pending`, out)
	// Issued is final.
	_, errOut, err = kubectl(t, mallory, "", "-n", "pcr", "patch", "podcertificaterequest", "req-s", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Denied","status":"True","reason":"Late","message":"no","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	require.Error(t, err)
	assert.Contains(t, errOut, "immutable after PodCertificateRequest is issued, denied, or failed")
}
