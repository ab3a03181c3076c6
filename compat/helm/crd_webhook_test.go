package helm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/internal/webhooktest"
)

// maxWidgetSize is what the test's webhook allows.
const maxWidgetSize = 10

// widgetSizeReview is the webhook the guard chart registers: it denies a
// Widget whose spec.size is above maxWidgetSize, with a message.
func widgetSizeReview(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
	var w struct {
		Spec struct {
			Size int `json:"size"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(req.Object, &w); err != nil {
		return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusBadRequest, Message: "cannot decode the Widget: " + err.Error()}}
	}
	if w.Spec.Size > maxWidgetSize {
		return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden,
			Message: fmt.Sprintf("widget %s: size %d exceeds the limit of %d", req.Name, w.Spec.Size, maxWidgetSize)}}
	}
	return &admissionreview.AdmissionResponse{Allowed: true}
}

var widgets = schema.GroupVersionResource{Group: "guard.example.com", Version: "v1", Resource: "widgets"}

// TestHelmChartWithCRDAndWebhook: Helm 3 installs a chart that ships a CRD
// (in crds/, installed before the templates) and a
// ValidatingWebhookConfiguration pointing at a webhook server over TLS
// (the test's, with its CA bundle in the chart's values); the chart's own
// Widget passes the webhook, a too large one is denied with the webhook's
// message, through kubectl and through `helm upgrade`, which leaves the
// deployed revision in place. Uninstalling keeps the CRD, as Helm does.
func TestHelmChartWithCRDAndWebhook(t *testing.T) {
	c, _ := startCluster(t)
	h := requireHelm(t, c.Kubeconfig())
	hook := webhooktest.Start(t, widgetSizeReview)
	ctx := context.Background()
	const ns = "guarded"
	chart, err := filepath.Abs("testdata/guard")
	require.NoError(t, err)

	out := h.ok("install", "guard", chart, "-n", ns, "--create-namespace", "--wait", "--timeout", "2m",
		"--set", "webhook.url="+hook.URL+"/validate", "--set", "webhook.caBundle="+base64.StdEncoding.EncodeToString(hook.CABundle))
	assert.Contains(t, out, "STATUS: deployed")

	dc := dynamic.NewForConfigOrDie(c.RESTConfig())
	crd, err := dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
		Get(ctx, "widgets.guard.example.com", metav1.GetOptions{})
	require.NoError(t, err, "the chart's crds/ were installed")
	assert.Equal(t, "Widget", crd.Object["spec"].(map[string]any)["names"].(map[string]any)["kind"])
	w, err := dc.Resource(widgets).Namespace(ns).Get(ctx, "guard-widget", metav1.GetOptions{})
	require.NoError(t, err, "the chart's Widget was created")
	assert.EqualValues(t, 3, w.Object["spec"].(map[string]any)["size"])

	// The webhook is in force once the API server's cache has the
	// configuration: poll a server-side dry run (the webhook has no side
	// effects) until it is denied.
	kc := c.Kubeconfig()
	big := fmt.Sprintf("apiVersion: guard.example.com/v1\nkind: Widget\nmetadata: {name: big, namespace: %s}\nspec: {size: 20}\n", ns)
	want := `admission webhook "size.guard.example.com" denied the request: widget big: size 20 exceeds the limit of 10`
	require.Eventually(t, func() bool {
		_, errOut, err := kubectl(t, kc, big, "create", "--dry-run=server", "-f", "-")
		return err != nil && strings.Contains(errOut, want)
	}, 30*time.Second, 100*time.Millisecond, "the webhook never denied the dry run")
	_, errOut, err := kubectl(t, kc, big, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `Error from server: error when creating "STDIN": `+want)
	_, err = dc.Resource(widgets).Namespace(ns).Get(ctx, "big", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a denied Widget is not stored: %v", err)
	small := strings.ReplaceAll(strings.ReplaceAll(big, "size: 20", "size: 7"), "name: big", "name: small")
	assert.Contains(t, mustKubectl(t, kc, small, "create", "-f", "-"), "widget.guard.example.com/small created")

	// helm upgrade to a size the webhook refuses fails with its message;
	// the first revision stays deployed and the Widget unchanged.
	_, errOut, err = h.run("upgrade", "guard", chart, "-n", ns, "--reuse-values", "--set", "widget.size=50")
	require.Error(t, err)
	assert.Contains(t, errOut, `admission webhook "size.guard.example.com" denied the request: widget guard-widget: size 50 exceeds the limit of 10`)
	assert.Regexp(t, `(?m)^1\s.*deployed\s+guard-0\.1\.0`, h.ok("history", "guard", "-n", ns))
	assert.Regexp(t, `(?m)^2\s.*failed\s+guard-0\.1\.0`, h.ok("history", "guard", "-n", ns))
	w, err = dc.Resource(widgets).Namespace(ns).Get(ctx, "guard-widget", metav1.GetOptions{})
	require.NoError(t, err)
	assert.EqualValues(t, 3, w.Object["spec"].(map[string]any)["size"])
	assert.Positive(t, hook.Calls.Load())

	h.ok("uninstall", "guard", "-n", ns, "--wait", "--timeout", "2m")
	_, err = dc.Resource(widgets).Namespace(ns).Get(ctx, "guard-widget", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the chart's Widget is deleted: %v", err)
	_, err = dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
		Get(ctx, "widgets.guard.example.com", metav1.GetOptions{})
	assert.NoError(t, err, "helm never deletes the CRDs of crds/")
}

// kubectl runs kubectl with stdin and returns stdout, stderr and error.
func kubectl(t *testing.T, kubeconfig, stdin string, args ...string) (string, string, error) {
	t.Helper()
	cluster.RequireKubectl(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// mustKubectl runs kubectl and fails the test if it fails.
func mustKubectl(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := kubectl(t, kubeconfig, stdin, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), errOut)
	return out
}
