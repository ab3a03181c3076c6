package apiserver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlServiceCIDR: the default ServiceCIDR exists and is Ready
// (what the conformance spec gets, also through /status); a user's
// ServiceCIDR loses the status it is created with, gets one only through
// the status subresource, may grow to dual stack but not change its
// ranges; kube's table columns; malformed, conflicting and unauthorized
// requests are refused with kube's messages.
func TestKubectlServiceCIDR(t *testing.T) {
	c := startCluster(t)
	assert.Regexp(t, `NAME\s+CIDRS\s+AGE\nkubernetes\s+10\.96\.0\.0/12\s+\d+s\n`, mustKubectl(t, c.admin, "", "get", "servicecidrs"))
	var status struct {
		Kind     string               `json:"kind"`
		Metadata struct{ UID string } `json:"metadata"`
		Status   struct {
			Conditions []struct{ Type, Status, Reason, Message string } `json:"conditions"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustKubectl(t, c.admin, "", "get", "--raw", "/apis/networking.k8s.io/v1/servicecidrs/kubernetes/status")), &status))
	assert.Equal(t, "ServiceCIDR", status.Kind)
	assert.Equal(t, mustKubectl(t, c.admin, "", "get", "servicecidr", "kubernetes", "-o", "jsonpath={.metadata.uid}"), status.Metadata.UID)
	require.Len(t, status.Status.Conditions, 1)
	assert.Equal(t, struct{ Type, Status, Reason, Message string }{"Ready", "True", "", "Kubernetes default Service CIDR is ready"}, status.Status.Conditions[0])
	mustKubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: extra}
spec: {cidrs: [203.0.113.0/24]}
status:
  conditions: [{type: Ready, status: "True", reason: Faked, message: x, lastTransitionTime: "2026-01-01T00:00:00Z"}]
`, "create", "-f", "-")
	assert.Empty(t, mustKubectl(t, c.admin, "", "get", "servicecidr", "extra", "-o", "jsonpath={.status.conditions}"), "status dropped on create")
	mustKubectl(t, c.admin, "", "patch", "servicecidr", "extra", "--subresource=status", "--type=merge",
		"-p", `{"spec":{"cidrs":["198.51.100.0/24"]},"status":{"conditions":[{"type":"Ready","status":"False","reason":"Terminating","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	mustKubectl(t, c.admin, "", "patch", "servicecidr", "extra", "--type=merge",
		"-p", `{"spec":{"cidrs":["203.0.113.0/24","2001:db8:cb00::/64"]},"status":{"conditions":[]}}`)
	assert.Equal(t, "203.0.113.0/24 2001:db8:cb00::/64|False",
		mustKubectl(t, c.admin, "", "get", "servicecidr", "extra", "-o", `jsonpath={.spec.cidrs[*]}|{.status.conditions[0].status}`),
		"a status update keeps the spec, an update keeps the status")
	assert.Regexp(t, `extra\s+203\.0\.113\.0/24,2001:db8:cb00::/64\s+\d+s`, mustKubectl(t, c.admin, "", "get", "servicecidrs"))

	tests := []struct {
		name, kubeconfig, stdin string
		args                    []string
		want                    []string
	}{
		{"malformed", c.admin, `
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: bad}
spec: {cidrs: [10.0.0.1/8, 10.1.0.0/16]}
`, []string{"create", "-f", "-"}, []string{`The ServiceCIDR "bad" is invalid`,
			`spec.cidrs[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`,
			"may specify no more than one IP for each IP family"}},
		{"no ranges", c.admin, `
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: empty}
`, []string{"create", "-f", "-"}, []string{"spec.cidrs: Required value: at least one CIDR required"}},
		{"ranges are immutable", c.admin, "", []string{"patch", "servicecidr", "kubernetes", "--type=merge", "-p", `{"spec":{"cidrs":["10.0.0.0/16"]}}`},
			[]string{`The ServiceCIDR "kubernetes" is invalid`, `spec.cidrs[0]: Invalid value: "10.0.0.0/16": field is immutable`}},
		{"unauthorized", c.dev, "", []string{"get", "servicecidrs"},
			[]string{`User "dev" cannot list resource "servicecidrs" in API group "networking.k8s.io" at the cluster scope`}},
		{"unauthorized status write", c.dev, "", []string{"patch", "servicecidr", "kubernetes", "--subresource=status", "--type=merge", "-p", `{"status":{}}`},
			[]string{`User "dev" cannot get resource "servicecidrs/status"`}},
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

// TestKubectlIPAddress: the conformance spec's operations (IPv4 and IPv6
// names with a parent, merge patch, update, list and delete by label);
// kube's table; the parent is immutable; names that are not canonical
// addresses, missing parents and unauthorized requests are refused.
func TestKubectlIPAddress(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 255.255.255.255, labels: {type: broadcast}}
spec: {parentRef: {group: mygroup, resource: myresources, namespace: foo, name: bar}}
---
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: "fe80::42:1dff:fe84:f9e2", labels: {type: link-local}}
spec: {parentRef: {resource: services, namespace: default, name: web}}
---
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.96.0.1}
spec: {parentRef: {resource: services, name: cluster-wide}}
`, "create", "-f", "-")
	out := mustKubectl(t, c.admin, "", "get", "ipaddresses")
	assert.Regexp(t, `NAME\s+PARENTREF\n`, out)
	assert.Regexp(t, `255\.255\.255\.255\s+myresources\.mygroup/foo/bar\n`, out)
	assert.Regexp(t, `fe80::42:1dff:fe84:f9e2\s+services/default/web\n`, out)
	assert.Regexp(t, `10\.96\.0\.1\s+services/cluster-wide\n`, out)
	mustKubectl(t, c.admin, "", "annotate", "ip", "255.255.255.255", "patched=true")
	mustKubectl(t, c.admin, "", "patch", "ipaddress", "255.255.255.255", "--type=merge", "-p", `{"metadata":{"annotations":{"updated":"true"}}}`)
	assert.Equal(t, "true true", mustKubectl(t, c.admin, "", "get", "ipaddress", "255.255.255.255", "-o",
		`jsonpath={.metadata.annotations.patched} {.metadata.annotations.updated}`))
	assert.Equal(t, "255.255.255.255", mustKubectl(t, c.admin, "", "get", "ipaddresses", "-l", "type=broadcast", "-o", "jsonpath={.items[*].metadata.name}"))
	mustKubectl(t, c.admin, "", "delete", "ipaddresses", "-l", "type=link-local")
	assert.Equal(t, "10.96.0.1 255.255.255.255", mustKubectl(t, c.admin, "", "get", "ipaddresses", "-o", "jsonpath={.items[*].metadata.name}"))

	tests := []struct {
		name, kubeconfig, stdin string
		args                    []string
		want                    []string
	}{
		{"not canonical", c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: "2001:DB8::1"}
spec: {parentRef: {resource: services, name: a}}
`, []string{"create", "-f", "-"}, []string{`The IPAddress "2001:DB8::1" is invalid`, `metadata.name: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")`}},
		{"not an address", c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: web.example.com}
spec: {parentRef: {resource: services, name: a}}
`, []string{"create", "-f", "-"}, []string{`metadata.name: Invalid value: "web.example.com": must be a valid IP address`}},
		{"no parent", c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.96.0.2}
spec: {}
`, []string{"create", "-f", "-"}, []string{"spec.parentRef: Required value"}},
		{"malformed parent", c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.96.0.3}
spec: {parentRef: {group: Bad_Group, resource: a/b, name: ".."}}
`, []string{"create", "-f", "-"}, []string{`spec.parentRef.group: Invalid value: "Bad_Group"`,
			`spec.parentRef.resource: Invalid value: "a/b": may not contain '/'`, `spec.parentRef.name: Invalid value: "..": may not be '..'`}},
		{"parent is immutable", c.admin, "", []string{"patch", "ipaddress", "10.96.0.1", "--type=merge", "-p", `{"spec":{"parentRef":{"name":"other"}}}`},
			[]string{`The IPAddress "10.96.0.1" is invalid`, "spec.parentRef: Invalid value", "field is immutable"}},
		{"already allocated", c.admin, `
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.96.0.1}
spec: {parentRef: {resource: services, name: b}}
`, []string{"create", "-f", "-"}, []string{`ipaddresses.networking.k8s.io "10.96.0.1" already exists`}},
		{"unauthorized", c.dev, "", []string{"delete", "ipaddress", "10.96.0.1"},
			[]string{`User "dev" cannot delete resource "ipaddresses" in API group "networking.k8s.io" at the cluster scope`}},
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
