package apiserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlNodeRestriction replays issue 15's finding with a minted node
// certificate (system:node:node-1 in system:nodes): the node may not add,
// change or remove node-restriction.kubernetes.io/ or node-role labels,
// touch taints or its spec, create pods other than its own mirror pods, or
// write another node's Lease; each refusal is kube-apiserver's wording.
// What the kubelet needs still works.
func TestKubectlNodeRestriction(t *testing.T) {
	c := startCluster(t)
	refused := func(t *testing.T, kubeconfig, stdin, want string, args ...string) {
		t.Helper()
		_, errOut, err := kubectl(t, kubeconfig, stdin, args...)
		require.Error(t, err, "kubectl %v should be refused", args)
		assert.Contains(t, errOut, want)
	}
	// Registering: kubelet labels and taints are fine, a role label is not.
	refused(t, c.node, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"node-role.kubernetes.io/control-plane":""}}}`,
		`nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: node-role.kubernetes.io/control-plane`,
		"create", "-f", "-")
	mustKubectl(t, c.node, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1","kubernetes.io/os":"linux"}},`+
		`"spec":{"taints":[{"key":"registered","effect":"PreferNoSchedule"}]}}`, "create", "-f", "-")

	// The admin steers workloads with labels and a taint.
	mustKubectl(t, c.admin, "", "label", "node", "node-1", "node-restriction.kubernetes.io/pool=secure", "node-role.kubernetes.io/worker=")
	mustKubectl(t, c.admin, "", "taint", "node", "node-1", "dedicated=secure:NoSchedule")

	const labels = `nodes "node-1" is forbidden: is not allowed to modify labels: `
	refused(t, c.node, "", labels+"node-restriction.kubernetes.io/x", "label", "node", "node-1", "node-restriction.kubernetes.io/x=1")
	refused(t, c.node, "", labels+"node-restriction.kubernetes.io/pool", "label", "node", "node-1", "node-restriction.kubernetes.io/pool=open", "--overwrite")
	refused(t, c.node, "", labels+"node-restriction.kubernetes.io/pool", "label", "node", "node-1", "node-restriction.kubernetes.io/pool-")
	refused(t, c.node, "", labels+"node-role.kubernetes.io/control-plane", "label", "node", "node-1", "node-role.kubernetes.io/control-plane=")
	refused(t, c.node, "", labels+"node-role.kubernetes.io/worker", "label", "node", "node-1", "node-role.kubernetes.io/worker-")
	refused(t, c.node, "", `nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints`, "taint", "node", "node-1", "dedicated-")
	refused(t, c.node, "", `nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints`, "taint", "node", "node-1", "registered-")
	refused(t, c.node, "", `nodes "node-1" is forbidden: node "node-1" is not allowed to modify spec.unschedulable`,
		"patch", "node", "node-1", "--type=merge", `-p={"spec":{"unschedulable":true}}`)
	refused(t, c.node, "", `nodes "node-1" is forbidden: node "node-1" is not allowed to modify ownerReferences`, "patch", "node", "node-1",
		"--type=merge", `-p={"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Namespace","name":"default","uid":"u"}]}}`)
	// Nothing changed, and what the kubelet does still works.
	out := mustKubectl(t, c.admin, "", "get", "node", "node-1", "-o", "jsonpath={.metadata.labels} {.spec.taints[*].key} {.spec.unschedulable}")
	assert.Contains(t, out, `"node-restriction.kubernetes.io/pool":"secure"`)
	assert.Contains(t, out, `"node-role.kubernetes.io/worker":""`)
	assert.Contains(t, out, "registered")
	assert.Contains(t, out, "dedicated")
	mustKubectl(t, c.node, "", "label", "node", "node-1", "example.com/rack=r1", "topology.kubernetes.io/zone=z1")
	mustKubectl(t, c.node, "", "patch", "node", "node-1", "--subresource=status", "--type=merge",
		`-p={"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)

	// Pods: only its own mirror pods.
	uid := strings.TrimSpace(mustKubectl(t, c.admin, "", "get", "node", "node-1", "-o", "jsonpath={.metadata.uid}"))
	mirror := func(name, node, ownerUID string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":"default","annotations":{"kubernetes.io/config.mirror":"h"},`+
			`"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"node-1","uid":%q,"controller":true}]},`+
			`"spec":{"nodeName":%q,"containers":[{"name":"c","image":"img"}]}}`, name, ownerUID, node)
	}
	mustKubectl(t, c.node, mirror("static-node-1", "node-1", uid), "create", "-f", "-")
	refused(t, c.node, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain","namespace":"default"},"spec":{"nodeName":"node-1","containers":[{"name":"c","image":"img"}]}}`,
		`pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods`, "create", "-f", "-")
	refused(t, c.node, mirror("elsewhere", "node-2", uid),
		`pods "elsewhere" is forbidden: node "node-1" can only create pods with spec.nodeName set to itself`, "create", "-f", "-")
	refused(t, c.node, mirror("stale", "node-1", "0000"),
		`pods "stale" is forbidden: node node-1 UID mismatch: expected `+uid+` got 0000`, "create", "-f", "-")
	refused(t, c.node, "", `pods "static-node-1" is forbidden`, "label", "pod", "static-node-1", "x=y")
	mustKubectl(t, c.node, "", "delete", "pod", "static-node-1", "--wait=false")

	// Leases: its own in kube-node-lease only.
	lease := func(ns, name string) string {
		return fmt.Sprintf(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":%q,"namespace":%q},"spec":{"holderIdentity":%q}}`, name, ns, name)
	}
	mustKubectl(t, c.node, lease("kube-node-lease", "node-1"), "create", "-f", "-")
	refused(t, c.node, lease("kube-node-lease", "node-2"),
		`leases.coordination.k8s.io "node-2" is forbidden: can only access node lease with the same name as the requesting node`, "create", "-f", "-")
	mustKubectl(t, c.admin, lease("kube-node-lease", "node-2"), "create", "-f", "-")
	refused(t, c.node, "", `leases.coordination.k8s.io "node-2" is forbidden`, "-n", "kube-node-lease", "annotate", "lease", "node-2", "stolen=yes")
}
