package podautoscaler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/podautoscaler"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
)

// fakeMetrics reports the same CPU usage (milli-cores) for every pod.
type fakeMetrics struct {
	c     *client.Client
	milli atomic.Int64
}

func (f *fakeMetrics) Name() string { return "fake" }

func (f *fakeMetrics) PodMetrics(ctx context.Context, ns string, sel labels.Selector) ([]metrics.PodMetrics, error) {
	pods, err := client.For[core.Pod](f.c, ns).List(ctx, client.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var out []metrics.PodMetrics
	for _, p := range pods.Items {
		out = append(out, metrics.PodMetrics{ObjectMeta: meta.ObjectMeta{Name: p.Name, Namespace: ns}, Containers: []metrics.ContainerMetrics{
			{Name: "app", Usage: core.ResourceList{core.ResourceCPU: *resource.NewMilliQuantity(f.milli.Load(), resource.DecimalSI)}}}})
	}
	return out, nil
}

// TestAutoscaleDeployment: a Deployment whose pods use twice their CPU
// target scales up to maxReplicas (ScalingLimited TooManyReplicas), and
// back to minReplicas when the usage drops, after the stabilization
// window; status carries the current utilization and the conditions.
func TestAutoscaleDeployment(t *testing.T) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	fm := &fakeMetrics{c: admin}
	fm.milli.Store(100)
	rs, err := replicaset.New(m, replicaset.Config{})
	require.NoError(t, err)
	dep, err := deployment.New(m, deployment.Config{})
	require.NoError(t, err)
	hpa, err := podautoscaler.New(m, podautoscaler.Config{Metrics: fm, SyncPeriod: 100 * time.Millisecond, DownscaleStabilization: time.Second})
	require.NoError(t, err)
	for _, r := range []controller.Runnable{rs, dep, hpa} {
		require.NoError(t, m.Add(r))
	}
	testnode.RunManager(t, m)
	ctx := context.Background()

	one := int32(1)
	labelsWeb := map[string]string{"app": "web"}
	_, err = client.For[apps.Deployment](admin, "default").Create(ctx, &apps.Deployment{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: apps.DeploymentSpec{Replicas: &one, Selector: &meta.LabelSelector{MatchLabels: labelsWeb},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labelsWeb}, Spec: core.PodSpec{Containers: []core.Container{{
				Name: "app", Image: "orkit.local/hello:v1",
				Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("100m")}}}}}}},
	})
	require.NoError(t, err)
	fifty := int32(50)
	hpas := client.For[autoscaling.HorizontalPodAutoscaler](admin, "default")
	_, err = hpas.Create(ctx, &autoscaling.HorizontalPodAutoscaler{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: autoscaling.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscaling.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    &one, MaxReplicas: 5,
			Metrics: []autoscaling.MetricSpec{{Type: autoscaling.ResourceMetricSourceType, Resource: &autoscaling.ResourceMetricSource{
				Name: core.ResourceCPU, Target: autoscaling.MetricTarget{Type: autoscaling.UtilizationMetricType, AverageUtilization: &fifty}}}},
		},
	})
	require.NoError(t, err)

	replicas := func() int32 {
		d, err := client.For[apps.Deployment](admin, "default").Get(ctx, "web")
		if err != nil || d.Spec.Replicas == nil {
			return -1
		}
		return *d.Spec.Replicas
	}
	condition := func(h *autoscaling.HorizontalPodAutoscaler, ty autoscaling.HorizontalPodAutoscalerConditionType) autoscaling.HorizontalPodAutoscalerCondition {
		for _, c := range h.Status.Conditions {
			if c.Type == ty {
				return c
			}
		}
		return autoscaling.HorizontalPodAutoscalerCondition{}
	}
	testnode.Eventually(t, 30*time.Second, func() bool { return replicas() == 5 }, "web scaled up to 5 (has %d)", replicas())
	testnode.Eventually(t, 30*time.Second, func() bool {
		h, err := hpas.Get(ctx, "web")
		if err != nil || len(h.Status.CurrentMetrics) != 1 || h.Status.CurrentMetrics[0].Resource.Current.AverageUtilization == nil {
			return false
		}
		return *h.Status.CurrentMetrics[0].Resource.Current.AverageUtilization == 100 && h.Status.CurrentReplicas == 5 &&
			condition(h, autoscaling.ScalingLimited).Reason == "TooManyReplicas" &&
			condition(h, autoscaling.ScalingActive).Reason == "ValidMetricFound" &&
			condition(h, autoscaling.AbleToScale).Status == meta.ConditionTrue && h.Status.LastScaleTime != nil
	}, "status at 100%% of 5 replicas, limited by maxReplicas")

	fm.milli.Store(10)
	testnode.Eventually(t, 30*time.Second, func() bool { return replicas() == 1 }, "web scaled down to 1 (has %d)", replicas())
}
