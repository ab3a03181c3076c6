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
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// csrPEM returns a PEM certificate request for cn in orgs.
func csrPEM(t *testing.T, cn string, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func csrManifest(name string, req []byte, signer, usages string) string {
	return fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":%q},
"spec":{"request":%q,"signerName":%q,"usages":%s,"expirationSeconds":86400,"username":"forged","groups":["system:masters"]},
"status":{"conditions":[{"type":"Approved","status":"True"}]}}`, name, base64.StdEncoding.EncodeToString(req), signer, usages)
}

// TestKubectlCertificateSigningRequests drives CSRs with kubectl: create
// records the creator (not what the client claims) and drops the status;
// get csr shows Pending; certificate approve and deny go through the
// approval subresource; the approval cannot be undone or flipped, and a
// status update cannot approve.
func TestKubectlCertificateSigningRequests(t *testing.T) {
	c := startCluster(t)
	usages := `["digital signature","client auth"]`
	mustKubectl(t, c.node, csrManifest("node-csr-1", csrPEM(t, "system:node:node-1", "system:nodes"),
		"kubernetes.io/kube-apiserver-client-kubelet", usages), "create", "-f", "-")
	mustKubectl(t, c.admin, csrManifest("user-csr", csrPEM(t, "alice"), "kubernetes.io/kube-apiserver-client", usages), "create", "-f", "-")

	var got struct {
		Spec struct {
			Username string   `json:"username"`
			Groups   []string `json:"groups"`
		} `json:"spec"`
		Status struct {
			Conditions  []struct{ Type, Status, LastUpdateTime string } `json:"conditions"`
			Certificate string                                          `json:"certificate"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustKubectl(t, c.admin, "", "get", "csr", "node-csr-1", "-o", "json")), &got))
	assert.Equal(t, "system:node:node-1", got.Spec.Username, "the creator, not the claimed user")
	assert.Contains(t, got.Spec.Groups, "system:nodes")
	assert.NotContains(t, got.Spec.Groups, "system:masters")
	assert.Empty(t, got.Status.Conditions, "a create cannot approve")

	out := mustKubectl(t, c.admin, "", "get", "csr")
	assert.Regexp(t, `NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION`, out)
	assert.Regexp(t, `node-csr-1\s+\S+\s+kubernetes.io/kube-apiserver-client-kubelet\s+system:node:node-1\s+24h\s+Pending`, out)

	out = mustKubectl(t, c.admin, "", "certificate", "approve", "node-csr-1")
	assert.Contains(t, out, "certificatesigningrequest.certificates.k8s.io/node-csr-1 approved")
	mustKubectl(t, c.admin, "", "certificate", "deny", "user-csr")
	out = mustKubectl(t, c.admin, "", "get", "csr")
	assert.Regexp(t, `node-csr-1\s.*\sApproved\n`, out)
	assert.Regexp(t, `user-csr\s.*\sDenied\n`, out)
	require.NoError(t, json.Unmarshal([]byte(mustKubectl(t, c.admin, "", "get", "csr", "node-csr-1", "-o", "json")), &got))
	require.Len(t, got.Status.Conditions, 1)
	assert.NotEmpty(t, got.Status.Conditions[0].LastUpdateTime, "the server stamps the condition")

	// Denying an approved request is refused by the server (kubectl
	// refuses before sending, so send the update through --raw).
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(mustKubectl(t, c.admin, "", "get", "csr", "node-csr-1", "-o", "json")), &obj))
	st := obj["status"].(map[string]any)
	st["conditions"] = append(st["conditions"].([]any), map[string]any{"type": "Denied", "status": "True"})
	body, err := json.Marshal(obj)
	require.NoError(t, err)
	_, errOut, err := kubectl(t, c.admin, string(body), "replace", "--raw",
		"/apis/certificates.k8s.io/v1/certificatesigningrequests/node-csr-1/approval", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, "Approved and Denied conditions are mutually exclusive")

	// A status update keeps the approval conditions: it cannot approve.
	mustKubectl(t, c.admin, csrManifest("pending", csrPEM(t, "bob"), "example.com/signer", usages), "create", "-f", "-")
	_, errOut, err = kubectl(t, c.admin, "", "patch", "csr", "pending", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Approved","status":"True"}]}}`)
	require.NoError(t, err, errOut)
	assert.Regexp(t, `pending\s.*\sPending\n`, mustKubectl(t, c.admin, "", "get", "csr"))

	// A node may read requests but not approve one.
	_, errOut, err = kubectl(t, c.node, "", "certificate", "approve", "pending")
	require.Error(t, err)
	assert.Contains(t, errOut, "forbidden")
	// ... and a certificate on an unapproved request is refused.
	_, errOut, err = kubectl(t, c.admin, "", "patch", "csr", "pending", "--subresource=status", "--type=merge",
		"-p", fmt.Sprintf(`{"status":{"certificate":%q}}`, base64.StdEncoding.EncodeToString([]byte("x"))))
	require.Error(t, err)
	assert.Contains(t, errOut, "may not be set unless the request is approved")
}

