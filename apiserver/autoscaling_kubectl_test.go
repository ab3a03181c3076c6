package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlHorizontalPodAutoscaler: `kubectl autoscale` (which posts
// autoscaling/v1 in kubectl 1.32) creates an autoscaler read back as v2
// with the CPU target as a Resource metric, kube's table (TARGETS
// "cpu: <unknown>/50%"), a v2 apply with behavior defaults, and kube's
// validation messages and RBAC through kubectl.
func TestKubectlHorizontalPodAutoscaler(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, "", "create", "deployment", "web", "--image=orkit.local/hello:v1")
	out := mustKubectl(t, c.admin, "", "autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5")
	assert.Contains(t, out, "horizontalpodautoscaler.autoscaling/web autoscaled")
	out = mustKubectl(t, c.admin, "", "get", "hpa", "web", "-o",
		"jsonpath={.apiVersion} {.spec.scaleTargetRef.kind}/{.spec.scaleTargetRef.name} {.spec.metrics[0].resource.name} {.spec.metrics[0].resource.target.averageUtilization} {.spec.minReplicas} {.spec.maxReplicas}")
	assert.Equal(t, "autoscaling/v2 Deployment/web cpu 50 1 5", out)
	assert.Regexp(t, `NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment/web\s+cpu: <unknown>/50%\s+1\s+5\s+0\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "hpa"))

	mustKubectl(t, c.admin, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: mem, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
`, "apply", "-f", "-")
	out = mustKubectl(t, c.admin, "", "get", "hpa", "mem", "-o",
		"jsonpath={.spec.minReplicas} {.spec.behavior.scaleUp.policies[0].type} {.spec.behavior.scaleDown.stabilizationWindowSeconds} {.spec.behavior.scaleDown.policies[0].value}")
	assert.Equal(t, "1 Pods 60 100", out)
	assert.Regexp(t, `mem\s+Deployment/web\s+memory: <unknown>/100Mi\s+1\s+3\s+0`, mustKubectl(t, c.admin, "", "get", "hpa"))

	_, errOut, err := kubectl(t, c.admin, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: bad, namespace: default}
spec:
  scaleTargetRef: {kind: Deployment, name: ""}
  minReplicas: 4
  maxReplicas: 2
  metrics:
  - type: Resource
    pods: {metric: {name: x}, target: {type: AverageValue, averageValue: "1"}}
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 0}}
  behavior:
    scaleUp: {stabilizationWindowSeconds: 4000, policies: [{type: Pods, value: 0, periodSeconds: 15}]}
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The HorizontalPodAutoscaler "bad" is invalid`,
		"spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`",
		"spec.scaleTargetRef.name: Required value",
		"spec.metrics[0].pods: Forbidden: must populate the given metric source only",
		"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
		"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
		"spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero"} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.dev, "", "get", "hpa")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot list resource "horizontalpodautoscalers" in API group "autoscaling"`)
}
