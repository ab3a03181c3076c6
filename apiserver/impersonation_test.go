package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// impersonationRBAC lets user "dev" impersonate user "bob" (only him) and
// gives bob read access to pods in namespace "imp".
const impersonationRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: imp}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonate-bob}
rules:
- {apiGroups: [""], resources: [users], verbs: [impersonate], resourceNames: [bob]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dev-impersonates-bob}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonate-bob}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-views, namespace: imp}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
`

// TestKubectlImpersonation drives kubectl --as and --as-group: the request
// acts as the impersonated user once the caller may impersonate it, and is
// refused with Kubernetes' wording otherwise.
func TestKubectlImpersonation(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, impersonationRBAC, "apply", "-f", "-")

	// The admin (system:masters) may impersonate anyone; the request then
	// has bob's rights, not the admin's.
	assert.Equal(t, "yes\n", mustKubectl(t, c.admin, "", "auth", "can-i", "list", "pods", "-n", "imp", "--as=bob"))
	out, _, _ := kubectl(t, c.admin, "", "auth", "can-i", "delete", "pods", "-n", "imp", "--as=bob")
	assert.Equal(t, "no\n", out)
	_, errOut, err := kubectl(t, c.admin, "", "get", "secrets", "-n", "imp", "--as=bob")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "bob" cannot list resource "secrets" in API group "" in the namespace "imp"`)
	assert.Contains(t, mustKubectl(t, c.admin, "", "auth", "whoami", "--as=bob", "--as-group=team"), "team")

	// dev may impersonate bob, but not carol nor a group. (The refusals
	// go through --raw: kubectl's aggregated discovery prints a refused
	// /api request as "Forbidden: unknown", against kube-apiserver too.)
	mustKubectl(t, c.dev, "", "get", "pods", "-n", "imp", "--as=bob")
	const pods = "/api/v1/namespaces/imp/pods"
	_, errOut, err = kubectl(t, c.dev, "", "get", "--raw", pods, "--as=carol")
	require.Error(t, err)
	assert.Contains(t, errOut, `users "carol" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope`)
	_, errOut, err = kubectl(t, c.dev, "", "get", "--raw", pods, "--as=bob", "--as-group=system:masters")
	require.Error(t, err)
	assert.Contains(t, errOut, `groups "system:masters" is forbidden: User "dev" cannot impersonate resource "groups"`)
	_, errOut, err = kubectl(t, c.dev, "", "get", "--raw", pods, "--as=system:serviceaccount:imp:robot")
	require.Error(t, err)
	assert.Contains(t, errOut, `serviceaccounts "robot" is forbidden: User "dev" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "imp"`)
}
