package apiserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/internal/webhooktest"
)

// TestKubectlWebhookPatchOfCustomResourcePruned: what a mutating webhook
// adds to a custom resource outside its schema is pruned, as
// kube-apiserver decodes a patched object through the resource's schema;
// what it sets inside the schema is kept.
func TestKubectlWebhookPatchOfCustomResourcePruned(t *testing.T) {
	c := startCluster(t)
	hook := webhooktest.Start(t, webhooktest.Patch(`[
		{"op": "add", "path": "/spec/unknownByTheSchema", "value": "yes"},
		{"op": "replace", "path": "/spec/image", "value": "patched"}]`))
	mustKubectl(t, c.admin, "", "apply", "-f", crdFile("crontab-crd.yaml"))
	mustKubectl(t, c.admin, "", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	mustKubectl(t, c.admin, fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: patcher}
webhooks:
- name: crontabs.example.com
  clientConfig: %s
  rules: [{operations: [CREATE], apiGroups: [stable.example.com], apiVersions: ["*"], resources: [crontabs]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`, urlClientConfig(hook, "/")), "apply", "-f", "-")
	const cronTab = `
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: pruned, namespace: default}
spec: {cronSpec: "* * * * */5", image: img, replicas: 1, maxReplicas: 2}
`
	kubectlUntil(t, c.admin, cronTab, func(_, _ string, err error) bool { return err == nil }, "create", "--dry-run=server", "-f", "-")
	mustKubectl(t, c.admin, cronTab, "create", "-f", "-")
	out := mustKubectl(t, c.admin, "", "get", "crontab", "pruned", "-o", "jsonpath={.spec}")
	assert.JSONEq(t, `{"cronSpec": "* * * * */5", "image": "patched", "replicas": 1, "maxReplicas": 2}`, out)
}
