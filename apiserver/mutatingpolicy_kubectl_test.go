package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlMutatingAdmissionPolicy: a MutatingAdmissionPolicy and its
// binding are served with kube's table columns and defaults, and mutate
// the Deployments of the namespaces the binding selects (an apply
// configuration and a JSON patch); malformed and unauthorized requests
// are refused with kube's messages.
func TestKubectlMutatingAdmissionPolicy(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: v1
kind: Namespace
metadata: {name: mutated, labels: {mutate: "yes"}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: replicas.example.com}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], resources: [deployments], operations: [CREATE, UPDATE]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{annotations: {"mutated-by": "admission-policy"}}, spec: Object.spec{replicas: 1337}}'
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/labels/replicas", value: string(object.spec.replicas)}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: replicas-binding.example.com}
spec:
  policyName: replicas.example.com
  matchResources: {namespaceSelector: {matchLabels: {mutate: "yes"}}}
`, "apply", "-f", "-")
	assert.Regexp(t, `NAME\s+MUTATIONS\s+PARAMKIND\s+AGE\nreplicas.example.com\s+2\s+<unset>\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "mutatingadmissionpolicies"))
	assert.Regexp(t, `NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nreplicas-binding.example.com\s+replicas.example.com\s+<unset>\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "mutatingadmissionpolicybindings"))
	assert.Equal(t, "Fail Equivalent", mustKubectl(t, c.admin, "", "get", "mutatingadmissionpolicy", "replicas.example.com", "-o",
		"jsonpath={.spec.failurePolicy} {.spec.matchConstraints.matchPolicy}"), "defaults")

	// The policy applies once the server's caches have it.
	var out string
	require.Eventually(t, func() bool {
		_, _, _ = kubectl(t, c.admin, "", "delete", "deployment", "web", "-n", "mutated", "--ignore-not-found")
		out = mustKubectl(t, c.admin, "", "create", "deployment", "web", "-n", "mutated", "--image=nginx", "--replicas=1", "-o",
			"jsonpath={.spec.replicas} {.metadata.annotations.mutated-by} {.metadata.labels.replicas}")
		return out != "1  "
	}, 30*time.Second, 200*time.Millisecond)
	assert.Equal(t, "1337 admission-policy 1337", out)
	assert.Equal(t, "1", mustKubectl(t, c.admin, "", "create", "deployment", "web", "-n", "default", "--image=nginx", "--replicas=1", "-o",
		"jsonpath={.spec.replicas}"), "namespace not selected by the binding")

	tests := []struct {
		name, kubeconfig, stdin string
		args                    []string
		want                    []string
	}{
		{"malformed policy", c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: bad}
spec:
  reinvocationPolicy: Sometimes
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], resources: [deployments], operations: [DELETE]}]
  mutations:
  - patchType: JSONPatch
    applyConfiguration: {expression: 'Object{'}
`, []string{"create", "-f", "-"}, []string{`The MutatingAdmissionPolicy "bad" is invalid`,
			`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE"`,
			"spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
			"spec.mutations[0].applyConfiguration: Invalid value: \"{applyConfiguration}\": must not be specified when patchType is JSONPatch",
			`spec.reinvocationPolicy: Unsupported value: "Sometimes"`}},
		{"expression does not compile", c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: bad}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], resources: [deployments], operations: [CREATE]}]
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{'}}]
`, []string{"create", "-f", "-"}, []string{"spec.mutations[0].applyConfiguration.expression: Invalid value", "compilation failed"}},
		{"binding without policy", c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: bad}
spec: {}
`, []string{"create", "-f", "-"}, []string{"spec.policyName: Required value"}},
		{"unauthorized", c.dev, "", []string{"get", "mutatingadmissionpolicies"},
			[]string{`User "dev" cannot list resource "mutatingadmissionpolicies" in API group "admissionregistration.k8s.io" at the cluster scope`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, tt.kubeconfig, tt.stdin, tt.args...)
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}
