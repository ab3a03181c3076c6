package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

const applyDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web, tier: front}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example/web:1
        ports: [{containerPort: 8080}]
        env: [{name: MODE, value: prod}, {name: DEBUG, value: "0"}]
`

// managedFieldsOf returns the managedFields of a kubectl-visible object.
func managedFieldsOf(t *testing.T, c *cluster, obj string) []meta.ManagedFieldsEntry {
	t.Helper()
	out := mustKubectl(t, c.admin, "", "get", obj, "-o", "json", "--show-managed-fields")
	var o struct {
		Metadata struct {
			ManagedFields []meta.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &o))
	for i, e := range o.Metadata.ManagedFields {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, e.FieldsV1))
		o.Metadata.ManagedFields[i].FieldsV1 = b.Bytes()
	}
	return o.Metadata.ManagedFields
}

func managerEntry(entries []meta.ManagedFieldsEntry, manager, op string) (meta.ManagedFieldsEntry, bool) {
	for _, e := range entries {
		if e.Manager == manager && e.Operation == op {
			return e, true
		}
	}
	return meta.ManagedFieldsEntry{}, false
}

// TestKubectlServerSideApply: kubectl apply --server-side creates, two
// field managers conflict on a field with kube's message, --force-conflicts
// takes it over, a manager that stops applying a field removes it, and
// kubectl hides managedFields unless asked.
func TestKubectlServerSideApply(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, applyDeployment, "apply", "--server-side", "-f", "-")
	assert.Contains(t, out, "deployment.apps/web serverside-applied")

	yamlOut := mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "yaml")
	assert.NotContains(t, yamlOut, "managedFields", "kubectl hides managedFields")
	e, ok := managerEntry(managedFieldsOf(t, c, "deployment/web"), "kubectl", "Apply")
	require.True(t, ok)
	assert.Equal(t, "apps/v1", e.APIVersion)
	assert.Equal(t, "FieldsV1", e.FieldsType)
	assert.NotNil(t, e.Time)
	fields := string(e.FieldsV1)
	for _, want := range []string{`"f:replicas":{}`, `k:{\"name\":\"web\"}`, `k:{\"containerPort\":8080,\"protocol\":\"TCP\"}`, `k:{\"name\":\"MODE\"}`, `"f:selector":{}`} {
		assert.Contains(t, fields, want)
	}

	// A second manager sets the replicas: a conflict naming the field and its owner.
	other := strings.Replace(applyDeployment, "replicas: 2", "replicas: 5", 1)
	_, errOut, err := kubectl(t, c.admin, other, "apply", "--server-side", "--field-manager=ops", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`)
	assert.Equal(t, "2", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))

	// Forced, ops takes the replicas over; both share the fields they agree on.
	mustKubectl(t, c.admin, other, "apply", "--server-side", "--field-manager=ops", "--force-conflicts", "-f", "-")
	assert.Equal(t, "5", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))
	mf := managedFieldsOf(t, c, "deployment/web")
	ops, ok := managerEntry(mf, "ops", "Apply")
	require.True(t, ok)
	assert.Contains(t, string(ops.FieldsV1), `"f:replicas":{}`)
	kc, _ := managerEntry(mf, "kubectl", "Apply")
	assert.NotContains(t, string(kc.FieldsV1), `"f:replicas"`)

	// kubectl re-applying its old replicas now conflicts with ops.
	_, errOut, err = kubectl(t, c.admin, applyDeployment, "apply", "--server-side", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `conflict with "ops": .spec.replicas`)

	// kubectl stops applying the replicas, DEBUG and the tier label; ops
	// applied them too, so they stay until ops drops them as well.
	trimmed := strings.Replace(strings.Replace(applyDeployment, `, {name: DEBUG, value: "0"}`, "", 1), ", tier: front", "", 1)
	mustKubectl(t, c.admin, strings.Replace(trimmed, "  replicas: 2\n", "", 1), "apply", "--server-side", "-f", "-")
	assert.Equal(t, "5", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))
	assert.Equal(t, "MODE DEBUG", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].env[*].name}"))
	opsTrimmed := strings.Replace(trimmed, "replicas: 2", "replicas: 5", 1)
	mustKubectl(t, c.admin, opsTrimmed, "apply", "--server-side", "--field-manager=ops", "-f", "-")
	assert.Equal(t, "MODE", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].env[*].name}"))
	assert.Equal(t, "", mustKubectl(t, c.admin, "", "get", "deployment", "web", "-o", "jsonpath={.metadata.labels.tier}"))

	// An ordinary write is recorded as an Update manager and conflicts with
	// a later apply.
	mustKubectl(t, c.admin, "", "scale", "deployment", "web", "--replicas=7")
	_, errOut, err = kubectl(t, c.admin, opsTrimmed, "apply", "--server-side", "--field-manager=ops", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas`)
}

