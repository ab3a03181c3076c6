package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlCSIKinds: storage.k8s.io/v1 CSIDrivers, VolumeAttachments
// (status subresource), VolumeAttributesClasses and CSIStorageCapacities
// through the real kubectl — discovery, kube's tables and defaults,
// kube's validation messages on create and update, malformed bodies, and
// RBAC for a user without rights.
func TestKubectlCSIKinds(t *testing.T) {
	c := startCluster(t)
	resources := mustKubectl(t, c.admin, "", "api-resources", "--api-group=storage.k8s.io")
	for _, re := range []string{`csidrivers\s+storage.k8s.io/v1\s+false\s+CSIDriver`,
		`volumeattachments\s+storage.k8s.io/v1\s+false\s+VolumeAttachment`,
		`volumeattributesclasses\s+vac\s+storage.k8s.io/v1\s+false\s+VolumeAttributesClass`,
		`csistoragecapacities\s+storage.k8s.io/v1\s+true\s+CSIStorageCapacity`} {
		assert.Regexp(t, re, resources)
	}
	mustKubectl(t, c.admin, `
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: inline.csi.example.com}
spec:
  volumeLifecycleModes: [Persistent, Ephemeral]
  tokenRequests: [{audience: vault}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec: {attacher: inline.csi.example.com, nodeName: node-1, source: {persistentVolumeName: pv-1}}
status: {attached: true}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: gold}
driverName: inline.csi.example.com
parameters: {iops: "3000"}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: capacity-1, namespace: default}
storageClassName: fast
capacity: 10Gi
nodeTopology: {matchLabels: {topology.example.com/zone: a}}
`, "create", "-f", "-")
	assert.Regexp(t, `NAME\s+ATTACHREQUIRED\s+PODINFOONMOUNT\s+STORAGECAPACITY\s+TOKENREQUESTS\s+REQUIRESREPUBLISH\s+MODES\s+AGE\n`+
		`inline.csi.example.com\s+true\s+false\s+false\s+vault\s+false\s+Persistent,Ephemeral\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "csidrivers"))
	assert.Equal(t, "ReadWriteOnceWithFSType", mustKubectl(t, c.admin, "", "get", "csidriver", "inline.csi.example.com", "-o", "jsonpath={.spec.fsGroupPolicy}"))
	// A create's status is dropped; the status subresource writes it.
	assert.Regexp(t, `NAME\s+ATTACHER\s+PV\s+NODE\s+ATTACHED\s+AGE\nva-1\s+inline.csi.example.com\s+pv-1\s+node-1\s+false\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "volumeattachments"))
	mustKubectl(t, c.admin, "", "patch", "volumeattachment", "va-1", "--subresource=status", "--type=merge", "-p", `{"status":{"attached":true,"attachmentMetadata":{"k":"v"}}}`)
	assert.Equal(t, "true", mustKubectl(t, c.admin, "", "get", "volumeattachment", "va-1", "-o", "jsonpath={.status.attached}"))
	assert.Regexp(t, `NAME\s+DRIVERNAME\s+AGE\ngold\s+inline.csi.example.com\s+\d+s`, mustKubectl(t, c.admin, "", "get", "vac"))
	assert.Regexp(t, `NAME\s+STORAGECLASSNAME\s+CAPACITY\ncapacity-1\s+fast\s+10Gi`, mustKubectl(t, c.admin, "", "get", "csistoragecapacities", "-n", "default"))

	for name, tc := range map[string]struct {
		body string
		want []string
	}{
		"bad driver": {`{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"d2"},"spec":{"fsGroupPolicy":"Sometimes","tokenRequests":[{"audience":"a"},{"audience":"a"}]}}`,
			[]string{`spec.fsGroupPolicy: Unsupported value: "Sometimes"`, `spec.tokenRequests[1].audience: Duplicate value: "a"`}},
		"attachment without source": {`{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va-2"},"spec":{"attacher":"d","nodeName":"n","source":{}}}`,
			[]string{"spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"}},
		"class without parameters": {`{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttributesClass","metadata":{"name":"silver"},"driverName":""}`,
			[]string{"driverName: Required value", "parameters: Required value: must contain at least one key/value pair"}},
		"negative capacity": {`{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c2","namespace":"default"},"storageClassName":"fast","capacity":"-1"}`,
			[]string{`capacity: Invalid value: "-1": must be greater than or equal to 0`}},
		"malformed": {`{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va-3"},"spec":{"attacher":["d"]}}`,
			[]string{"cannot unmarshal"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, tc.body, "create", "-f", "-")
			require.Error(t, err)
			for _, want := range tc.want {
				assert.Contains(t, errOut, want)
			}
		})
	}

	for name, tc := range map[string]struct{ args []string }{
		"driver attachRequired": {[]string{"patch", "csidriver", "inline.csi.example.com", "-p", `{"spec":{"attachRequired":false}}`}},
		"attachment node":       {[]string{"patch", "volumeattachment", "va-1", "--type=merge", "-p", `{"spec":{"nodeName":"node-2"}}`}},
		"class parameters":      {[]string{"patch", "vac", "gold", "--type=merge", "-p", `{"parameters":{"iops":"4000"}}`}},
		"capacity class":        {[]string{"patch", "csistoragecapacity", "capacity-1", "-n", "default", "--type=merge", "-p", `{"storageClassName":"slow"}`}},
	} {
		t.Run("immutable "+name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, "", tc.args...)
			require.Error(t, err)
			assert.Regexp(t, `field is immutable|updates to parameters are forbidden`, errOut)
		})
	}
	// What may change does.
	mustKubectl(t, c.admin, "", "patch", "csidriver", "inline.csi.example.com", "-p", `{"spec":{"podInfoOnMount":true}}`)
	mustKubectl(t, c.admin, "", "patch", "csistoragecapacity", "capacity-1", "-n", "default", "--type=merge", "-p", `{"capacity":"5Gi"}`)
	assert.Equal(t, "5Gi", mustKubectl(t, c.admin, "", "get", "csistoragecapacity", "capacity-1", "-n", "default", "-o", "jsonpath={.capacity}"))

	for _, res := range []string{"csidrivers", "volumeattachments", "volumeattributesclasses"} {
		_, errOut, err := kubectl(t, c.dev, "", "get", res)
		require.Error(t, err)
		assert.Contains(t, errOut, `cannot list resource "`+res+`" in API group "storage.k8s.io" at the cluster scope`)
	}
}

