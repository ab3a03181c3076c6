package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const devRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: dev, namespace: team}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [apps]
  resources: [deployments, deployments/scale]
  verbs: [get, list, watch, create, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dev, namespace: team}
subjects: [{kind: User, name: dev, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: Role, name: dev, apiGroup: rbac.authorization.k8s.io}
`

// TestKubectlIdentities drives the server as a namespaced user (token,
// RBAC Role) and as a node (certificate, Node authorizer): each can do
// what it is granted and is refused with Kubernetes' 403 wording elsewhere.
func TestKubectlIdentities(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, devRBAC, "apply", "-f", "-")

	// The namespaced user.
	mustKubectl(t, c.dev, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mine","namespace":"team"},"data":{"k":"v"}}`, "apply", "-f", "-")
	out := mustKubectl(t, c.dev, "", "-n", "team", "get", "configmaps")
	assert.Contains(t, out, "mine")
	_, errOut, err := kubectl(t, c.dev, "", "-n", "kube-system", "get", "configmaps")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps is forbidden: User "dev" cannot list resource "configmaps" in API group "" in the namespace "kube-system"`)
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "get", "secrets")
	require.Error(t, err)
	assert.Contains(t, errOut, `secrets is forbidden: User "dev" cannot list resource "secrets" in API group "" in the namespace "team"`)
	_, errOut, err = kubectl(t, c.dev, "", "get", "nodes")
	require.Error(t, err)
	assert.Contains(t, errOut, `nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope`)

	out = mustKubectl(t, c.dev, "", "-n", "team", "auth", "can-i", "create", "configmaps")
	assert.Equal(t, "yes\n", out)
	out, _, _ = kubectl(t, c.dev, "", "-n", "team", "auth", "can-i", "delete", "deployments")
	assert.Equal(t, "no\n", out)

	// The node: its own Node object, and nothing it has no relationship with.
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1"}}}`
	mustKubectl(t, c.node, node, "create", "-f", "-")
	out = mustKubectl(t, c.node, "", "get", "node", "node-1", "-o", "name")
	assert.Equal(t, "node/node-1\n", out)
	mustKubectl(t, c.node, "", "get", "pods", "-A", "--field-selector", "spec.nodeName=node-1")
	_, errOut, err = kubectl(t, c.node, "", "get", "pods", "-A")
	require.Error(t, err)
	assert.Contains(t, errOut, `pods is forbidden: User "system:node:node-1" cannot list resource "pods" in API group "" at the cluster scope`)
	_, errOut, err = kubectl(t, c.node, "", "-n", "team", "get", "configmap", "mine")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "mine" is forbidden: User "system:node:node-1" cannot get resource "configmaps" in API group "" in the namespace "team"`)
	_, errOut, err = kubectl(t, c.node, "", "label", "node", "node-1", "x=y", "--overwrite")
	require.NoError(t, err, errOut)
	_, errOut, err = kubectl(t, c.node, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-2"}}`, "create", "-f", "-")
	require.Error(t, err, "a node may not create another node")
	assert.Contains(t, errOut, "forbidden")
}
