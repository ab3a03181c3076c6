package apiserver_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/internal/webhooktest"
)

// BenchmarkCreateChainWebhook is BenchmarkCreateChain's pod create with
// and without a validating webhook on pod creates (a real TLS server on
// 127.0.0.1 in this process that admits every pod but those named
// probe-*): the difference in ns/op and cpu-us/op is the webhook's
// overhead per request through the whole server.
func BenchmarkCreateChainWebhook(b *testing.B) {
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"app":"sim"}},"spec":{"terminationGracePeriodSeconds":0,` +
		`"containers":[{"name":"c","image":"orkit.local/pause:v1","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}`
	b.Run("pod", func(b *testing.B) { benchCreate(b, "pods", pod, nil) })
	b.Run("pod+validating-webhook", func(b *testing.B) { benchCreate(b, "pods", pod, installWebhook) })
}

// installWebhook registers a validating webhook for pod creates and waits
// until it acts.
func installWebhook(b *testing.B, cp *controlplane.ControlPlane, admin func() *http.Client) {
	hook := webhooktest.Start(b, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		if strings.HasPrefix(req.Name, "probe-") {
			return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: 403, Message: "probe"}}
		}
		return &admissionreview.AdmissionResponse{Allowed: true}
	})
	cfg := fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"bench"},`+
		`"webhooks":[{"name":"bench.example.com","clientConfig":{"url":%q,"caBundle":%q},`+
		`"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
		hook.URL+"/", base64.StdEncoding.EncodeToString(hook.CABundle))
	c := admin()
	if code := postRaw(b, c, cp.URL+"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", cfg); code != http.StatusCreated {
		b.Fatalf("webhook configuration: %d", code)
	}
	probe := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"probe-1"},"spec":{"containers":[{"name":"c","image":"x"}]}}`
	deadline := time.Now().Add(10 * time.Second)
	for postRaw(b, c, cp.URL+"/api/v1/namespaces/default/pods", probe) != http.StatusForbidden {
		if time.Now().After(deadline) {
			b.Fatal("the webhook does not act after 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