// TestKubectlManagedFieldsOnWrites: create, edit-like patches and
// replaces record Update managers as kube-apiserver does, and apply works
// for ConfigMaps, Services (ports keyed by port and protocol) and Pods.
func TestKubectlManagedFieldsOnWrites(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, "", "create", "configmap", "cfg", "--from-literal=a=1")
	e, ok := managerEntry(managedFieldsOf(t, c, "configmap/cfg"), "kubectl-create", "Update")
	require.True(t, ok)
	assert.Equal(t, "v1", e.APIVersion)
	assert.JSONEq(t, `{"f:data":{".":{},"f:a":{}}}`, string(e.FieldsV1))

	mustKubectl(t, c.admin, "", "label", "configmap", "cfg", "x=y")
	e, ok = managerEntry(managedFieldsOf(t, c, "configmap/cfg"), "kubectl-label", "Update")
	require.True(t, ok)
	assert.JSONEq(t, `{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`, string(e.FieldsV1))

	// Applying a value kubectl-create set conflicts; the same value does not.
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: \"1\", b: \"2\"}\n"
	mustKubectl(t, c.admin, cm, "apply", "--server-side", "--field-manager=app", "-f", "-")
	_, errOut, err := kubectl(t, c.admin, strings.Replace(cm, `a: "1"`, `a: "9"`, 1), "apply", "--server-side", "--field-manager=app", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `conflict with "kubectl-create" using v1: .data.a`)

	svc := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
`
	mustKubectl(t, c.admin, svc, "apply", "--server-side", "-f", "-")
	e, ok = managerEntry(managedFieldsOf(t, c, "service/web"), "kubectl", "Apply")
	require.True(t, ok)
	assert.Contains(t, string(e.FieldsV1), `k:{\"port\":80,\"protocol\":\"TCP\"}`)
	assert.Contains(t, string(e.FieldsV1), `"f:selector":{}`)
	// A second manager adds a port: both ports are kept.
	svc2 := "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec:\n  ports:\n  - {name: metrics, port: 9090}\n"
	mustKubectl(t, c.admin, svc2, "apply", "--server-side", "--field-manager=metrics", "-f", "-")
	assert.Equal(t, "80 9090", mustKubectl(t, c.admin, "", "get", "service", "web", "-o", "jsonpath={.spec.ports[*].port}"))

	pod := `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: a
    image: registry.example/a:1
    ports: [{containerPort: 80}, {containerPort: 53, protocol: UDP}]
`
	mustKubectl(t, c.admin, pod, "apply", "--server-side", "-f", "-")
	e, ok = managerEntry(managedFieldsOf(t, c, "pod/p"), "kubectl", "Apply")
	require.True(t, ok)
	assert.Contains(t, string(e.FieldsV1), `k:{\"containerPort\":53,\"protocol\":\"UDP\"}`)
	assert.Contains(t, string(e.FieldsV1), `k:{\"name\":\"a\"}`)
}

// rawClient returns an HTTPS client authenticated as an admin.
func rawClient(t *testing.T, c *cluster) *http.Client {
	t.Helper()
	cfg, err := c.cp.ClientConfig("raw-admin", "system:masters")
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cfg.CAData)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
}

