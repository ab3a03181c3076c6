package apiserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
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
	var body io.Reader
	if method != "GET" {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequest(method, c.cp.URL+path, body)
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

// TestKubectlFieldSelectorsAndListSemantics checks field selector labels
// per kind (400 for one the kind does not support, on lists and watches
// alike), ListOptions validation (422, kube's wording), and that a
// resourceVersion ahead of the server is waited for, then answered with
// 504 "Too large resource version".
func TestKubectlFieldSelectorsAndListSemantics(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, "", "get", "pods", "--field-selector", "spec.bogus=x")
	require.Error(t, err)
	assert.Contains(t, errOut, "field label not supported: spec.bogus")
	_, errOut, err = kubectl(t, c.admin, "", "get", "configmaps", "-A", "--field-selector", "data.x=1")
	require.Error(t, err)
	assert.Contains(t, errOut, `"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`)
	_, errOut, err = kubectl(t, c.admin, "", "get", "nodes", "--field-selector", "metadata.namespace=x")
	require.Error(t, err, "nodes have their own field labels, without metadata.namespace")
	assert.Contains(t, errOut, "field label not supported: metadata.namespace")

	for _, args := range [][]string{
		{"get", "pods", "-A", "--field-selector", "spec.nodeName=n1,status.phase=Running,spec.hostNetwork=false,status.podIPs=10.0.0.1"},
		{"get", "nodes", "--field-selector", "spec.unschedulable=false,metadata.name=n1"},
		{"get", "clusterroles", "--field-selector", "metadata.namespace="},
		{"get", "secrets", "-A", "--field-selector", "type=Opaque"},
		{"get", "events", "-A", "--field-selector", "involvedObject.apiVersion=v1,source=kubelet,reportingComponent=x,involvedObject.fieldPath=y,involvedObject.resourceVersion=1"},
		{"get", "jobs", "-A", "--field-selector", "status.successful=1"},
	} {
		mustKubectl(t, c.admin, "", args...)
	}
	mustKubectl(t, c.admin, "", "create", "service", "clusterip", "web", "--tcp=80:8080")
	out := mustKubectl(t, c.admin, "", "get", "svc", "--field-selector", "spec.type=ClusterIP,metadata.name=web", "-o", "name")
	assert.Equal(t, "service/web\n", out)

	for _, tc := range []struct {
		path, message string
		code          int
	}{
		{"/api/v1/pods?watch=1&fieldSelector=spec.bogus%3Dx", "field label not supported: spec.bogus", 400},
		{"/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=data.x%3D1", `"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`, 400},
		{"/api/v1/configmaps?resourceVersionMatch=Exact", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`, 422},
		{"/api/v1/configmaps?resourceVersionMatch=NotOlderThan", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`, 422},
		{"/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=0", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`, 422},
		{"/api/v1/configmaps?resourceVersionMatch=Newest&resourceVersion=1", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""`, 422},
		{"/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=1&continue=abc", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`, 422},
		{"/api/v1/configmaps?resourceVersion=abc", `invalid resourceVersion "abc"`, 400},
	} {
		code, st := rawStatus(t, c, "GET", tc.path)
		assert.Equal(t, tc.code, code, tc.path)
		assert.Equal(t, tc.message, st.Message, tc.path)
	}

	// A resourceVersion ahead of the server: answered once the server
	// reaches it (a write lands while the list waits) ...
	cur := currentRV(t, c)
	type result struct {
		code int
		list meta.List[json.RawMessage]
	}
	done := make(chan result, 1)
	hc := adminHTTP(t, c.cp)
	go func() {
		code, b := rawGet(hc, c, fmt.Sprintf("/api/v1/namespaces/default/configmaps?resourceVersion=%d&resourceVersionMatch=NotOlderThan", cur+1))
		var r result
		r.code = code
		_ = json.Unmarshal(b, &r.list)
		done <- r
	}()
	mustKubectl(t, c.admin, "", "create", "configmap", "landed", "--from-literal=a=b")
	r := <-done
	require.Equal(t, http.StatusOK, r.code)
	var names []string
	for _, it := range r.list.Items {
		var o struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		}
		require.NoError(t, json.Unmarshal(it, &o))
		names = append(names, o.Metadata.Name)
	}
	assert.Contains(t, names, "landed", "the list waited for the write")
	// ... and with 504 "Too large resource version" when it does not.
	for _, match := range []string{"NotOlderThan", "Exact", ""} {
		cur = currentRV(t, c)
		code, st := rawStatus(t, c, "GET", fmt.Sprintf("/api/v1/configmaps?resourceVersion=%d&resourceVersionMatch=%s", cur+1000, match))
		assert.Equal(t, http.StatusGatewayTimeout, code, match)
		assert.Regexp(t, fmt.Sprintf(`^Timeout: Too large resource version: %d, current: \d+$`, cur+1000), st.Message, match)
		require.NotNil(t, st.Details, match)
		assert.Equal(t, int32(1), st.Details.RetryAfterSeconds, match)
		require.Len(t, st.Details.Causes, 1, match)
		assert.Equal(t, "ResourceVersionTooLarge", st.Details.Causes[0].Type, match)
	}
}

// currentRV returns the resourceVersion of a consistent list.
func currentRV(t *testing.T, c *cluster) int64 {
	t.Helper()
	code, b := rawGet(adminHTTP(t, c.cp), c, "/api/v1/namespaces/default/configmaps")
	require.Equal(t, http.StatusOK, code, string(b))
	var l meta.List[json.RawMessage]
	require.NoError(t, json.Unmarshal(b, &l))
	rv, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	require.NoError(t, err)
	return rv
}

// rawGet sends a GET with hc and returns the code and body; safe to call
// from a goroutine the test waits for.
func rawGet(hc *http.Client, c *cluster, path string) (int, []byte) {
	resp, err := hc.Get(c.cp.URL + path)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const deploymentWithUnknownFields = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  foo: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: hello
        image: orkit.local/hello:v1
        foo: 2
`

// TestKubectlFieldValidation checks fieldValidation as kube-apiserver
// does it: Warn (the API's default, kubectl --validate=warn) drops
// unknown fields with a Warning header each, Strict (kubectl's default)
// rejects unknown and duplicate fields with kube's wording, Ignore drops
// them silently; field names are case-sensitive.
func TestKubectlFieldValidation(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, fmt.Sprintf(deploymentWithUnknownFields, "warned"), "apply", "--validate=warn", "-f", "-")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, `Warning: unknown field "spec.foo"`)
	assert.Contains(t, errOut, `Warning: unknown field "spec.template.spec.containers[0].foo"`)

	_, errOut, err = kubectl(t, c.admin, fmt.Sprintf(deploymentWithUnknownFields, "strict"), "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].foo"`)

	_, errOut, err = kubectl(t, c.admin, fmt.Sprintf(deploymentWithUnknownFields, "ignored"), "create", "--validate=false", "-f", "-")
	require.NoError(t, err, errOut)
	assert.NotContains(t, errOut, "Warning")

	// kubectl patch sends no fieldValidation: the server's default, Warn.
	_, errOut, err = kubectl(t, c.admin, "", "patch", "deployment", "warned", "-p", `{"spec":{"bar":1}}`)
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, `Warning: unknown field "spec.bar"`)

	// Bodies sent as they are: duplicates, case, the default directive.
	dir := t.TempDir()
	body := func(name, s string) string {
		p := dir + "/" + name + ".json"
		require.NoError(t, os.WriteFile(p, []byte(s), 0o600))
		return p
	}
	const cmPath = "/api/v1/namespaces/default/configmaps"
	_, errOut, err = kubectl(t, c.admin, "", "create", "--raw", cmPath+"?fieldValidation=Strict", "-f",
		body("dup", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d2"},"x":1,"data":{"a":"1","a":"2"}}`))
	require.Error(t, err)
	assert.Contains(t, errOut, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "x", duplicate field "data.a"`)

	_, errOut, err = kubectl(t, c.admin, "", "create", "--raw", cmPath, "-f",
		body("default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"def","name":"def"},"Data":{"a":"1"},"x":{"y":1}}`))
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, `Warning: duplicate field "metadata.name"`)
	assert.Contains(t, errOut, `Warning: unknown field "Data"`)
	assert.Contains(t, errOut, `Warning: unknown field "x"`)
	out := mustKubectl(t, c.admin, "", "get", "cm", "def", "-o", "jsonpath={.data}")
	assert.Empty(t, out, `"Data" is not "data": field names are case-sensitive`)

	_, errOut, err = kubectl(t, c.admin, "", "create", "--raw", cmPath+"?fieldValidation=bogus", "-f",
		body("bogus", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`))
	require.Error(t, err)
	assert.Contains(t, errOut, `The CreateOptions "" is invalid: fieldValidation: Unsupported value: "bogus": supported values: "", "Ignore", "Strict", "Warn"`)
}

// TestKubectlHealthVerbose reads the health endpoints as an operator
// does, through kubectl.
func TestKubectlHealthVerbose(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, "", "get", "--raw", "/readyz?verbose")
	assert.Equal(t, "[+]ping ok\n[+]log ok\n[+]store ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n", out)
	out = mustKubectl(t, c.admin, "", "get", "--raw", "/livez?verbose")
	assert.Equal(t, "[+]ping ok\n[+]log ok\n[+]store ok\nlivez check passed\n", out)
	out = mustKubectl(t, c.admin, "", "get", "--raw", "/readyz/informer-sync")
	assert.Equal(t, "ok", out)
	out = mustKubectl(t, c.admin, "", "version", "-o", "json")
	var v struct {
		ServerVersion map[string]string `json:"serverVersion"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, "v1.32.0-orkit", v.ServerVersion["gitVersion"])
	assert.NotEmpty(t, v.ServerVersion["buildDate"])
	assert.Contains(t, v.ServerVersion, "gitTreeState")
}
