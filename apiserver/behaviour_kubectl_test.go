package apiserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

const secretWithStringData = `
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: default
data:
  user: b2xk          # "old": stringData's user wins
  keep: a2VlcA==      # "keep"
stringData:
  user: admin
  pass: s3cret
`

// TestKubectlSecretStringData checks that stringData is merged into data
// (stringData winning) on create, apply and patch, and is never returned
// or stored, as Kubernetes does.
func TestKubectlSecretStringData(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, secretWithStringData, "apply", "-f", "-")
	assert.Contains(t, out, "secret/creds created")
	want := map[string]string{"user": "admin", "pass": "s3cret", "keep": "keep"}
	assertSecret := func(want map[string]string) {
		t.Helper()
		out := mustKubectl(t, c.admin, "", "get", "secret", "creds", "-o", "json")
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &s))
		assert.NotContains(t, s, "stringData", "stringData is write-only")
		data, _ := s["data"].(map[string]any)
		got := map[string]string{}
		for k, v := range data {
			b, err := base64.StdEncoding.DecodeString(v.(string))
			require.NoError(t, err)
			got[k] = string(b)
		}
		assert.Equal(t, want, got)
		kv, err := c.cp.Store.Get(context.Background(), "/registry/secrets/default/creds")
		require.NoError(t, err)
		assert.NotContains(t, string(kv.Value), `"stringData"`, "stringData is never stored")
	}
	assertSecret(want)

	// apply again with a changed stringData: an update merges it too.
	changed := secretWithStringData[:len(secretWithStringData)-len("  pass: s3cret\n")] + "  pass: changed\n"
	out = mustKubectl(t, c.admin, changed, "apply", "-f", "-")
	assert.Contains(t, out, "secret/creds configured")
	want["pass"] = "changed"
	assertSecret(want)

	mustKubectl(t, c.admin, "", "patch", "secret", "creds", "-p", `{"stringData":{"extra":"x","keep":"patched"}}`)
	want["extra"], want["keep"] = "x", "patched"
	assertSecret(want)
	mustKubectl(t, c.admin, "", "patch", "secret", "creds", "--type=json", "-p", `[{"op":"add","path":"/stringData","value":{"j":"y"}}]`)
	want["j"] = "y"
	assertSecret(want)
}

const reconcileRole = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: r2
  namespace: default
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: r2
  namespace: default
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r2}
subjects:
- {kind: User, name: dev, apiGroup: rbac.authorization.k8s.io}
`

// TestKubectlNoInternalsInErrors checks that a path no route serves
// answers as kube-apiserver's router does (404 "the server could not find
// the requested resource", 405 for a method the path does not take),
// never with a storage key, and that kubectl auth reconcile, which relies
// on that 404, works.
func TestKubectlNoInternalsInErrors(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, "", "get", "--raw", "/apis/rbac.authorization.k8s.io/v1/roles/r2")
	require.Error(t, err)
	assert.Contains(t, errOut, "Error from server (NotFound): the server could not find the requested resource")
	assert.NotContains(t, errOut, "/registry")

	out := mustKubectl(t, c.admin, reconcileRole, "auth", "reconcile", "-f", "-")
	assert.Contains(t, out, "role.rbac.authorization.k8s.io/r2 reconciled")
	assert.Contains(t, out, "rolebinding.rbac.authorization.k8s.io/r2 reconciled")
	out = mustKubectl(t, c.admin, reconcileRole, "auth", "reconcile", "-f", "-")
	assert.Contains(t, out, "role.rbac.authorization.k8s.io/r2 reconciled")
	out = mustKubectl(t, c.dev, "", "auth", "can-i", "list", "configmaps", "-n", "default")
	assert.Equal(t, "yes\n", out)

	for _, tc := range []struct {
		method, path string
		code         int
		message      string
	}{
		{"GET", "/api/v1/configmaps/x", 404, "the server could not find the requested resource"},
		{"PUT", "/api/v1/configmaps/x", 404, "the server could not find the requested resource"},
		{"PATCH", "/api/v1/configmaps/x", 404, "the server could not find the requested resource"},
		{"DELETE", "/api/v1/configmaps/x", 404, "the server could not find the requested resource"},
		{"GET", "/api/v1/pods/x/log", 404, "the server could not find the requested resource"},
		{"POST", "/api/v1/configmaps", 405, "the server does not allow this method on the requested resource"},
		{"DELETE", "/api/v1/configmaps", 405, "the server does not allow this method on the requested resource"},
		{"GET", "/api/v1/namespaces/default/nodes/n1", 404, "the server could not find the requested resource"},
		{"GET", "/api/v1/namespaces/default/nodes", 404, "the server could not find the requested resource"},
		{"GET", "/apis/nosuch.example.com/v1/things", 404, "the server could not find the requested resource"},
		{"GET", "/apis/nosuch.example.com", 404, "the server could not find the requested resource"},
		{"GET", "/api/v1/namespaces/default/configmaps/..", 404, `configmaps ".." not found`},
	} {
		code, st := rawStatus(t, c, tc.method, tc.path)
		assert.Equal(t, tc.code, code, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.message, st.Message, "%s %s", tc.method, tc.path)
	}
}

// rawStatus sends an admin request with a JSON body of {} and returns the
// code and the Status it answered.
func rawStatus(t *testing.T, c *cluster, method, path string) (int, meta.Status) {
	t.Helper()
	hc := adminHTTP(t, c.cp)
	req, err := http.NewRequest(method, c.cp.URL+path, strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if method == "PATCH" {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var st meta.Status
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st), string(b))
	assert.NotContains(t, string(b), "/registry", "%s %s", method, path)
	return resp.StatusCode, st
}