// TestKubectlPersistentVolumeStatus: a new volume and claim are Pending
// whatever status the client sends (the volume with a phase transition
// time), and their status subresources take patches, as kube-apiserver's.
func TestKubectlPersistentVolumeStatus(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: csi.example.com, volumeHandle: h-1}
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim-1, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: pv-unknown
  resources: {requests: {storage: 1Gi}}
status: {phase: Bound}
`, "create", "-f", "-")
	assert.Equal(t, "Pending", mustKubectl(t, c.admin, "", "get", "pv", "pv-1", "-o", "jsonpath={.status.phase}"))
	assert.NotEmpty(t, mustKubectl(t, c.admin, "", "get", "pv", "pv-1", "-o", "jsonpath={.status.lastPhaseTransitionTime}"))
	assert.Equal(t, "Pending", mustKubectl(t, c.admin, "", "get", "pvc", "claim-1", "-o", "jsonpath={.status.phase}"))

	mustKubectl(t, c.admin, "", "patch", "pv", "pv-1", "--subresource=status", "--type=merge", "-p", `{"status":{"reason":"E2E","message":"patched"}}`)
	assert.Equal(t, "E2E patched", mustKubectl(t, c.admin, "", "get", "pv", "pv-1", "-o", `jsonpath={.status.reason} {.status.message}`))
	mustKubectl(t, c.admin, "", "patch", "pvc", "claim-1", "-n", "default", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"StatusPatched","status":"True","reason":"E2E","message":"patched"}]}}`)
	assert.Equal(t, "StatusPatched", mustKubectl(t, c.admin, "", "get", "pvc", "claim-1", "-o", "jsonpath={.status.conditions[0].type}"))
}
