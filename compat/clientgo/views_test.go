package clientgo_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// nextEvent waits for the next watch event.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.True(t, ok, "watch closed")
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no watch event within 20s")
	}
	return watch.Event{}
}

// TestEventsV1ClientGo: client-go's events.k8s.io/v1 typed client creates,
// lists (with field selectors in that group's names) and watches Events
// that core/v1 clients see, and core/v1 Events are seen through
// events.k8s.io/v1, with Kubernetes' field mapping.
func TestEventsV1ClientGo(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	w, err := cs.EventsV1().Events("default").Watch(ctx, metav1.ListOptions{FieldSelector: "regarding.name=web"})
	require.NoError(t, err)
	defer w.Stop()

	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	made, err := cs.EventsV1().Events("default").Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "web.1"}, EventTime: now,
		ReportingController: "example.com/scaler", ReportingInstance: "scaler-0", Action: "Scale", Reason: "ScaledUp",
		Type: corev1.EventTypeNormal, Note: "scaled to 3",
		Regarding: corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", APIVersion: "apps/v1"},
		Series:    &eventsv1.EventSeries{Count: 2, LastObservedTime: now},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "scaled to 3", made.Note)

	core, err := cs.CoreV1().Events("default").Get(ctx, "web.1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "scaled to 3", core.Message)
	assert.Equal(t, "example.com/scaler", core.ReportingController)
	assert.Equal(t, "web", core.InvolvedObject.Name)
	assert.Equal(t, int32(2), core.Series.Count)
	assert.Equal(t, made.ResourceVersion, core.ResourceVersion)

	ev := nextEvent(t, w)
	assert.Equal(t, watch.Added, ev.Type)
	assert.Equal(t, "web.1", ev.Object.(*eventsv1.Event).Name)

	// A core event, as client-go's old recorder writes it, seen and watched through events.k8s.io/v1.
	_, err = cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.2"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web"},
		Reason:         "Old", Message: "from core", Type: corev1.EventTypeWarning, Count: 4,
		Source:         corev1.EventSource{Component: "legacy"},
		FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(),
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	ev = nextEvent(t, w)
	assert.Equal(t, watch.Added, ev.Type)
	e2 := ev.Object.(*eventsv1.Event)
	assert.Equal(t, "from core", e2.Note)
	assert.Equal(t, int32(4), e2.DeprecatedCount)
	assert.Equal(t, "legacy", e2.DeprecatedSource.Component)

	list, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("regarding.kind", "Deployment"), fields.OneTermEqualSelector("type", "Warning")).String()})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "web.2", list.Items[0].Name)
	list, err = cs.EventsV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reportingController=example.com/scaler"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "web.1", list.Items[0].Name)

	// events.k8s.io's validation: a new event needs reportingController and action.
	_, err = cs.EventsV1().Events("default").Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, EventTime: now,
		Type: corev1.EventTypeNormal, Reason: "R", ReportingInstance: "i"}, metav1.CreateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reportingController: Required value")
	assert.Contains(t, err.Error(), "action: Required value")

	// An update of the series through events.k8s.io/v1 reaches core/v1.
	made.Series = &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))}
	_, err = cs.EventsV1().Events("default").Update(ctx, made, metav1.UpdateOptions{})
	require.NoError(t, err)
	core, err = cs.CoreV1().Events("default").Get(ctx, "web.1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(3), core.Series.Count)
	require.NoError(t, cs.EventsV1().Events("default").Delete(ctx, "web.2", metav1.DeleteOptions{}))
	ev = nextEvent(t, w)
	assert.Equal(t, watch.Modified, ev.Type)
	ev = nextEvent(t, w)
	assert.Equal(t, watch.Deleted, ev.Type)

	// An informer (client-go's reflector: a streamed watch-list) on
	// events.k8s.io/v1 sees an event written through core/v1.
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Events().V1().Events()
	lister := inf.Lister()
	informer := inf.Informer()
	factory.Start(ictx.Done())
	require.True(t, cache.WaitForCacheSync(ictx.Done(), informer.HasSynced))
	got, err := lister.Events("default").Get("web.1")
	require.NoError(t, err)
	assert.Equal(t, int32(3), got.Series.Count)
	_, err = cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.3"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"}, Reason: "Core", Message: "late",
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		e, err := lister.Events("default").Get("web.3")
		return err == nil && e.Note == "late"
	}, 20*time.Second, 50*time.Millisecond)
}

