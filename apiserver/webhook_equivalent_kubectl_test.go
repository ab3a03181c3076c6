package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/webhooktest"
)

// describeReview denies every request, saying how the webhook saw it: the
// kind it was called for, the kind requested, the object's apiVersion and
// (for HPAs) the v1 CPU target.
func describeReview(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			TargetCPU *int32 `json:"targetCPUUtilizationPercentage"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(req.Object, &obj)
	msg := fmt.Sprintf("called for %s/%s %s, requested as %s/%s, object %s", req.Kind.Group, req.Kind.Version, req.Kind.Kind,
		req.RequestKind.Group, req.RequestKind.Version, obj.APIVersion)
	if obj.Spec.TargetCPU != nil {
		msg += fmt.Sprintf(", targetCPUUtilizationPercentage %d", *obj.Spec.TargetCPU)
	}
	return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden, Message: msg}}
}

// TestKubectlWebhookMatchPolicyEquivalent: a webhook registered for
// stable.example.com/v1 crontabs with matchPolicy Equivalent is called for
// a CronTab created through v1beta1 with the object in v1; with Exact it
// is not. One registered for autoscaling/v1 HPAs is called for an
// autoscaling/v2 HPA with the object converted to v1.
func TestKubectlWebhookMatchPolicyEquivalent(t *testing.T) {
	c := startCluster(t)
	hook := webhooktest.Start(t, describeReview)
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	config := func(policy string) string {
		return fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: versions}
webhooks:
- name: crontabs.example.com
  clientConfig: %s
  matchPolicy: %s
  rules: [{operations: [CREATE], apiGroups: [stable.example.com], apiVersions: [v1], resources: [crontabs]}]
  sideEffects: None
  admissionReviewVersions: [v1]
- name: hpa-v1.example.com
  clientConfig: %[1]s
  matchPolicy: %[2]s
  rules: [{operations: [CREATE], apiGroups: [autoscaling], apiVersions: [v1], resources: [horizontalpodautoscalers]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`, urlClientConfig(hook, "/"), policy)
	}
	mustKubectl(t, c.admin, config("Equivalent"), "apply", "-f", "-")
	const beta = `
apiVersion: stable.example.com/v1beta1
kind: CronTab
metadata: {name: beta, namespace: default}
spec: {cronSpec: "* * * * */5", image: img, replicas: 1, maxReplicas: 2}
`
	denied := func(_, errOut string, err error) bool {
		return err != nil && strings.Contains(errOut, "denied the request")
	}
	_, errOut := kubectlUntil(t, c.admin, beta, denied, "create", "-f", "-")
	assert.Contains(t, errOut, `admission webhook "crontabs.example.com" denied the request: called for stable.example.com/v1 CronTab, requested as stable.example.com/v1beta1, object stable.example.com/v1`)

	const hpa = `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 4
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 65}}}]
`
	_, errOut, err := kubectl(t, c.admin, hpa, "create", "-f", "-")
	assert.Error(t, err)
	assert.Contains(t, errOut, `admission webhook "hpa-v1.example.com" denied the request: called for autoscaling/v1 HorizontalPodAutoscaler, requested as autoscaling/v2, object autoscaling/v1, targetCPUUtilizationPercentage 65`)

	// Exact: neither request matches the v1 rules any more.
	mustKubectl(t, c.admin, config("Exact"), "apply", "-f", "-")
	kubectlUntil(t, c.admin, beta, func(_, _ string, err error) bool { return err == nil }, "create", "--dry-run=server", "-f", "-")
	assert.Contains(t, mustKubectl(t, c.admin, beta, "create", "-f", "-"), "crontab.stable.example.com/beta created")
	assert.Contains(t, mustKubectl(t, c.admin, hpa, "create", "-f", "-"), "horizontalpodautoscaler.autoscaling/web created")
}
