package apiserver_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// escalationRBAC: mallory may write Roles and RoleBindings in namespace
// esc and read pods there, nothing else; a Secret waits to be stolen.
const escalationRBAC = `
apiVersion: v1
kind: Namespace
metadata: {name: esc}
---
apiVersion: v1
kind: Secret
metadata: {name: crown, namespace: esc}
stringData: {jewels: "yes"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rbac-writer, namespace: esc}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [get, list, create, update, patch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: mallory-rbac-writer, namespace: esc}
subjects: [{kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: Role, name: rbac-writer, apiGroup: rbac.authorization.k8s.io}
`

const heldPrefix = `user "mallory" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`

// TestKubectlRBACEscalation replays issue 15's finding with a minted
// client certificate: a user allowed to write Roles and RoleBindings may
// not bind itself to cluster-admin nor grant itself Secrets, is refused
// with kube-apiserver's message, gains nothing, and may still grant what
// it holds; "escalate" and "bind" lift exactly what they name.
func TestKubectlRBACEscalation(t *testing.T) {
	c := startCluster(t)
	mallory := filepath.Join(c.dir, "mallory.kubeconfig")
	require.NoError(t, c.cp.WriteKubeconfig(mallory, "mallory"))
	mustKubectl(t, c.admin, escalationRBAC, "apply", "-f", "-")

	refused := func(t *testing.T, stdin, want string, args ...string) {
		t.Helper()
		_, errOut, err := kubectl(t, mallory, stdin, args...)
		require.Error(t, err, "kubectl %v should be refused", args)
		assert.Contains(t, errOut, want)
	}

	// The finding: a binding to cluster-admin and a Role granting secrets.
	refused(t, "", `rolebindings.rbac.authorization.k8s.io "pwn" is forbidden: `+heldPrefix+"\n"+
		`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`+"\n"+`{NonResourceURLs:["*"], Verbs:["*"]}`,
		"-n", "esc", "create", "rolebinding", "pwn", "--clusterrole=cluster-admin", "--user=mallory")
	refused(t, "", `roles.rbac.authorization.k8s.io "thief" is forbidden: `+heldPrefix+"\n"+
		`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}`,
		"-n", "esc", "create", "role", "thief", "--verb=get,delete", "--resource=secrets")
	refused(t, "", `secrets "crown" is forbidden: User "mallory" cannot get resource "secrets"`, "-n", "esc", "get", "secret", "crown")
	refused(t, "", `roles.rbac.authorization.k8s.io "thief" not found`, "-n", "esc", "get", "role", "thief")

	// What mallory holds it may grant: a Role with a subset, a binding to it.
	mustKubectl(t, mallory, "", "-n", "esc", "create", "role", "pod-reader", "--verb=get", "--resource=pods")
	mustKubectl(t, mallory, "", "-n", "esc", "create", "rolebinding", "friend", "--role=pod-reader", "--user=friend")
	// ... but not widen it afterwards, by patch or by apply.
	refused(t, "", `roles.rbac.authorization.k8s.io "pod-reader" is forbidden: `+heldPrefix+"\n"+
		`{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`,
		"-n", "esc", "patch", "role", "pod-reader", "--type=json", `-p=[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]`)
	refused(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"pod-reader","namespace":"esc"},`+
		`"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}]}`,
		`{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}`, "replace", "-f", "-")
	// A binding to a Role that does not exist is its 404 (unless "bind").
	refused(t, "", `roles.rbac.authorization.k8s.io "nope" not found`,
		"-n", "esc", "create", "rolebinding", "dangling", "--role=nope", "--user=mallory")

	// Only what the garbage collector writes may change on a role granting
	// more than mallory holds.
	mustKubectl(t, c.admin, "", "-n", "esc", "create", "role", "secret-reader", "--verb=get", "--resource=secrets")
	mustKubectl(t, mallory, "", "-n", "esc", "patch", "role", "secret-reader", "--type=merge", `-p={"metadata":{"finalizers":["example.com/keep"]}}`)
	refused(t, "", `roles.rbac.authorization.k8s.io "secret-reader" is forbidden: `+heldPrefix,
		"-n", "esc", "label", "role", "secret-reader", "touched=yes")

	// "escalate" on roles lifts the Role check; "bind" on one ClusterRole
	// lifts the binding check for it alone.
	mustKubectl(t, c.admin, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lift, namespace: esc}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles]
  verbs: [escalate]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  resourceNames: [view]
  verbs: [bind]
