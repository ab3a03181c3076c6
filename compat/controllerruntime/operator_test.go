package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/orkit/orkit/compat/internal/cluster"
)

const operatorName = "crontab-operator"

// deploymentOperator runs, for every CronTab, a Deployment it owns with
// the CronTab's replicas, and reports them in the CronTab's status. Both
// writes are server-side applies with forced ownership, as operators
// written with controller-runtime's Apply do: a change someone else makes
// to the fields it owns is taken back on the next reconcile.
type deploymentOperator struct{ c client.Client }

func (r deploymentOperator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ct := newCronTab(req.Namespace, req.Name)
	if err := r.c.Get(ctx, req.NamespacedName, ct); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ct.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	replicas, _, _ := unstructured.NestedInt64(ct.Object, "spec", "replicas")
	labels := map[string]string{"cron": ct.GetName()}
	d := appsv1ac.Deployment(ct.GetName(), ct.GetNamespace()).
		WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion(ct.GetAPIVersion()).WithKind(ct.GetKind()).
			WithName(ct.GetName()).WithUID(ct.GetUID()).WithController(true).WithBlockOwnerDeletion(true)).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(int32(replicas)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
			WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
				WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("cron").WithImage("registry.example/cron:1")))))
	if err := r.c.Apply(ctx, d, client.FieldOwner(operatorName), client.ForceOwnership); err != nil {
		return ctrl.Result{}, err
	}
	status := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ct.GetAPIVersion(), "kind": ct.GetKind(),
		"metadata": map[string]any{"name": ct.GetName(), "namespace": ct.GetNamespace()},
		"status":   map[string]any{"replicas": replicas, "selector": "cron=" + ct.GetName()},
	}}
	return ctrl.Result{}, r.c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(status),
		client.FieldOwner(operatorName), client.ForceOwnership)
}

// TestOperatorOwnsDeployments: a controller-runtime operator for a CRD,
// with Owns on Deployments and an Apply-based status writer, reconciles as
// it would on Kubernetes: it creates the Deployments, takes back a scale
// someone else made, recreates a deleted Deployment; orkit's garbage
// collector deletes the Deployments of a deleted CronTab and a CronTab
// whose owner is deleted; deleting a namespace deletes its CronTabs.
func TestOperatorOwnsDeployments(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: true})
	c.ApplyCRD(t, "../../apiserver/testdata/crd/crontab-crd.yaml")
	direct, err := client.New(c.RESTConfig(), client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ops"}}))
	create := func(ns, name string, replicas int64, owners ...metav1.OwnerReference) {
		t.Helper()
		ct := newCronTab(ns, name)
		ct.Object["spec"] = map[string]any{"cronSpec": "* * * * *", "replicas": replicas}
		ct.SetOwnerReferences(owners)
		require.NoError(t, direct.Create(ctx, ct))
	}
	for i := range 3 {
		create("default", fmt.Sprintf("ct-%d", i), int64(i+1))
	}
	create("ops", "ct-ops", 1)
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
	require.NoError(t, direct.Create(ctx, owner))
	create("default", "ct-owned", 1, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID})

	mgr, err := ctrl.NewManager(c.RESTConfig(), ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	require.NoError(t, err)
	// Controller names are unique per process (they name metrics); -count
	// runs the test again in the same one.
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named("crontab-deployments").
		WithOptions(controller.Options{SkipNameValidation: ptr(true)}).
		For(newCronTab("", "")).Owns(&appsv1.Deployment{}).
		Complete(deploymentOperator{c: mgr.GetClient()}))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})

	key := func(ns, name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	for i := range 3 {
		name := fmt.Sprintf("ct-%d", i)
		waitDeploymentReplicas(t, direct, key("default", name), int32(i+1))
		waitReplicas(t, direct, name, int64(i+1))
	}
	ct := newCronTab("default", "ct-0")
	require.NoError(t, direct.Get(ctx, client.ObjectKeyFromObject(ct), ct))
	var managers []string
	for _, e := range ct.GetManagedFields() {
		managers = append(managers, e.Manager+"/"+string(e.Operation)+"/"+e.Subresource)
	}
	assert.Contains(t, managers, operatorName+"/Apply/status", "status is written with Apply")
	var d appsv1.Deployment
	require.NoError(t, direct.Get(ctx, key("default", "ct-0"), &d))
	require.NotNil(t, metav1.GetControllerOf(&d))
	assert.Equal(t, ct.GetUID(), metav1.GetControllerOf(&d).UID)

	// Someone scales the Deployment: the Owns watch wakes the operator,
	// whose forced apply takes the replicas back.
	base := d.DeepCopy() // a merge patch: the deployment controller writes too
	d.Spec.Replicas = ptr(int32(7))
	require.NoError(t, direct.Patch(ctx, &d, client.MergeFrom(base), client.FieldOwner("someone")))
	waitDeploymentReplicas(t, direct, key("default", "ct-0"), 1)

	// A deleted Deployment is recreated.
	old := d.UID
	require.NoError(t, direct.Delete(ctx, &d))
	pollUntil(t, "ct-0's Deployment recreated", func() bool {
		var got appsv1.Deployment
		return direct.Get(ctx, key("default", "ct-0"), &got) == nil && got.UID != old
	})

	// Garbage collection, both ways: a deleted CronTab takes its
	// Deployment; a CronTab whose owner is deleted goes too.
	waitDeploymentReplicas(t, direct, key("default", "ct-owned"), 1)
	require.NoError(t, direct.Delete(ctx, newCronTab("default", "ct-1")))
	require.NoError(t, direct.Delete(ctx, owner))
	waitGone(t, direct, key("default", "ct-1"), &appsv1.Deployment{})
	waitGone(t, direct, key("default", "ct-owned"), newCronTab("", ""))
	waitGone(t, direct, key("default", "ct-owned"), &appsv1.Deployment{})

	// Deleting a namespace deletes its custom resources, then itself.
	waitDeploymentReplicas(t, direct, key("ops", "ct-ops"), 1)
	require.NoError(t, direct.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ops"}}))
	waitGone(t, direct, key("ops", "ct-ops"), newCronTab("", ""))
	waitGone(t, direct, key("", "ops"), &corev1.Namespace{})
}

func ptr[T any](v T) *T { return &v }

// pollUntil polls cond until it holds, failing after a minute.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "timed out waiting: %s", what)
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDeploymentReplicas waits until Deployment k asks for replicas.
func waitDeploymentReplicas(t *testing.T, c client.Client, k types.NamespacedName, replicas int32) {
	t.Helper()
	pollUntil(t, fmt.Sprintf("Deployment %s with %d replicas", k, replicas), func() bool {
		var d appsv1.Deployment
		return c.Get(context.Background(), k, &d) == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == replicas
	})
}

// waitGone waits until the object of obj's kind at k is gone.
func waitGone(t *testing.T, c client.Client, k types.NamespacedName, obj client.Object) {
	t.Helper()
	pollUntil(t, fmt.Sprintf("%T %s deleted", obj, k), func() bool {
		return apierrors.IsNotFound(c.Get(context.Background(), k, obj))
	})
}
