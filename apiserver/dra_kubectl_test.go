package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlDRA: resource.k8s.io/v1 through the real kubectl —
// discovery, explain, kube's tables, ResourceSlice field selectors,
// validation (CEL selectors, immutable claim spec), the claim status
// subresource, server-side apply, and RBAC for a user without rights.
func TestKubectlDRA(t *testing.T) {
	c := startCluster(t)
	res := mustKubectl(t, c.admin, "", "api-resources", "--api-group=resource.k8s.io")
	for _, re := range []string{
		`deviceclasses\s+resource.k8s.io/v1\s+false\s+DeviceClass`,
		`devicetaintrules\s+resource.k8s.io/v1\s+false\s+DeviceTaintRule`,
		`resourceclaims\s+resource.k8s.io/v1\s+true\s+ResourceClaim`,
		`resourceclaimtemplates\s+resource.k8s.io/v1\s+true\s+ResourceClaimTemplate`,
		`resourceslices\s+resource.k8s.io/v1\s+false\s+ResourceSlice`,
	} {
		assert.Regexp(t, re, res)
	}
	assert.Contains(t, mustKubectl(t, c.admin, "", "explain", "resourceclaim.spec.devices.requests.exactly.allocationMode"),
		"ExactCount (the default) or All")
	mustKubectl(t, c.admin, `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
    capacity: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
`, "apply", "-f", "-")
	assert.Regexp(t, `NAME\s+AGE\ngpu.example.com\s+\d+s`, mustKubectl(t, c.admin, "", "get", "deviceclasses"))
	assert.Equal(t, "1", mustKubectl(t, c.admin, "", "get", "deviceclass", "gpu.example.com", "-o", "jsonpath={.metadata.generation}"))
	assert.Regexp(t, `NAME\s+NODE\s+DRIVER\s+POOL\s+AGE\nnode-1-gpus\s+node-1\s+gpu.example.com\s+node-1\s+\d+s\n`,
		mustKubectl(t, c.admin, "", "get", "resourceslices", "--field-selector=spec.nodeName=node-1"))
	assert.Equal(t, "node-2-gpus", mustKubectl(t, c.admin, "", "get", "resourceslices",
		"--field-selector=spec.driver=gpu.example.com,spec.nodeName!=node-1", "-o", "jsonpath={.items[*].metadata.name}"))
	assert.Regexp(t, `NAME\s+STATE\s+AGE\ngpu\s+pending\s+\d+s`, mustKubectl(t, c.admin, "", "get", "resourceclaims"))
	assert.Equal(t, "ExactCount 1", mustKubectl(t, c.admin, "", "get", "resourceclaim", "gpu",
		"-o", "jsonpath={.spec.devices.requests[0].exactly.allocationMode} {.spec.devices.requests[0].exactly.count}"))
	assert.Contains(t, mustKubectl(t, c.admin, "", "describe", "resourceclaim", "gpu"), "Device Class Name:  gpu.example.com")

	// The scheduler's part: allocate through the status subresource, then reserve.
	mustKubectl(t, c.admin, "", "patch", "resourceclaim", "gpu", "--subresource=status", "--type=merge",
		`-p={"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}}}`)
	mustKubectl(t, c.admin, "", "patch", "resourceclaim", "gpu", "--subresource=status", "--type=merge",
		`-p={"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"6e0f1a2b-0000-4000-8000-000000000001"}]}}`)
	assert.Regexp(t, `gpu\s+allocated,reserved\s+\d+s`, mustKubectl(t, c.admin, "", "get", "resourceclaims"))

	for name, tc := range map[string]struct {
		args       []string
		body, want string
	}{
		"bad CEL": {[]string{"create", "-f", "-"}, `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"bad"},"spec":{"selectors":[{"cel":{"expression":"device.driver =="}}]}}`,
			"spec.selectors[0].cel.expression: Invalid value"},
		"CEL not bool": {[]string{"create", "-f", "-"}, `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"bad"},"spec":{"selectors":[{"cel":{"expression":"'x'"}}]}}`,
			"must evaluate to bool"},
		"slice without node": {[]string{"create", "-f", "-"}, `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"bad"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1}}}`,
			"exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"},
		"malformed": {[]string{"create", "-f", "-"}, `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"bad","namespace":"default"},"spec":{"devices":{"requests":"x"}}}`,
			"cannot unmarshal"},
		"claim spec is immutable": {[]string{"patch", "resourceclaim", "gpu", "--type=json", `-p=[{"op":"replace","path":"/spec/devices/requests/0/name","value":"other"}]`}, "",
			"field is immutable"},
		"allocation is immutable": {[]string{"patch", "resourceclaim", "gpu", "--subresource=status", "--type=json", `-p=[{"op":"replace","path":"/status/allocation/devices/results/0/device","value":"gpu-1"}]`}, "",
			"status.allocation: Invalid value"},
		"bad field selector": {[]string{"get", "resourceslices", "--field-selector=spec.devices=x"}, "", "field label not supported: spec.devices"},
	} {
		t.Run(name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, tc.body, tc.args...)
			require.Error(t, err)
			assert.Contains(t, errOut, tc.want)
		})
	}
	// Admin access needs the namespace label.
	admin := `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"debug","namespace":"default"},` +
		`"spec":{"devices":{"requests":[{"name":"all","exactly":{"deviceClassName":"gpu.example.com","adminAccess":true,"allocationMode":"All"}}]}}}`
	_, errOut, err := kubectl(t, c.admin, admin, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace")
	mustKubectl(t, c.admin, "", "label", "namespace", "default", "resource.kubernetes.io/admin-access=true")
	mustKubectl(t, c.admin, admin, "create", "-f", "-")

	_, errOut, err = kubectl(t, c.dev, "", "get", "deviceclasses")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot list resource "deviceclasses" in API group "resource.k8s.io" at the cluster scope`)
}
