package apiserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crdFile returns the path of a file of testdata/crd.
func crdFile(name string) string { return filepath.Join("testdata", "crd", name) }

// eventually polls f until it holds or 10 s pass.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKubectlCRD: a CustomResourceDefinition applied with kubectl becomes a
// served resource (Established, discovery, short name, explain); custom
// resources are created, listed with their printer columns, defaulted,
// validated (schema and CEL, refused with kube's wording and field path),
// scaled, their status patched, read in another version; deleting the CRD
// deletes them and stops serving them.
func TestKubectlCRD(t *testing.T) {
	c := startCluster(t)
	out := mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	assert.Contains(t, out, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created")
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	out = mustKubectl(t, c.admin, "", "get", "crd", "crontabs.stable.example.com", "-o", "jsonpath={.status.conditions[?(@.type==\"NamesAccepted\")].reason}")
	assert.Equal(t, "NoConflicts", out)

	out = mustKubectl(t, c.admin, "", "api-resources", "--api-group=stable.example.com")
	assert.Regexp(t, `crontabs\s+ct\s+stable.example.com/v1\s+true\s+CronTab`, out)

	out = mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab.yaml"))
	assert.Contains(t, out, "crontab.stable.example.com/my-crontab created")
	out = mustKubectl(t, c.admin, "", "get", "crontabs")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Regexp(t, `^NAME\s+SPEC\s+REPLICAS\s+AGE$`, lines[0])
	assert.Regexp(t, `^my-crontab\s+\* \* \* \* \*/5\s+1\s+\d+s$`, lines[1])
	out = mustKubectl(t, c.admin, "", "get", "ct", "my-crontab", "-o", "jsonpath={.spec.maxReplicas} {.metadata.generation}")
	assert.Equal(t, "10 1", out, "defaults applied, generation 1")

	_, errOut, err := kubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "--type=merge", "-p", `{"spec":{"replicas":-1}}`)
	require.Error(t, err)
	assert.Contains(t, errOut, `The CronTab "my-crontab" is invalid: `)
	assert.Contains(t, errOut, `* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`)
	assert.Contains(t, errOut, `* .spec.replicas: Invalid value: -1: should be a non-negative integer`, "the scale check, as kube words it")
	_, errOut, err = kubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "--type=merge", "-p", `{"spec":{"replicas":11}}`)
	require.Error(t, err)
	assert.Contains(t, errOut, `spec: Invalid value: "object": replicas must not exceed maxReplicas`)
	_, errOut, err = kubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "--type=json", "-p", `[{"op":"replace","path":"/spec/cronSpec","value":"never"}]`)
	require.Error(t, err)
	assert.Contains(t, errOut, `spec.cronSpec: Invalid value: "never": spec.cronSpec in body should match`)

	_, errOut, err = kubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "-p", `{"spec":{"image":"other"}}`)
	require.Error(t, err, "kubectl patch defaults to a strategic merge patch, which custom resources refuse")
	assert.Contains(t, errOut, "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")

	cr, err := os.ReadFile(crdFile("crontab.yaml"))
	require.NoError(t, err)
	out = mustKubectl(t, c.admin, strings.Replace(string(cr), "my-awesome-cron-image", "my-other-image", 1), "apply", "-f", "-")
	assert.Contains(t, out, "crontab.stable.example.com/my-crontab configured", "kubectl apply sends a merge patch")
	out = mustKubectl(t, c.admin, "", "get", "crontab", "my-crontab", "-o", "jsonpath={.spec.image} {.metadata.generation}")
	assert.Equal(t, "my-other-image 2", out)

	out = mustKubectl(t, c.admin, "", "scale", "crontab", "my-crontab", "--replicas=3")
	assert.Contains(t, out, "crontab.stable.example.com/my-crontab scaled")
	out = mustKubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3,"selector":"app=cron"}}`)
	assert.Contains(t, out, "patched")
	out = mustKubectl(t, c.admin, "", "get", "crontab", "my-crontab", "-o", "jsonpath={.spec.replicas} {.status.replicas} {.metadata.generation}")
	assert.Equal(t, "3 3 3", out, "scale changed the spec (generation 3), the status patch did not")

	out = mustKubectl(t, c.admin, "", "get", "crontabs.v1beta1.stable.example.com", "my-crontab", "-o", "jsonpath={.apiVersion} {.spec.cronSpec}")
	assert.Equal(t, "stable.example.com/v1beta1 * * * * */5", out)

	out = mustKubectl(t, c.admin, "", "explain", "crontab.spec")
	assert.Contains(t, out, "cronSpec")
	assert.Contains(t, out, "The cron spec, five fields.")

	out = mustKubectl(t, c.admin, "", "delete", "crd", "crontabs.stable.example.com")
	assert.Contains(t, out, `customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted`)
	eventually(t, "the CRD to go", func() bool {
		_, _, err := kubectl(t, c.admin, "", "get", "crd", "crontabs.stable.example.com")
		return err != nil
	})
	_, errOut, err = kubectl(t, c.admin, "", "get", "crontabs")
	require.Error(t, err)
	assert.Contains(t, errOut, `the server doesn't have a resource type "crontabs"`)

	// Created again, the CRD serves no leftover objects.
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	_, errOut, _ = kubectl(t, c.admin, "", "get", "crontabs")
	assert.Contains(t, errOut, "No resources found in default namespace.")
}

