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

	out = mustKubectl(t, c.admin, "", "scale", "crontab", "my-crontab", "--replicas=3")
	assert.Contains(t, out, "crontab.stable.example.com/my-crontab scaled")
	out = mustKubectl(t, c.admin, "", "patch", "crontab", "my-crontab", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3,"selector":"app=cron"}}`)
	assert.Contains(t, out, "patched")
	out = mustKubectl(t, c.admin, "", "get", "crontab", "my-crontab", "-o", "jsonpath={.spec.replicas} {.status.replicas} {.metadata.generation}")
	assert.Equal(t, "3 3 2", out, "scale changed the spec (generation 2), the status patch did not")

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
	_ = os.Getenv
}
