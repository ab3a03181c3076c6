package apiserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlDryRun drives server-side dry runs with the real kubectl:
// each answers with the object as it would be and stores nothing.
func TestKubectlDryRun(t *testing.T) {
	c := startCluster(t)
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry, namespace: default}\ndata: {a: b}\n"
	changed := strings.Replace(cm, "a: b", "a: c", 1)

	out := mustKubectl(t, c.admin, cm, "create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.data.a} {.metadata.uid}")
	assert.Regexp(t, `^b [0-9a-f-]{36}$`, out, "a dry-run create answers with the object, uid filled in")
	_, errOut, err := kubectl(t, c.admin, "", "get", "cm", "dry")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "dry" not found`)

	mustKubectl(t, c.admin, cm, "apply", "-f", "-")
	out = mustKubectl(t, c.admin, changed, "apply", "--dry-run=server", "-f", "-", "-o", "jsonpath={.data.a}")
	assert.Equal(t, "c", out, "a dry-run patch answers with the patched object")
	assert.Equal(t, "b", mustKubectl(t, c.admin, "", "get", "cm", "dry", "-o", "jsonpath={.data.a}"), "and stores nothing")

	// kubectl diff is a dry-run patch compared with the live object: it
	// prints the change and exits 1.
	out, _, err = kubectl(t, c.admin, changed, "diff", "-f", "-")
	require.Error(t, err, "kubectl diff exits 1 when there are differences")
	assert.Contains(t, out, "-  a: b")
	assert.Contains(t, out, "+  a: c")

	out = mustKubectl(t, c.admin, "", "delete", "cm", "dry", "--dry-run=server")
	assert.Contains(t, out, "deleted (server dry run)")
	assert.Equal(t, "b", mustKubectl(t, c.admin, "", "get", "cm", "dry", "-o", "jsonpath={.data.a}"), "a dry-run delete deletes nothing")
}