// TestKubectlCRDBadInput: CRDs that Kubernetes refuses are refused with
// its wording and nothing is stored (a non-structural schema, a CEL rule
// over the cost limit, a body over 3 MiB); a CRD whose names conflict
// with an established one is stored but not served.
func TestKubectlCRDBadInput(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, "", "apply", "-f", crdFile("nonstructural-crd.yaml"))
	require.Error(t, err)
	assert.Contains(t, errOut, `The CustomResourceDefinition "gizmos.example.orkit.io" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`)

	_, errOut, err = kubectl(t, c.admin, "", "apply", "-f", crdFile("expensive-crd.yaml"))
	require.Error(t, err)
	assert.Contains(t, errOut, `The CustomResourceDefinition "doohickeys.example.orkit.io" is invalid`)
	assert.Contains(t, errOut, "x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of")

	big, err := os.ReadFile(crdFile("cluster-crd.yaml"))
	require.NoError(t, err)
	huge := strings.Replace(string(big), "            required: [size]\n",
		"            required: [size]\n            description: "+strings.Repeat("x", 4<<20)+"\n", 1)
	_, errOut, err = kubectl(t, c.admin, huge, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, "Request entity too large: limit is 3145728")

	for _, name := range []string{"gizmos.example.orkit.io", "doohickeys.example.orkit.io", "clusterwidgets.example.orkit.io"} {
		_, errOut, err = kubectl(t, c.admin, "", "get", "crd", name)
		require.Error(t, err, name)
		assert.Contains(t, errOut, "NotFound", name)
	}

	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("conflict-crd.yaml"))
	eventually(t, "NamesAccepted=False", func() bool {
		out, _, _ := kubectl(t, c.admin, "", "get", "crd", "crontabbers.stable.example.com", "-o",
			`jsonpath={.status.conditions[?(@.type=="NamesAccepted")].status}`)
		return out == "False"
	})
	out := mustKubectl(t, c.admin, "", "get", "crd", "crontabbers.stable.example.com", "-o",
		`jsonpath={.status.conditions[?(@.type=="NamesAccepted")].message} {.status.conditions[?(@.type=="Established")].status}`)
	assert.Contains(t, out, "is already in use")
	assert.True(t, strings.HasSuffix(out, " False"), out)
	_, errOut, err = kubectl(t, c.admin, "", "get", "crontabbers")
	require.Error(t, err)
	assert.Contains(t, errOut, `the server doesn't have a resource type "crontabbers"`)
	out = mustKubectl(t, c.admin, "", "get", "ct")
	assert.Empty(t, out, "the short name stays with the first CRD")
}

// TestKubectlCRDClusterScoped: a cluster-scoped custom resource with its
// own list kind and category; unknown fields are refused under kubectl's
// strict field validation and dropped (with a warning) under Warn; enum,
// required and maximum are checked; delete --all removes them all.
func TestKubectlCRDClusterScoped(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("cluster-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/clusterwidgets.example.orkit.io")

	w := func(name, spec string) string {
		return "apiVersion: example.orkit.io/v1\nkind: ClusterWidget\nmetadata:\n  name: " + name + "\nspec:\n" + spec
	}
	out := mustKubectl(t, c.admin, w("a", "  size: 3\n  color: red\n"), "create", "-f", "-")
	assert.Contains(t, out, "clusterwidget.example.orkit.io/a created")
	_, errOut, err := kubectl(t, c.admin, w("b", "  size: 3\n  shade: dark\n"), "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `strict decoding error: unknown field "spec.shade"`)
	out, errOut, err = kubectl(t, c.admin, w("b", "  size: 3\n  shade: dark\n"), "create", "--validate=warn", "-f", "-")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, `Warning: unknown field "spec.shade"`)
	assert.NotContains(t, mustKubectl(t, c.admin, "", "get", "clusterwidget", "b", "-o", "json"), "shade")

	_, errOut, err = kubectl(t, c.admin, w("c", "  size: 300\n  color: blue\n"), "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `spec.size: Invalid value: 300: spec.size in body should be less than or equal to 100`)
	assert.Contains(t, errOut, `spec.color: Unsupported value: "blue": supported values: "red", "green"`)
	_, errOut, err = kubectl(t, c.admin, w("c", "  color: red\n"), "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `spec.size: Required value`)

	out = mustKubectl(t, c.admin, "", "get", "clusterwidgets", "--field-selector", "spec.color=red", "-o", "name")
	assert.Equal(t, "clusterwidget.example.orkit.io/a\n", out, "selectableFields serve field selectors")
	_, errOut, err = kubectl(t, c.admin, "", "get", "clusterwidgets", "--field-selector", "spec.size=3")
	require.Error(t, err)
	assert.Contains(t, errOut, `field label not supported: spec.size`)

	out = mustKubectl(t, c.admin, "", "get", "orkit")
	assert.Regexp(t, `(?m)^a\s`, out, "the category lists them")
	raw := mustKubectl(t, c.admin, "", "get", "--raw", "/apis/example.orkit.io/v1/clusterwidgets")
	assert.Contains(t, raw, `"kind":"ClusterWidgetCollection"`)
	_, errOut, err = kubectl(t, c.admin, "", "get", "--raw", "/apis/example.orkit.io/v1/namespaces/default/clusterwidgets/a")
	require.Error(t, err)
	assert.Contains(t, errOut, "NotFound")

	out = mustKubectl(t, c.admin, "", "delete", "clusterwidgets", "--all")
	assert.Contains(t, out, `clusterwidget.example.orkit.io "a" deleted`)
	assert.Contains(t, out, `clusterwidget.example.orkit.io "b" deleted`)
	_, errOut, _ = kubectl(t, c.admin, "", "get", "clusterwidgets")
	assert.Contains(t, errOut, "No resources found")
}
