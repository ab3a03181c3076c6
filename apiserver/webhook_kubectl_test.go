package apiserver_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/webhooktest"
)

// webhookYAML is a configuration of kind with one webhook named name,
// reached at clientConfig (YAML flow map), for pod creates, plus extra
// webhook fields (YAML lines at the webhook's indentation).
func webhookYAML(kind, cfgName, name, clientConfig, extra string) string {
	return fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: %s}
webhooks:
- name: %s
  clientConfig: %s
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
%s`, kind, cfgName, name, clientConfig, extra)
}

func urlClientConfig(s *webhooktest.Server, path string) string {
	return fmt.Sprintf("{url: %q, caBundle: %s}", s.URL+path, base64.StdEncoding.EncodeToString(s.CABundle))
}

// kubectlUntil runs kubectl until check accepts its stderr (the watch cache
// of configurations catches up with a create a moment later), failing
// after a deadline.
func kubectlUntil(t *testing.T, kubeconfig, stdin string, check func(out, errOut string, err error) bool, args ...string) (string, string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, errOut, err := kubectl(t, kubeconfig, stdin, args...)
		if check(out, errOut, err) {
			return out, errOut
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %v: never as expected; last stdout %q stderr %q err %v", args, out, errOut, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestKubectlValidatingWebhook: a real TLS webhook on 127.0.0.1 (CA from
// pki) denies a pod with its message, admits another with a warning, is
// called on server-side dry runs (sideEffects None), and the request
// carries the user and the object.
func TestKubectlValidatingWebhook(t *testing.T) {
	c := startCluster(t)
	hook := webhooktest.Start(t, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		if strings.HasPrefix(req.Name, "bad") {
			return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: 403, Message: "pods named bad* are not allowed (user " + req.UserInfo.Username + ")"}}
		}
		return &admissionreview.AdmissionResponse{Allowed: true, Warnings: []string{"pod " + req.Name + " looked at by the webhook"}}
	})
	out := mustKubectl(t, c.admin, webhookYAML("ValidatingWebhookConfiguration", "policy", "deny-bad.example.com", urlClientConfig(hook, "/validate"), ""), "apply", "-f", "-")
	assert.Contains(t, out, "validatingwebhookconfiguration.admissionregistration.k8s.io/policy created")

	want := `admission webhook "deny-bad.example.com" denied the request: pods named bad* are not allowed (user admin)`
	_, errOut := kubectlUntil(t, c.admin, "", func(_, errOut string, err error) bool {
		return err != nil && strings.Contains(errOut, "denied the request")
	},
		"run", "bad-pod", "--image=orkit.local/hello:v1")
	assert.Contains(t, errOut, want)
	_, errOut = mustKubectlErr(t, c.admin, "run", "good-pod", "--image=orkit.local/hello:v1")
	assert.Contains(t, errOut, "Warning: pod good-pod looked at by the webhook")
	_, _, err := kubectl(t, c.admin, "", "run", "bad-dry", "--image=orkit.local/hello:v1", "--dry-run=server")
	require.Error(t, err, "the webhook is called on dry runs")

	assert.Regexp(t, `NAME\s+WEBHOOKS\s+AGE\npolicy\s+1\s+\d+s`, mustKubectl(t, c.admin, "", "get", "validatingwebhookconfigurations"))
	assert.Equal(t, "Fail Equivalent 10 *", mustKubectl(t, c.admin, "", "get", "validatingwebhookconfiguration", "policy", "-o",
		"jsonpath={.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].timeoutSeconds} {.webhooks[0].rules[0].scope}"), "v1 defaults")
}

// mustKubectlErr runs a kubectl command that must succeed and returns its
// stdout and stderr (for warnings).
func mustKubectlErr(t *testing.T, kubeconfig string, args ...string) (string, string) {
	t.Helper()
	out, errOut, err := kubectl(t, kubeconfig, "", args...)
	require.NoError(t, err, "kubectl %v: %s", args, errOut)
	return out, errOut
}

// TestKubectlMutatingWebhook: a mutating webhook reached through a
// selector-less Service and its EndpointSlice (TLS server name
// hook.default.svc) adds a label with a JSONPatch.
func TestKubectlMutatingWebhook(t *testing.T) {
	c := startCluster(t)
	hook := webhooktest.Start(t, webhooktest.Patch(`[{"op":"add","path":"/metadata/labels/mutated-by","value":"webhook"}]`), "hook.default.svc")
	mustKubectl(t, c.admin, fmt.Sprintf(`