// TestCertificateSigningRequestValidation: malformed requests are refused
// with the field named.
func TestCertificateSigningRequestValidation(t *testing.T) {
	c := startCluster(t)
	good := csrPEM(t, "x")
	for _, tc := range []struct{ name, manifest, want string }{
		{"not a CSR", csrManifest("a", []byte("junk"), "example.com/s", `["client auth"]`), "PEM block type must be CERTIFICATE REQUEST"},
		{"no signer", csrManifest("b", good, "", `["client auth"]`), "spec.signerName: Required value"},
		{"bad signer", csrManifest("c", good, "nosigner", `["client auth"]`), "spec.signerName: Invalid value"},
		{"no usages", csrManifest("d", good, "example.com/s", `[]`), "usages must be provided"},
		{"unknown usage", csrManifest("e", good, "example.com/s", `["flying"]`), `spec.usages[0]: Unsupported value: "flying"`},
		{"duplicate usage", csrManifest("f", good, "example.com/s", `["client auth","client auth"]`), `spec.usages[1]: Duplicate value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, tc.manifest, "create", "-f", "-")
			require.Error(t, err)
			assert.Contains(t, errOut, tc.want)
		})
	}
	_, errOut, err := kubectl(t, c.admin, "", "get", "csr", "a")
	require.Error(t, err, "nothing was stored")
	assert.Contains(t, errOut, "NotFound")
}

// TestKubectlCSRFieldSelectorSignerName: CSRs are selectable by
// spec.signerName, as in kube-apiserver, on lists (and so on watches).
func TestKubectlCSRFieldSelectorSignerName(t *testing.T) {
	c := startCluster(t)
	usages := `["digital signature","client auth"]`
	mustKubectl(t, c.admin, csrManifest("client-csr", csrPEM(t, "alice"), "kubernetes.io/kube-apiserver-client", usages), "create", "-f", "-")
	mustKubectl(t, c.admin, csrManifest("custom-csr", csrPEM(t, "bob"), "example.com/custom", usages), "create", "-f", "-")
	tests := []struct {
		selector, want string
	}{
		{"spec.signerName=kubernetes.io/kube-apiserver-client", "certificatesigningrequest.certificates.k8s.io/client-csr\n"},
		{"spec.signerName=example.com/custom", "certificatesigningrequest.certificates.k8s.io/custom-csr\n"},
		{"spec.signerName!=example.com/custom,metadata.name=client-csr", "certificatesigningrequest.certificates.k8s.io/client-csr\n"},
		{"spec.signerName=example.com/none", ""},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			out := mustKubectl(t, c.admin, "", "get", "csr", "--field-selector", tt.selector, "-o", "name")
			assert.Equal(t, tt.want, out)
		})
	}
	_, errOut, err := kubectl(t, c.admin, "", "get", "csr", "--field-selector", "spec.username=alice")
	require.Error(t, err)
	assert.Contains(t, errOut, "field label not supported: spec.username")
}
