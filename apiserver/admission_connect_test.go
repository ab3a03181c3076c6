package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/webhooktest"
)

// TestConnectAdmission: a webhook registered for CONNECT on pods/attach
// and pods/exec is called before the stream reaches the kubelet, with the
// options object (PodAttachOptions, PodExecOptions) as kube-apiserver
// sends it, and its denial stops the stream.
func TestConnectAdmission(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, fmt.Sprintf(streamsRBAC, "get, create"), "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "-n", "team", "patch", "pod", "web", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"Running"}}`)
	reached := stubStreamKubelet(t, c)

	var mu sync.Mutex
	var seen []string
	hook := webhooktest.Start(t, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		var opts struct {
			Kind, APIVersion string
			Container        string `json:"container"`
			Stdin            bool   `json:"stdin"`
		}
		_ = json.Unmarshal(req.Object, &opts)
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s/%s %s %s/%s %s stdin=%v", req.Operation, req.Resource.Resource, req.SubResource,
			req.Kind.Kind, opts.APIVersion, opts.Kind, opts.Container, opts.Stdin))
		mu.Unlock()
		if opts.Container == "app" && opts.Stdin {
			return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden, Message: "no stdin for app"}}
		}
		return &admissionreview.AdmissionResponse{Allowed: true}
	})
	mustKubectl(t, c.admin, fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: connect}
webhooks:
- name: connect.example.com
  clientConfig: %s
  rules: [{operations: [CONNECT], apiGroups: [""], apiVersions: [v1], resources: [pods/attach, pods/exec]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`, urlClientConfig(hook, "/")), "apply", "-f", "-")

	denied := func(_, errOut string, err error) bool {
		return err != nil && strings.Contains(errOut, "no stdin for app")
	}
	_, errOut := kubectlUntil(t, c.admin, "", denied, "-n", "team", "attach", "web", "-c", "app", "-i")
	assert.Contains(t, errOut, `admission webhook "connect.example.com" denied the request: no stdin for app`)
	assert.Empty(t, drain(reached), "a denied attach never reaches the kubelet")

	_, errOut, err := kubectl(t, c.admin, "", "-n", "team", "attach", "web", "-c", "sidecar", "-i")
	require.Error(t, err)
	assert.Contains(t, errOut, "stub node agent: /attach/team/web/sidecar", "an admitted attach is proxied")
	_, errOut, err = kubectl(t, c.admin, "", "-n", "team", "exec", "web", "-c", "app", "-i", "--", "sh")
	require.Error(t, err)
	assert.Contains(t, errOut, "no stdin for app")

	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, seen, "CONNECT pods/attach PodAttachOptions v1/PodAttachOptions app stdin=true")
	assert.Contains(t, seen, "CONNECT pods/attach PodAttachOptions v1/PodAttachOptions sidecar stdin=true")
	assert.Contains(t, seen, "CONNECT pods/exec PodExecOptions v1/PodExecOptions app stdin=true")
}