`, "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "-n", "esc", "create", "rolebinding", "mallory-lift", "--role=lift", "--user=mallory")
	waitKubectl(t, mallory, "yes\n", "-n", "esc", "auth", "can-i", "escalate", "roles.rbac.authorization.k8s.io")
	mustKubectl(t, mallory, "", "-n", "esc", "create", "role", "thief", "--verb=get", "--resource=secrets")
	mustKubectl(t, mallory, "", "-n", "esc", "create", "rolebinding", "viewers", "--clusterrole=view", "--group=viewers")
	refused(t, "", `rolebindings.rbac.authorization.k8s.io "editors" is forbidden: `+heldPrefix,
		"-n", "esc", "create", "rolebinding", "editors", "--clusterrole=edit", "--group=editors")
	refused(t, "", `rolebindings.rbac.authorization.k8s.io "self" is forbidden: `+heldPrefix,
		"-n", "esc", "create", "rolebinding", "self", "--role=thief", "--user=mallory")

	// The admin (system:masters) is never checked; mallory may not join
	// its binding by updating the subjects.
	mustKubectl(t, c.admin, "", "-n", "esc", "create", "rolebinding", "root", "--clusterrole=cluster-admin", "--user=root")
	refused(t, "", `rolebindings.rbac.authorization.k8s.io "root" is forbidden: `+heldPrefix,
		"-n", "esc", "patch", "rolebinding", "root", "--type=json",
		`-p=[{"op":"add","path":"/subjects/-","value":{"kind":"User","name":"mallory","apiGroup":"rbac.authorization.k8s.io"}}]`)
}

// TestKubectlClusterRoleEscalation: ClusterRoles and ClusterRoleBindings
// are checked against cluster-wide grants only, and an aggregationRule
// needs every permission, as kube-apiserver's ClusterRole storage has it.
func TestKubectlClusterRoleEscalation(t *testing.T) {
	c := startCluster(t)
	oscar := filepath.Join(c.dir, "oscar.kubeconfig")
	require.NoError(t, c.cp.WriteKubeconfig(oscar, "oscar", "operators"))
	mustKubectl(t, c.admin, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: operator}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles, clusterrolebindings]
  verbs: [get, list, create, update, patch]
- apiGroups: [""]
  resources: [configmaps]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: operators}
subjects: [{kind: Group, name: operators, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: operator, apiGroup: rbac.authorization.k8s.io}
`, "apply", "-f", "-")
	const held = `user "oscar" (groups=["operators" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`

	mustKubectl(t, oscar, "", "create", "clusterrole", "cm-reader", "--verb=get,list", "--resource=configmaps")
	mustKubectl(t, oscar, "", "create", "clusterrolebinding", "cm-readers", "--clusterrole=cm-reader", "--group=readers")
	_, errOut, err := kubectl(t, oscar, "", "create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes")
	require.Error(t, err)
	assert.Contains(t, errOut, `clusterroles.rbac.authorization.k8s.io "node-reader" is forbidden: `+held+"\n"+
		`{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}`)
	_, errOut, err = kubectl(t, oscar, "", "create", "clusterrolebinding", "pwn", "--clusterrole=cluster-admin", "--user=oscar")
	require.Error(t, err)
	assert.Contains(t, errOut, `clusterrolebindings.rbac.authorization.k8s.io "pwn" is forbidden: `+held)

	// An aggregationRule gathers anything: refused even with no rules.
	agg := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"gather"},` +
		`"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]},"rules":[]}`
	_, errOut, err = kubectl(t, oscar, agg, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `clusterroles.rbac.authorization.k8s.io "gather" is forbidden: must have cluster-admin privileges to use the aggregationRule`)
	// ... nor may it be changed on one the admin made, nor removed.
	mustKubectl(t, c.admin, agg, "create", "-f", "-")
	_, errOut, err = kubectl(t, oscar, "", "patch", "clusterrole", "gather", "--type=merge", `-p={"aggregationRule":null}`)
	require.Error(t, err)
	assert.Contains(t, errOut, "must have cluster-admin privileges to use the aggregationRule")
}

// waitKubectl polls kubectl until its stdout is want (the authorizer reads
// bindings from the watch cache, which follows a write shortly after).
func waitKubectl(t *testing.T, kubeconfig, want string, args ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		out, _, _ := kubectl(t, kubeconfig, "", args...)
		return out == want
	}, 30*time.Second, 50*time.Millisecond, "kubectl %v never printed %q", args, want)
}
