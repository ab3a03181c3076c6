package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlFlowControl: kube-apiserver's APF bootstrap objects exist at
// start with kube's table columns; a user's FlowSchema and
// PriorityLevelConfiguration are created with defaults, their status is
// written through the status subresource only; malformed, conflicting
// (the fixed spec of a mandatory object) and unauthorized requests are
// refused with kube's messages.
func TestKubectlFlowControl(t *testing.T) {
	c := startCluster(t)
	assert.Regexp(t, `NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\n`,
		mustKubectl(t, c.admin, "", "get", "flowschemas"))
	out := mustKubectl(t, c.admin, "", "get", "flowschemas", "-o", "name")
	for _, name := range []string{"exempt", "catch-all", "probes", "system-nodes", "system-node-high", "system-leader-election",
		"kube-controller-manager", "kube-scheduler", "kube-system-service-accounts", "service-accounts", "global-default"} {
		assert.Contains(t, out, "flowschema.flowcontrol.apiserver.k8s.io/"+name+"\n")
	}
	assert.Regexp(t, `workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\d+s`, mustKubectl(t, c.admin, "", "get", "prioritylevelconfigurations"))
	assert.Regexp(t, `exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\d+s`, mustKubectl(t, c.admin, "", "get", "prioritylevelconfigurations"))

	mustKubectl(t, c.admin, `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec:
  type: Limited
  limited: {limitResponse: {type: Queue, queuing: {queues: 16}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: batch-jobs}
spec:
  priorityLevelConfiguration: {name: batch}
  rules:
  - subjects: [{kind: Group, group: {name: batch-users}}]
    resourceRules: [{verbs: ["*"], apiGroups: [batch], resources: [jobs], namespaces: ["*"]}]
  distinguisherMethod: {type: ByNamespace}
status:
  conditions: [{type: Dangling, status: "True"}]
`, "apply", "-f", "-")
	assert.Equal(t, "1000 1", mustKubectl(t, c.admin, "", "get", "flowschema", "batch-jobs", "-o", "jsonpath={.spec.matchingPrecedence} {.metadata.generation}"))
	assert.Empty(t, mustKubectl(t, c.admin, "", "get", "flowschema", "batch-jobs", "-o", "jsonpath={.status.conditions}"), "status dropped on create")
	assert.Equal(t, "30 0 16 8 50", mustKubectl(t, c.admin, "", "get", "prioritylevelconfiguration", "batch", "-o",
		"jsonpath={.spec.limited.nominalConcurrencyShares} {.spec.limited.lendablePercent} {.spec.limited.limitResponse.queuing.queues} {.spec.limited.limitResponse.queuing.handSize} {.spec.limited.limitResponse.queuing.queueLengthLimit}"))

	mustKubectl(t, c.admin, "", "patch", "flowschema", "batch-jobs", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Dangling","status":"False","reason":"Found"}]}}`)
	mustKubectl(t, c.admin, "", "patch", "flowschema", "batch-jobs", "--type=merge", "-p", `{"spec":{"matchingPrecedence":900}}`)
	assert.Equal(t, "900 2 False", mustKubectl(t, c.admin, "", "get", "flowschema", "batch-jobs", "-o",
		"jsonpath={.spec.matchingPrecedence} {.metadata.generation} {.status.conditions[0].status}"))
	assert.Regexp(t, `batch-jobs\s+batch\s+900\s+ByNamespace\s+\d+s\s+False`, mustKubectl(t, c.admin, "", "get", "flowschemas"))

	tests := []struct {
		name, kubeconfig, stdin string
		args                    []string
		want                    []string
	}{
		{"malformed", c.admin, `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bad}
spec:
  priorityLevelConfiguration: {name: ""}
  matchingPrecedence: 20000
  rules: [{subjects: [{kind: Robot}], nonResourceRules: [{verbs: [get], nonResourceURLs: [healthz]}]}]
`, []string{"apply", "-f", "-"}, []string{`The FlowSchema "bad" is invalid`, "spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000",
			"spec.priorityLevelConfiguration.name: Required value: must reference a priority level", `spec.rules[0].subjects[0].kind: Unsupported value: "Robot"`,
			`spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`}},
		{"mandatory spec is fixed", c.admin, "", []string{"patch", "prioritylevelconfiguration", "catch-all", "--type=merge", "-p", `{"spec":{"limited":{"nominalConcurrencyShares":50}}}`},
			[]string{`The PriorityLevelConfiguration "catch-all" is invalid`, "spec of 'catch-all' must equal the fixed value"}},
		{"exempt only by name", c.admin, `
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: free-pass}
spec: {type: Exempt}
`, []string{"create", "-f", "-"}, []string{"spec.type: Invalid value: \"Exempt\": must be 'Exempt' if and only if `name` is 'exempt'"}},
		{"unauthorized", c.dev, "", []string{"get", "flowschemas"},
			[]string{`User "dev" cannot list resource "flowschemas" in API group "flowcontrol.apiserver.k8s.io" at the cluster scope`}},
		{"unauthorized status write", c.dev, "", []string{"patch", "prioritylevelconfiguration", "batch", "--subresource=status", "--type=merge", "-p", `{"status":{}}`},
			[]string{`User "dev" cannot get resource "prioritylevelconfigurations/status"`}},
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

// TestKubectlStorageVersionMigration: a migration is created with its
// status dropped; its spec is immutable; malformed and unauthorized
// requests are refused.
func TestKubectlStorageVersionMigration(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: secrets}
spec: {resource: {group: "", resource: secrets}}
status: {resourceVersion: "1"}
`, "apply", "-f", "-")
	assert.Equal(t, "secrets|", mustKubectl(t, c.admin, "", "get", "storageversionmigration", "secrets", "-o", "jsonpath={.spec.resource.resource}|{.status.resourceVersion}"))
	tests := []struct {
		name, kubeconfig, stdin string
		args                    []string
		want                    []string
	}{
		{"spec immutable", c.admin, "", []string{"patch", "storageversionmigration", "secrets", "--type=merge", "-p", `{"spec":{"resource":{"resource":"configmaps"}}}`},
			[]string{`The StorageVersionMigration "secrets" is invalid`, "spec: Invalid value"}},
		{"malformed", c.admin, `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: bad}
spec: {resource: {group: "Not A Group", resource: ""}}
`, []string{"create", "-f", "-"}, []string{"spec.resource.resource: Required value: resource is required to be set", `spec.resource.group: Invalid value: "Not A Group"`}},
		{"malformed status", c.admin, "", []string{"patch", "storageversionmigration", "secrets", "--subresource=status", "--type=merge",
			"-p", `{"status":{"conditions":[{"type":"Running","status":"Maybe","reason":"x"}]}}`},
			[]string{`status.conditions[0].status: Unsupported value: "Maybe"`, "status.conditions[0].lastTransitionTime: Required value"}},
		{"unauthorized", c.dev, "", []string{"delete", "storageversionmigration", "secrets"},
			[]string{`User "dev" cannot delete resource "storageversionmigrations" in API group "storagemigration.k8s.io"`}},
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