// TestHPAV1ClientGo: client-go's autoscaling/v1 typed client reads,
// lists, watches, updates (status too) and deletes an autoscaler made
// through autoscaling/v2, and the v2-only metrics and behavior survive.
func TestHPAV1ClientGo(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	w, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()

	qps := resource.MustParse("10")
	_, err = cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &qps}}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	h1, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, h1.Spec.TargetCPUUtilizationPercentage)
	assert.Equal(t, int32(50), *h1.Spec.TargetCPUUtilizationPercentage)
	assert.Contains(t, h1.Annotations["autoscaling.alpha.kubernetes.io/metrics"], `"metricName":"qps"`)
	ev := nextEvent(t, w)
	assert.Equal(t, watch.Added, ev.Type)
	assert.IsType(t, &autoscalingv1.HorizontalPodAutoscaler{}, ev.Object)

	list, err := cs.AutoscalingV1().HorizontalPodAutoscalers("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)

	h1.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](70)
	h1.Spec.MaxReplicas = 8
	h1, err = cs.AutoscalingV1().HorizontalPodAutoscalers("default").Update(ctx, h1, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(8), h1.Spec.MaxReplicas)
	h1.Status = autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3, CurrentCPUUtilizationPercentage: ptr.To[int32](65)}
	_, err = cs.AutoscalingV1().HorizontalPodAutoscalers("default").UpdateStatus(ctx, h1, metav1.UpdateOptions{})
	require.NoError(t, err)
	ev = nextEvent(t, w)
	assert.Equal(t, watch.Modified, ev.Type)

	h2, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(8), h2.Spec.MaxReplicas)
	require.Len(t, h2.Spec.Metrics, 2)
	assert.Equal(t, "qps", h2.Spec.Metrics[0].Pods.Metric.Name, "the v2-only metric survived a v1 update")
	assert.Equal(t, int32(70), *h2.Spec.Metrics[1].Resource.Target.AverageUtilization)
	require.NotNil(t, h2.Spec.Behavior)
	assert.Equal(t, int32(60), *h2.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
	assert.Equal(t, int32(3), h2.Status.DesiredReplicas)
	assert.NotContains(t, h2.Annotations, "autoscaling.alpha.kubernetes.io/metrics")

	require.NoError(t, cs.AutoscalingV1().HorizontalPodAutoscalers("default").Delete(ctx, "web", metav1.DeleteOptions{}))
	_, err = cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	assert.Error(t, err)
}

// TestOpenAPISchemaClientGo: client-go's discovery OpenAPISchema (the
// protobuf /openapi/v2) returns a document with the Pod definition, and
// kubectl explain still works.
func TestOpenAPISchemaClientGo(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	doc, err := cs.Discovery().OpenAPISchema()
	require.NoError(t, err)
	assert.Equal(t, "2.0", doc.Swagger)
	var pod bool
	for _, d := range doc.Definitions.AdditionalProperties {
		if d.Name == "io.k8s.api.core.v1.Pod" {
			pod = true
			assert.Contains(t, d.Value.Description, "Pod")
		}
	}
	assert.True(t, pod, "the document has io.k8s.api.core.v1.Pod")

	cluster.RequireKubectl(t)
	for _, args := range [][]string{{"explain", "pods.spec.containers"}, {"explain", "pods.spec.containers", "--output=plaintext-openapiv2"}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", c.Kubeconfig()}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		cancel()
		require.NoError(t, err, "%v: %s", args, out)
		assert.Contains(t, string(out), "KIND:", args)
		assert.True(t, strings.Contains(string(out), "Pod"), "%v: %s", args, out)
	}
}
