package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// cronTabGVK is the kind of ../../apiserver/testdata/crd/crontab-crd.yaml.
var cronTabGVK = schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}

func newCronTab(ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(cronTabGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// cronTabOperator keeps, for every CronTab, a ConfigMap it owns holding the
// cron spec, and reports the replicas it was asked for in the status
// subresource, as an operator for a CRD does.
type cronTabOperator struct{ c client.Client }

func (r cronTabOperator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ct := newCronTab(req.Namespace, req.Name)
	if err := r.c.Get(ctx, req.NamespacedName, ct); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	spec, _, _ := unstructured.NestedString(ct.Object, "spec", "cronSpec")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ct.GetName(), Namespace: ct.GetNamespace()}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.c, cm, func() error {
		cm.Data = map[string]string{"cronSpec": spec}
		return controllerutil.SetControllerReference(ct, cm, r.c.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	replicas, _, _ := unstructured.NestedInt64(ct.Object, "spec", "replicas")
	if got, _, _ := unstructured.NestedInt64(ct.Object, "status", "replicas"); got == replicas && ct.Object["status"] != nil {
		return ctrl.Result{}, nil
	}
	_ = unstructured.SetNestedField(ct.Object, replicas, "status", "replicas")
	_ = unstructured.SetNestedField(ct.Object, "cron="+ct.GetName(), "status", "selector")
	return ctrl.Result{}, r.c.Status().Update(ctx, ct)
}

// TestOperatorOnCRD: a controller-runtime manager reconciles the custom
// resources of a CRD applied at run time (unstructured, For + Owns on
// ConfigMaps, status through the status subresource); the scale
// subresource, written through controller-runtime's SubResource client,
// changes the spec and the operator follows.
func TestOperatorOnCRD(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	c.ApplyCRD(t, "../../apiserver/testdata/crd/crontab-crd.yaml")
	direct, err := client.New(c.RESTConfig(), client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(i int) {
		ct := newCronTab("default", fmt.Sprintf("ct-%d", i))
		ct.Object["spec"] = map[string]any{"cronSpec": fmt.Sprintf("*/%d * * * *", i+1), "replicas": int64(i % 5)}
		require.NoError(t, direct.Create(ctx, ct))
	}
	for i := range 10 {
		create(i)
	}
	mgr, err := ctrl.NewManager(c.RESTConfig(), ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	require.NoError(t, err)
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).For(newCronTab("", "")).Owns(&corev1.ConfigMap{}).
		Complete(cronTabOperator{c: mgr.GetClient()}))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	for i := 10; i < 20; i++ {
		create(i)
	}
	for i := range 20 {
		waitReplicas(t, direct, fmt.Sprintf("ct-%d", i), int64(i%5))
		var cm corev1.ConfigMap
		require.NoError(t, direct.Get(ctx, types.NamespacedName{Namespace: "default", Name: fmt.Sprintf("ct-%d", i)}, &cm))
		require.Equal(t, fmt.Sprintf("*/%d * * * *", i+1), cm.Data["cronSpec"])
	}

	ct := newCronTab("default", "ct-3")
	require.NoError(t, direct.Get(ctx, client.ObjectKeyFromObject(ct), ct))
	sc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"spec": map[string]any{"replicas": int64(4)}}}
	require.NoError(t, direct.SubResource("scale").Update(ctx, ct, client.WithSubResourceBody(sc)))
	waitReplicas(t, direct, "ct-3", 4)
	scale := &unstructured.Unstructured{}
	scale.SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
	require.NoError(t, direct.SubResource("scale").Get(ctx, ct, scale))
	st, _, _ := unstructured.NestedMap(scale.Object, "status")
	require.Equal(t, map[string]any{"replicas": int64(4), "selector": "cron=ct-3"}, st)

}

// waitReplicas waits until CronTab name reports replicas in its status.
func waitReplicas(t *testing.T, c client.Client, name string, replicas int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ct := newCronTab("default", name)
		require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(ct), ct))
		got, found, _ := unstructured.NestedInt64(ct.Object, "status", "replicas")
		if found && got == replicas {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s: status.replicas %d (found %v), want %d", name, got, found, replicas)
		time.Sleep(20 * time.Millisecond)
	}
}