apiVersion: v1
kind: Service
metadata: {name: hook, namespace: default}
spec:
  ports: [{name: https, port: 443}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: hook-1
  namespace: default
  labels: {kubernetes.io/service-name: hook}
addressType: IPv4
ports: [{name: https, port: %d}]
endpoints: [{addresses: [127.0.0.1]}]
`, hook.Port), "apply", "-f", "-")
	cc := fmt.Sprintf("{service: {namespace: default, name: hook, path: /mutate}, caBundle: %s}", base64.StdEncoding.EncodeToString(hook.CABundle))
	mustKubectl(t, c.admin, webhookYAML("MutatingWebhookConfiguration", "labeler", "labeler.example.com", cc, "  reinvocationPolicy: IfNeeded"), "apply", "-f", "-")

	kubectlUntil(t, c.admin, "", func(out, _ string, err error) bool { return err == nil && out == "webhook" },
		"run", "p1", "--image=orkit.local/hello:v1", "--dry-run=server", "-o", "jsonpath={.metadata.labels.mutated-by}")
	mustKubectl(t, c.admin, "", "run", "p2", "--image=orkit.local/hello:v1")
	assert.Equal(t, "webhook p2", mustKubectl(t, c.admin, "", "get", "pod", "p2", "-o", "jsonpath={.metadata.labels.mutated-by} {.metadata.labels.run}"))
	assert.Regexp(t, `NAME\s+WEBHOOKS\s+AGE\nlabeler\s+1\s+\d+s`, mustKubectl(t, c.admin, "", "get", "mutatingwebhookconfigurations"))
}

// TestKubectlWebhookFailurePolicy: with the webhook down, failurePolicy
// Ignore admits and Fail refuses with kube's "failed calling webhook"
// 500; a webhook slower than its timeoutSeconds fails the same way.
func TestKubectlWebhookFailurePolicy(t *testing.T) {
	c := startCluster(t)
	down := closedPort(t)
	ca := webhooktest.Start(t, webhooktest.Allow).CABundle
	cc := fmt.Sprintf("{url: %q, caBundle: %s}", "https://"+down+"/", base64.StdEncoding.EncodeToString(ca))
	mustKubectl(t, c.admin, webhookYAML("ValidatingWebhookConfiguration", "down", "down.example.com", cc, "  failurePolicy: Ignore"), "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "run", "ignored", "--image=orkit.local/hello:v1")

	mustKubectl(t, c.admin, webhookYAML("ValidatingWebhookConfiguration", "down", "down.example.com", cc, "  failurePolicy: Fail"), "apply", "-f", "-")
	_, errOut := kubectlUntil(t, c.admin, "", func(_, _ string, err error) bool { return err != nil },
		"run", "refused", "--image=orkit.local/hello:v1")
	assert.Contains(t, errOut, `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://`+down+`/?timeout=10s": dial tcp `+down)
	mustKubectl(t, c.admin, "", "delete", "validatingwebhookconfiguration", "down")

	slow := webhooktest.Start(t, func(r *http.Request, _ *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		select { // slower than the 1s timeout, but never outlives the request
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return &admissionreview.AdmissionResponse{Allowed: true}
	})
	mustKubectl(t, c.admin, webhookYAML("ValidatingWebhookConfiguration", "slow", "slow.example.com", urlClientConfig(slow, "/"), "  timeoutSeconds: 1"), "apply", "-f", "-")
	_, errOut = kubectlUntil(t, c.admin, "", func(_, _ string, err error) bool { return err != nil },
		"run", "timed-out", "--image=orkit.local/hello:v1")
	assert.Contains(t, errOut, `failed calling webhook "slow.example.com": failed to call webhook: Post "`+slow.URL+`/?timeout=1s": context deadline exceeded`)
}

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestKubectlWebhookConfigurationInvalid: malformed configurations are
// refused with kube-apiserver's field errors; a user without RBAC on
// admissionregistration.k8s.io cannot create one.
func TestKubectlWebhookConfigurationInvalid(t *testing.T) {
	c := startCluster(t)
	_, errOut, err := kubectl(t, c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bad}
webhooks:
- name: nodots
  clientConfig: {url: "http://example.com/x?a=b"}
  rules: [{operations: [CREATE, "*"], apiGroups: [""], apiVersions: [v1], resources: [pods, "*/*"], scope: Global}]
  timeoutSeconds: 31
  admissionReviewVersions: [v2]
- name: two.example.com
  clientConfig: {service: {namespace: default, name: x, path: "no-slash", port: 70000}, url: "https://x.example.com"}
  sideEffects: Some
  admissionReviewVersions: [v1]
  failurePolicy: Sometimes
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{
		`The ValidatingWebhookConfiguration "bad" is invalid`,
		`webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments separated by dots`,
		`webhooks[0].admissionReviewVersions: Invalid value: [v2]: must include at least one of v1, v1beta1`,
		`webhooks[0].rules[0].operations: Invalid value: [CREATE *]: if '*' is present, must not specify other operations`,
		`webhooks[0].rules[0].resources: Invalid value: [pods */*]: if '*/*' is present, must not specify other resources`,
		`webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`,
		`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`,
		`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`,
		`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
		`webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL`,
		`webhooks[1].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`,
		`webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
		`webhooks[1].clientConfig: Required value: exactly one of url or service is required`,
	} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.dev, webhookYAML("MutatingWebhookConfiguration", "sneaky", "sneaky.example.com", `{url: "https://127.0.0.1:1/"}`, ""), "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot`)
	assert.Contains(t, errOut, `resource "mutatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope`)
}

// TestKubectlMutatingWebhookOnDelete: a mutating webhook registered for
// DELETE is called as kube-apiserver calls it, with no object and the
// stored object as oldObject; its denial blocks `kubectl delete` with its
// message, and a patch it answers with changes nothing (the object is
// deleted as it was).
func TestKubectlMutatingWebhookOnDelete(t *testing.T) {
	c := startCluster(t)
	type seen struct {
		op, name, oldLabel string
		object             bool
	}
	calls := make(chan seen, 16)
	hook := webhooktest.Start(t, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		var old struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(req.OldObject, &old)
		calls <- seen{op: req.Operation, name: req.Name, oldLabel: old.Metadata.Labels["protect"], object: len(req.Object) > 0 && string(req.Object) != "null"}
		if old.Metadata.Labels["protect"] == "yes" {
			return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden, Message: "configmap " + req.Name + " is protected"}}
		}
		pt := admissionreview.PatchTypeJSONPatch
		return &admissionreview.AdmissionResponse{Allowed: true, PatchType: &pt,
			Patch: []byte(`[{"op":"add","path":"/metadata/labels","value":{"patched":"on-delete"}}]`)}
	})
	mustKubectl(t, c.admin, fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: delete-guard}
