package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlStorageClass: storage.k8s.io/v1 StorageClasses through the
// real kubectl — discovery (short name sc), kube's table with the
// "(default)" marker and defaults, kube's validation messages on create
// and update, and RBAC for a user without rights.
func TestKubectlStorageClass(t *testing.T) {
	c := startCluster(t)
	assert.Regexp(t, `storageclasses\s+sc\s+storage.k8s.io/v1\s+false\s+StorageClass`,
		mustKubectl(t, c.admin, "", "api-resources", "--api-group=storage.k8s.io"))
	assert.Contains(t, mustKubectl(t, c.admin, "", "explain", "storageclass.volumeBindingMode"),
		"VolumeBindingMode is when claims are bound; default Immediate.")
	mustKubectl(t, c.admin, `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: orkit.io/local-path
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: slow}
provisioner: example.com/nfs
reclaimPolicy: Retain
parameters: {server: nfs.example.com}
`, "apply", "-f", "-")
	assert.Regexp(t, `NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n`+
		`fast \(default\)\s+orkit.io/local-path\s+Delete\s+WaitForFirstConsumer\s+true\s+\d+s\n`+
		`slow\s+example.com/nfs\s+Retain\s+Immediate\s+false\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "sc"))

	// A claim naming no class gets the default one (DefaultStorageClass admission).
	mustKubectl(t, c.admin, `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`, "apply", "-f", "-")
	assert.Equal(t, "fast", mustKubectl(t, c.admin, "", "get", "pvc", "data", "-o", "jsonpath={.spec.storageClassName}"))

	_, errOut, err := kubectl(t, c.admin, `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: bad}
provisioner: "not a provisioner!"
reclaimPolicy: Recycle
volumeBindingMode: Later
parameters: {"": x}
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The StorageClass "bad" is invalid`, `provisioner: Invalid value: "not a provisioner!"`,
		`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
		`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`,
		`parameters: Invalid value: "": field can not be empty.`} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.admin, "", "patch", "sc", "slow", "-p", `{"reclaimPolicy":"Delete","provisioner":"example.com/other","parameters":{"server":"b"}}`)
	require.Error(t, err)
	for _, want := range []string{"reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
		"provisioner: Forbidden: updates to provisioner are forbidden.", "parameters: Forbidden: updates to parameters are forbidden."} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.admin, "", "patch", "sc", "fast", "-p", `{"volumeBindingMode":"Immediate"}`)
	require.Error(t, err)
	assert.Contains(t, errOut, "volumeBindingMode: Invalid value: \"Immediate\": field is immutable")
	// Annotations may change: the default moves.
	mustKubectl(t, c.admin, "", "annotate", "sc", "fast", "storageclass.kubernetes.io/is-default-class-")
	assert.NotContains(t, mustKubectl(t, c.admin, "", "get", "sc"), "(default)")

	_, errOut, err = kubectl(t, c.dev, "", "get", "sc")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope`)
}

// TestKubectlCSINode: storage.k8s.io/v1 CSINodes are served as in
// Kubernetes (discovery, table, validation, RBAC) for the clients and
// conformance specs that look for them; orkit runs no CSI drivers.
func TestKubectlCSINode(t *testing.T) {
	c := startCluster(t)
	assert.Regexp(t, `csinodes\s+storage.k8s.io/v1\s+false\s+CSINode`,
		mustKubectl(t, c.admin, "", "api-resources", "--api-group=storage.k8s.io"))
	mustKubectl(t, c.admin, `
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers:
  - {name: csi.example.com, nodeID: n-1, topologyKeys: [topology.example.com/zone], allocatable: {count: 16}}
`, "apply", "-f", "-")
	assert.Regexp(t, `NAME\s+DRIVERS\s+AGE\nnode-1\s+1\s+\d+s`, mustKubectl(t, c.admin, "", "get", "csinodes"))
	assert.Equal(t, "16", mustKubectl(t, c.admin, "", "get", "csinode", "node-1", "-o", "jsonpath={.spec.drivers[0].allocatable.count}"))

	for name, tc := range map[string]struct{ body, want string }{
		"duplicate driver": {`{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n2"},"spec":{"drivers":[{"name":"d","nodeID":"1","topologyKeys":null},{"name":"d","nodeID":"2","topologyKeys":null}]}}`, "Duplicate value"},
		"no node ID":       {`{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n3"},"spec":{"drivers":[{"name":"d","nodeID":"","topologyKeys":null}]}}`, "spec.drivers[0].nodeID: Required value"},
		"malformed":        {`{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n4"},"spec":{"drivers":"x"}}`, "cannot unmarshal"},
	} {
		t.Run(name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, tc.body, "create", "-f", "-")
			require.Error(t, err)
			assert.Contains(t, errOut, tc.want)
		})
	}
	// A driver keeps its node ID.
	_, errOut, err := kubectl(t, c.admin, "", "patch", "csinode", "node-1", "--type=json", `-p=[{"op":"replace","path":"/spec/drivers/0/nodeID","value":"other"}]`)
	require.Error(t, err)
	assert.Contains(t, errOut, "field is immutable")
	_, errOut, err = kubectl(t, c.dev, "", "get", "csinodes")
	require.Error(t, err)
	assert.Contains(t, errOut, "forbidden")
}
