package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// kubectlOK runs kubectl with kubeconfig and returns its output, failing
// the test on error.
func kubectlOK(ctx context.Context, t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// eventuallyKubectl polls kubectl until its output matches re, failing
// with the last output after d.
func eventuallyKubectl(ctx context.Context, t *testing.T, d time.Duration, kubeconfig string, re string, args ...string) string {
	t.Helper()
	deadline := time.Now().Add(d)
	rx := regexp.MustCompile(re)
	for {
		out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err == nil && rx.Match(out) {
			return string(out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s: no match for %q after %v; last output (err %v):\n%s", strings.Join(args, " "), re, d, err, out)
		}
		time.Sleep(200 * time.Millisecond) // polling an external command: nothing to wait on
	}
}

const webAutoscaled = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: orkit.local/hello:v1
        resources: {requests: {cpu: 100m, memory: 64Mi}}
`

// TestKubectlTopAndAutoscale: on simulated nodes reporting synthetic
// usage, the metrics server registered through API aggregation answers
// `kubectl top node` and `kubectl top pod`, and `kubectl autoscale`
// scales a Deployment up when its pods' CPU rises above the target, with
// `kubectl get hpa` showing the utilization (issue 19 item 2).
func TestKubectlTopAndAutoscale(t *testing.T) {
	requireKubectl(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := &syncBuffer{}
	c, err := startCluster(ctx, options{DataDir: t.TempDir(), Listen: freeAddr(t), Nodes: 0, SimNodes: 2, Out: out,
		HPASyncPeriod: 500 * time.Millisecond, MetricResolution: 300 * time.Millisecond})
	require.NoError(t, err, out.String())
	defer c.Close()
	kc := c.cp.AdminKubeconfig
	waitNodes(ctx, t, c.admin, 2)
	eventuallyKubectl(ctx, t, 30*time.Second, kc, `v1beta1.metrics.k8s.io\s+kube-system/metrics-server\s+True`, "get", "apiservice")

	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(webAutoscaled)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	eventuallyKubectl(ctx, t, 60*time.Second, kc, `Running`, "get", "pods", "-l", "app=web")
	kubectlOK(ctx, t, kc, "annotate", "pods", "-l", "app=web", "sim.orkit.io/cpu=20m", "sim.orkit.io/memory=32Mi")

	eventuallyKubectl(ctx, t, 30*time.Second, kc, `NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*\nsim-node-\d\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%`, "top", "node")
	eventuallyKubectl(ctx, t, 30*time.Second, kc, `NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nweb-[a-z0-9-]+\s+(19|20|21)m\s+32Mi`, "top", "pod", "-l", "app=web")

	// RBAC: a user with no role is refused the Metrics API; bound to
	// view (which system:aggregated-metrics-reader aggregates into) the
	// same user can `kubectl top pod`.
	viewer := filepath.Join(t.TempDir(), "viewer.kubeconfig")
	require.NoError(t, c.cp.WriteKubeconfig(viewer, "viewer"))
	b, err = exec.CommandContext(ctx, "kubectl", "--kubeconfig", viewer, "top", "pod", "-l", "app=web").CombinedOutput()
	require.Error(t, err, string(b))
	require.Contains(t, string(b), `pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "default"`)
	kubectlOK(ctx, t, kc, "create", "rolebinding", "viewer-view", "--clusterrole=view", "--user=viewer", "-n", "default")
	eventuallyKubectl(ctx, t, 30*time.Second, viewer, `NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nweb-[a-z0-9-]+\s+(19|20|21)m\s+32Mi`, "top", "pod", "-l", "app=web")

	require.Contains(t, kubectlOK(ctx, t, kc, "autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5"),
		"horizontalpodautoscaler.autoscaling/web autoscaled")
	eventuallyKubectl(ctx, t, 30*time.Second, kc, `web\s+Deployment/web\s+cpu: (19|20|21)%/50%\s+1\s+5\s+1`, "get", "hpa")

	// Raise the load: 200m on a 100m request is 200% against a 50% target.
	kubectlOK(ctx, t, kc, "annotate", "pods", "-l", "app=web", "--overwrite", "sim.orkit.io/cpu=200m")
	eventuallyKubectl(ctx, t, 60*time.Second, kc, `^[2-5]$`, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")
	hpa := eventuallyKubectl(ctx, t, 30*time.Second, kc, `web\s+Deployment/web\s+cpu: \d+%/50%\s+1\s+5\s+[2-5]`, "get", "hpa")
	t.Log(hpa)
	desc := kubectlOK(ctx, t, kc, "describe", "hpa", "web")
	require.Contains(t, desc, "SuccessfulRescale")
	require.Regexp(t, `AbleToScale\s+True`, desc)
	require.Regexp(t, `ScalingActive\s+True\s+ValidMetricFound`, desc)
}
