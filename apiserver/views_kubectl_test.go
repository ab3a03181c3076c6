package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const eventsV1Manifest = `apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web.1
  namespace: default
eventTime: "2026-11-27T10:00:00.000000Z"
reportingController: example.com/scaler
reportingInstance: scaler-0
action: Scale
reason: ScaledUp
type: Normal
note: scaled to 3
regarding:
  kind: Deployment
  namespace: default
  name: web
`

const hpaV1Manifest = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: default
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  maxReplicas: 4
  targetCPUUtilizationPercentage: 55
`

// TestKubectlEventsV1AndHPAV1: the real kubectl applies and reads
// events.k8s.io/v1 Events and autoscaling/v1 autoscalers, which core/v1
// and autoscaling/v2 show, and explains the events.k8s.io fields.
func TestKubectlEventsV1AndHPAV1(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, eventsV1Manifest, "apply", "-f", "-")
	out := mustKubectl(t, c.admin, "", "get", "events.v1.events.k8s.io", "-n", "default")
	assert.Regexp(t, `LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE`, out)
	assert.Regexp(t, `Normal\s+ScaledUp\s+deployment/web\s+scaled to 3`, out)
	out = mustKubectl(t, c.admin, "", "get", "events.v1.", "-n", "default", "web.1", "-o", "jsonpath={.message}/{.reportingComponent}")
	assert.Equal(t, "scaled to 3/example.com/scaler", out)
	out = mustKubectl(t, c.admin, "", "get", "events.v1.events.k8s.io", "-n", "default", "--field-selector", "regarding.name=web", "-o", "name")
	assert.Equal(t, "event.events.k8s.io/web.1\n", out)
	// kubectl apply again: an unchanged re-apply is a no-op patch through the view.
	out = mustKubectl(t, c.admin, eventsV1Manifest, "apply", "-f", "-")
	assert.Contains(t, out, "unchanged")
	out = mustKubectl(t, c.admin, "", "explain", "events.note", "--api-version=events.k8s.io/v1")
	assert.Contains(t, out, "Note is a human-readable description")
	out = mustKubectl(t, c.admin, "", "explain", "events.note", "--api-version=events.k8s.io/v1", "--output=plaintext-openapiv2")
	assert.Contains(t, out, "Note is a human-readable description", "kubectl explain from /openapi/v2")

	mustKubectl(t, c.admin, hpaV1Manifest, "apply", "-f", "-")
	out = mustKubectl(t, c.admin, "", "get", "horizontalpodautoscalers.v2.autoscaling", "-n", "default", "web", "-o", "jsonpath={.spec.metrics[0].resource.target.averageUtilization}")
	assert.Equal(t, "55", out)
	out = mustKubectl(t, c.admin, "", "get", "horizontalpodautoscalers.v1.autoscaling", "-n", "default", "web", "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}")
	assert.Equal(t, "55", out)
	mustKubectl(t, c.admin, "", "patch", "horizontalpodautoscalers.v1.autoscaling", "-n", "default", "web", "-p", `{"spec":{"targetCPUUtilizationPercentage":65}}`)
	out = mustKubectl(t, c.admin, "", "get", "hpa", "-n", "default")
	assert.Regexp(t, `web\s+Deployment/web\s+cpu: <unknown>/65%\s+1\s+4`, out)
}
