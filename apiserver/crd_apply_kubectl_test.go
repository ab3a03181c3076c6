package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlServerSideApplyCustomResource: `kubectl apply --server-side`
// of a custom resource merges by the CRD's schema, records its manager,
// and a second manager changing the same field conflicts until forced.
func TestKubectlServerSideApplyCustomResource(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	const tab = `
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: applied, namespace: default, labels: {team: a}}
spec: {cronSpec: "* * * * */5", image: my-cron-image, replicas: 1}
`
	out := mustKubectl(t, c.admin, tab, "apply", "--server-side", "--field-manager=alice", "-f", "-")
	assert.Contains(t, out, "crontab.stable.example.com/applied serverside-applied")
	managers := mustKubectl(t, c.admin, "", "get", "crontab", "applied", "--show-managed-fields", "-o",
		"jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}")
	assert.Contains(t, managers, "alice/Apply")

	_, errOut, err := kubectl(t, c.admin, `
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: applied, namespace: default}
spec: {replicas: 2}
`, "apply", "--server-side", "--field-manager=bob", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `conflict with "alice"`)
	assert.Contains(t, errOut, ".spec.replicas")

	mustKubectl(t, c.admin, `
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: applied, namespace: default}
spec: {replicas: 2}
`, "apply", "--server-side", "--force-conflicts", "--field-manager=bob", "-f", "-")
	assert.Equal(t, "2 my-cron-image", mustKubectl(t, c.admin, "", "get", "crontab", "applied", "-o", "jsonpath={.spec.replicas} {.spec.image}"))
}