// TestApplyBadInput: malformed and invalid apply requests get kube's
// errors and store nothing.
func TestApplyBadInput(t *testing.T) {
	c := startCluster(t)
	hc := rawClient(t, c)
	base := c.cp.URL + "/api/v1/namespaces/default/configmaps/"
	good := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\ndata: {a: \"1\"}\n"
	cases := []struct {
		name, obj, query, body, contentType string
		code                                int
		message                             string
	}{
		{"no field manager", "c1", "", good, "", 422, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"malformed yaml", "c2", "?fieldManager=m", "data: [unclosed", "", 400, "error decoding YAML"},
		{"not an object", "c3", "?fieldManager=m", "- a\n- b\n", "", 400, "error decoding YAML"},
		{"wrong kind", "c4", "?fieldManager=m", strings.Replace(good, "ConfigMap", "Secret", 1), "", 400, "invalid object type: v1, Kind=Secret"},
		{"no kind", "c5", "?fieldManager=m", "metadata: {name: c5}\n", "", 400, "invalid object type: , Kind="},
		{"name mismatch", "c6", "?fieldManager=m", good, "", 400, "does not match the name on the URL"},
		{"undeclared field", "c7", "?fieldManager=m", strings.Replace(good, "\ndata:", "\ndota:", 1), "", 400, ".dota: field not declared in schema"},
		{"wrong type", "c8", "?fieldManager=m", strings.Replace(good, `a: "1"`, "a: [1]", 1), "", 400, "failed to create typed patch object (default/c8; v1, Kind=ConfigMap): .data.a"},
		{"managedFields in config", "c9", "?fieldManager=m", strings.Replace(good, "{name: NAME}", "{name: c9, managedFields: [{manager: x, operation: Apply}]}", 1), "", 400, "managedFields must be nil"},
		{"bad force", "c10", "?fieldManager=m&force=maybe", good, "", 400, "invalid value for force"},
		{"force on merge patch", "c11", "?force=true", `{"data":{"a":"2"}}`, "application/merge-patch+json", 422, "force: Forbidden: may not be specified for non-apply patch"},
		{"resourceVersion on create", "c13", "?fieldManager=m", strings.Replace(good, "{name: NAME}", "{name: NAME, resourceVersion: \"5\"}", 1), "", 400, "resourceVersion should not be set on objects to be created"},
		{"long field manager", "c12", "?fieldManager=" + strings.Repeat("m", 129), good, "", 422, "fieldManager: Too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.ReplaceAll(tc.body, "NAME", tc.obj)
			if strings.Contains(tc.name, "resourceVersion") {
				body = strings.ReplaceAll(body, "name: NAME", "name: "+tc.obj)
			}
			if tc.name == "name mismatch" {
				body = strings.ReplaceAll(tc.body, "NAME", "other")
			}
			ct := tc.contentType
			if ct == "" {
				ct = "application/apply-patch+yaml"
			}
			req, err := http.NewRequest(http.MethodPatch, base+tc.obj+tc.query, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", ct)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.code, resp.StatusCode, string(b))
			var st meta.Status
			require.NoError(t, json.Unmarshal(b, &st))
			assert.Contains(t, st.Message, tc.message)
			_, _, err = kubectl(t, c.admin, "", "get", "configmap", tc.obj)
			assert.Error(t, err, "nothing stored")
		})
	}
}

// TestKubectlMigrateClientSideApply: an object kubectl applied client-side
// moves to server-side apply with a changed manifest without conflicts on
// the fields it applied before, and kubectl's last-applied annotation
// follows the server-side apply so that client-side apply still works.
func TestKubectlMigrateClientSideApply(t *testing.T) {
	c := startCluster(t)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mig, namespace: default}\ndata: {a: \"1\", b: \"2\"}\n"
	mustKubectl(t, c.admin, cm, "apply", "-f", "-")
	_, ok := managerEntry(managedFieldsOf(t, c, "configmap/mig"), "kubectl-client-side-apply", "Update")
	require.True(t, ok)

	changed := strings.Replace(cm, `a: "1"`, `a: "10"`, 1)
	out := mustKubectl(t, c.admin, changed, "apply", "--server-side", "-f", "-")
	assert.Contains(t, out, "configmap/mig serverside-applied")
	assert.Equal(t, "10", mustKubectl(t, c.admin, "", "get", "configmap", "mig", "-o", "jsonpath={.data.a}"))
	e, ok := managerEntry(managedFieldsOf(t, c, "configmap/mig"), "kubectl", "Apply")
	require.True(t, ok)
	assert.Contains(t, string(e.FieldsV1), `"f:a":{}`)
	last := mustKubectl(t, c.admin, "", "get", "configmap", "mig", "-o", `jsonpath={.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`)
	assert.Contains(t, last, `"a":"10"`)

	// A field kubectl never applied (set by another writer) still conflicts.
	mustKubectl(t, c.admin, "", "patch", "configmap", "mig", "--type=merge", "-p", `{"data":{"c":"3"}}`, "--field-manager=other")
	_, errOut, err := kubectl(t, c.admin, strings.Replace(changed, `b: "2"}`, `b: "2", c: "4"}`, 1), "apply", "--server-side", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `conflict with "other" using v1: .data.c`)

	// Client-side apply after server-side apply removes b, as last-applied says.
	mustKubectl(t, c.admin, strings.Replace(changed, `, b: "2"`, "", 1), "apply", "-f", "-")
	assert.Equal(t, "", mustKubectl(t, c.admin, "", "get", "configmap", "mig", "-o", "jsonpath={.data.b}"))
}

// TestKubectlApplyDryRunAndClusterScope: a server-side dry-run apply
// stores nothing, kubectl diff --server-side shows the change an apply
// would make, and cluster-scoped kinds apply too.
func TestKubectlApplyDryRunAndClusterScope(t *testing.T) {
	c := startCluster(t)
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: applied, labels: {team: a}}\n"
	out := mustKubectl(t, c.admin, ns, "apply", "--server-side", "--dry-run=server", "-f", "-")
	assert.Contains(t, out, "namespace/applied serverside-applied (server dry run)")
	_, _, err := kubectl(t, c.admin, "", "get", "namespace", "applied")
	assert.Error(t, err, "a dry run stores nothing")

	mustKubectl(t, c.admin, ns, "apply", "--server-side", "-f", "-")
	e, ok := managerEntry(managedFieldsOf(t, c, "namespace/applied"), "kubectl", "Apply")
	require.True(t, ok)
	assert.JSONEq(t, `{"f:metadata":{"f:labels":{"f:team":{}}}}`, string(e.FieldsV1))

	changed := strings.Replace(ns, "team: a", "team: b", 1)
	diff, _, err := kubectl(t, c.admin, changed, "diff", "--server-side", "-f", "-")
	require.Error(t, err, "kubectl diff exits 1 when there are differences")
	assert.Contains(t, diff, "-    team: a")
	assert.Contains(t, diff, "+    team: b")
	assert.Equal(t, "a", mustKubectl(t, c.admin, "", "get", "namespace", "applied", "-o", "jsonpath={.metadata.labels.team}"))
}

// TestApplyResourceVersionPrecondition: an apply configuration that
// carries a resourceVersion applies only to that version, as in
// kube-apiserver.
func TestApplyResourceVersionPrecondition(t *testing.T) {
	c := startCluster(t)
	hc := rawClient(t, c)
	url := c.cp.URL + "/api/v1/namespaces/default/configmaps/rv?fieldManager=m"
	send := func(body string) (int, string) {
		req, err := http.NewRequest(http.MethodPatch, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/apply-patch+yaml")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := send("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rv}\ndata: {a: \"1\"}\n")
	require.Equal(t, http.StatusCreated, code, body)
	var cm struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &cm))
	stale := cm.Metadata.ResourceVersion + "0" // any other version
	code, body = send("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rv, resourceVersion: \"" + stale + "\"}\ndata: {a: \"2\"}\n")
	assert.Equal(t, http.StatusConflict, code, body)
	assert.Contains(t, body, "the object has been modified")
	code, body = send("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rv, resourceVersion: \"" + cm.Metadata.ResourceVersion + "\"}\ndata: {a: \"2\"}\n")
	assert.Equal(t, http.StatusOK, code, body)
}
