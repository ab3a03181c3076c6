package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// tablesManifest holds one object of each kind whose table is checked.
const tablesManifest = `
apiVersion: v1
kind: Namespace
metadata: {name: tables}
---
apiVersion: v1
kind: Node
metadata: {name: tbl-node, labels: {node-role.kubernetes.io/worker: ""}}
---
apiVersion: v1
kind: Event
metadata: {name: x.1, namespace: tables}
involvedObject: {kind: Pod, name: x, namespace: tables, fieldPath: "spec.containers{web}"}
reason: BackOff
message: Back-off restarting failed container web
type: Warning
source: {component: kubelet, host: tbl-node}
count: 3
firstTimestamp: "2026-01-01T00:00:00Z"
lastTimestamp: "2026-01-01T00:01:00Z"
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: tbl-lease, namespace: tables}
spec: {holderIdentity: me}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abc, namespace: tables, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints:
- addresses: [10.244.0.5]
- addresses: [10.244.0.6]
- addresses: [10.244.0.7]
- addresses: [10.244.0.8]
ports: [{name: http, port: 8080}, {name: all}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: tables}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: tables}
spec: {hard: {pods: "10", limits.cpu: "2"}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: tables}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
`

// TestKubectlTables checks the columns (and their order) that the real
// kubectl prints for the built-in kinds, as kube-apiserver serves them.
func TestKubectlTables(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, tablesManifest, "apply", "-f", "-")
	tests := []struct {
		args []string
		want []string // regular expressions
	}{
		{[]string{"get", "nodes", "tbl-node", "-o", "wide"}, []string{
			`NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME`,
			`tbl-node\s+Unknown\s+worker\s+\d+s`}},
		{[]string{"get", "events", "-n", "tables"}, []string{
			`LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n`,
			`Warning\s+BackOff\s+pod/x\s+Back-off restarting failed container web`}},
		{[]string{"get", "events", "-n", "tables", "-o", "wide"}, []string{
			`LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME`,
			`spec.containers\{web\}\s+kubelet, tbl-node\s+Back-off.*\s+3\s+x\.1`}},
		{[]string{"get", "lease", "-n", "tables"}, []string{`NAME\s+HOLDER\s+AGE`, `tbl-lease\s+me\s+`}},
		{[]string{"get", "endpointslices", "-n", "tables"}, []string{`NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE`,
			`web-abc\s+IPv4\s+8080,<unset>\s+10\.244\.0\.5,10\.244\.0\.6,10\.244\.0\.7 \+ 1 more\.\.\.\s+\d+s`}},
		{[]string{"get", "pvc", "-n", "tables"}, []string{
			`NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE`}},
		{[]string{"get", "quota", "-n", "tables"}, []string{`NAME\s+AGE\s+REQUEST\s+LIMIT`}},
		{[]string{"get", "rolebinding", "rb", "-n", "tables", "-o", "wide"}, []string{
			`NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS`, `rb\s+ClusterRole/view\s+\d+s\s+alice`}},
		{[]string{"get", "clusterrole", "view"}, []string{`NAME\s+CREATED AT`, `view\s+\d{4}-\d\d-\d\dT`}},
		{[]string{"get", "priorityclass"}, []string{
			`NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY`,
			`system-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority`}},
	}
	for _, tc := range tests {
		out := mustKubectl(t, c.admin, "", tc.args...)
		for _, re := range tc.want {
			assert.Regexp(t, re, out, "kubectl %v", tc.args)
		}
	}
}
