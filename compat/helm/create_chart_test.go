package helm_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// webValues turns on what a stock `helm create` chart leaves off:
// autoscaling (an autoscaling/v2 HorizontalPodAutoscaler) and ingress (a
// networking.k8s.io/v1 Ingress), the two that failed against orkit before
// issue 19.
const webValues = `
autoscaling:
  enabled: true
  minReplicas: 2
  maxReplicas: 5
  targetCPUUtilizationPercentage: 70
  targetMemoryUtilizationPercentage: 80
ingress:
  enabled: true
  className: nginx
  annotations:
    example.com/owner: helm-test
  hosts:
  - host: web.example.com
    paths:
    - path: /
      pathType: Prefix
  tls:
  - secretName: web-tls
    hosts: [web.example.com]
`

// TestHelmCreateChartLifecycle: Helm 3 installs a `helm create` chart with
// autoscaling and ingress enabled (waiting until its Deployment is
// available on simulated nodes), upgrades it with new values, rolls back
// to the first revision (the first values are back) and uninstalls it
// (every object and the release records are gone).
func TestHelmCreateChartLifecycle(t *testing.T) {
	c, cs := startCluster(t)
	h := requireHelm(t, c.Kubeconfig())
	ctx := context.Background()
	const ns = "shop"

	h.ok("create", "web")
	values := filepath.Join(h.dir, "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte(webValues), 0o600))
	h.ok("lint", "./web", "-f", values)

	out := h.ok("install", "web", "./web", "-n", ns, "--create-namespace", "-f", values, "--wait", "--timeout", "2m")
	assert.Contains(t, out, "STATUS: deployed")
	assert.Contains(t, out, "REVISION: 1")
	r := h.status("web", ns)
	assert.Equal(t, 1, r.Version)
	assert.Equal(t, "deployed", r.Info.Status)
	checkWeb(t, cs, ns, 5, "web.example.com")
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d.Status.AvailableReplicas, int32(1), "--wait returned with the Deployment available")
	assert.Equal(t, "web", d.Labels["app.kubernetes.io/instance"])
	assert.Equal(t, "Helm", d.Labels["app.kubernetes.io/managed-by"])

	out = h.ok("upgrade", "web", "./web", "-n", ns, "-f", values, "--set", "autoscaling.maxReplicas=7",
		"--set", "ingress.hosts[0].host=shop.example.com", "--wait", "--timeout", "2m")
	assert.Contains(t, out, "REVISION: 2")
	checkWeb(t, cs, ns, 7, "shop.example.com")

	hist := h.ok("history", "web", "-n", ns)
	assert.Regexp(t, `(?m)^1\s.*superseded\s+web-0\.1\.0`, hist)
	assert.Regexp(t, `(?m)^2\s.*deployed\s+web-0\.1\.0`, hist)

	assert.Contains(t, h.ok("rollback", "web", "1", "-n", ns, "--wait", "--timeout", "2m"), "Rollback was a success")
	r = h.status("web", ns)
	assert.Equal(t, 3, r.Version)
	assert.Equal(t, "deployed", r.Info.Status)
	checkWeb(t, cs, ns, 5, "web.example.com")
	assert.Regexp(t, `(?m)^3\s.*deployed\s+web-0\.1\.0\s+\S+\s+Rollback to 1`, h.ok("history", "web", "-n", ns))

	assert.Contains(t, h.ok("uninstall", "web", "-n", ns, "--wait", "--timeout", "2m"), `release "web" uninstalled`)
	for what, get := range map[string]func() error{
		"deployment": func() error { _, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); return err },
		"service":    func() error { _, err := cs.CoreV1().Services(ns).Get(ctx, "web", metav1.GetOptions{}); return err },
		"hpa": func() error {
			_, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
			return err
		},
		"ingress": func() error {
			_, err := cs.NetworkingV1().Ingresses(ns).Get(ctx, "web", metav1.GetOptions{})
			return err
		},
	} {
		assert.True(t, apierrors.IsNotFound(get()), "%s still there after uninstall", what)
	}
	assert.Empty(t, h.ok("list", "-n", ns, "-a", "-q"))
	secrets, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=web"})
	require.NoError(t, err)
	assert.Empty(t, secrets.Items, "the release records are deleted")
}

// checkWeb asserts the chart's HPA and Ingress carry the values given.
func checkWeb(t *testing.T, cs kubernetes.Interface, ns string, maxReplicas int32, host string) {
	t.Helper()
	ctx := context.Background()
	hpa, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Deployment", hpa.Spec.ScaleTargetRef.Kind)
	assert.Equal(t, "web", hpa.Spec.ScaleTargetRef.Name)
	require.NotNil(t, hpa.Spec.MinReplicas)
	assert.Equal(t, int32(2), *hpa.Spec.MinReplicas)
	assert.Equal(t, maxReplicas, hpa.Spec.MaxReplicas)
	targets := map[string]int32{}
	for _, m := range hpa.Spec.Metrics {
		if m.Resource != nil && m.Resource.Target.AverageUtilization != nil {
			targets[string(m.Resource.Name)] = *m.Resource.Target.AverageUtilization
		}
	}
	assert.Equal(t, map[string]int32{"cpu": 70, "memory": 80}, targets)

	ing, err := cs.NetworkingV1().Ingresses(ns).Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, ing.Spec.IngressClassName)
	assert.Equal(t, "nginx", *ing.Spec.IngressClassName)
	assert.Equal(t, "helm-test", ing.Annotations["example.com/owner"])
	require.Len(t, ing.Spec.Rules, 1)
	assert.Equal(t, host, ing.Spec.Rules[0].Host)
	require.Len(t, ing.Spec.Rules[0].HTTP.Paths, 1)
	p := ing.Spec.Rules[0].HTTP.Paths[0]
	assert.Equal(t, "/", p.Path)
	assert.Equal(t, "web", p.Backend.Service.Name)
	assert.Equal(t, int32(80), p.Backend.Service.Port.Number)
	require.Len(t, ing.Spec.TLS, 1)
	assert.Equal(t, "web-tls", ing.Spec.TLS[0].SecretName)
	assert.Equal(t, []string{"web.example.com"}, ing.Spec.TLS[0].Hosts)
}