webhooks:
- name: delete-guard.example.com
  clientConfig: %s
  rules: [{operations: [DELETE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  objectSelector: {matchExpressions: [{key: protect, operator: Exists}]}
  sideEffects: None
  admissionReviewVersions: [v1]
`, urlClientConfig(hook, "/delete")), "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "create", "configmap", "keep")
	mustKubectl(t, c.admin, "", "label", "configmap", "keep", "protect=yes")
	mustKubectl(t, c.admin, "", "create", "configmap", "drop")
	mustKubectl(t, c.admin, "", "label", "configmap", "drop", "protect=no")

	_, errOut := kubectlUntil(t, c.admin, "", func(_, errOut string, err error) bool {
		return err != nil && strings.Contains(errOut, "denied the request")
	}, "delete", "configmap", "keep", "--dry-run=server")
	assert.Contains(t, errOut, `admission webhook "delete-guard.example.com" denied the request: configmap keep is protected`)
	_, errOut, err := kubectl(t, c.admin, "", "delete", "configmap", "keep")
	require.Error(t, err)
	assert.Contains(t, errOut, `admission webhook "delete-guard.example.com" denied the request: configmap keep is protected`)
	assert.Equal(t, "yes", mustKubectl(t, c.admin, "", "get", "configmap", "keep", "-o", "jsonpath={.metadata.labels.protect}"))
	var last seen
	for len(calls) > 0 {
		last = <-calls
	}
	assert.Equal(t, seen{op: "DELETE", name: "keep", oldLabel: "yes"}, last, "DELETE with oldObject and no object")

	assert.Contains(t, mustKubectl(t, c.admin, "", "delete", "configmap", "drop"), `configmap "drop" deleted`)
	_, errOut, err = kubectl(t, c.admin, "", "get", "configmap", "drop")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "drop" not found`)
	// The unlabelled object is outside the objectSelector: no call.
	mustKubectl(t, c.admin, "", "create", "configmap", "plain")
	before := hook.Calls.Load()
	mustKubectl(t, c.admin, "", "delete", "configmap", "plain")
	assert.Equal(t, before, hook.Calls.Load())
}
