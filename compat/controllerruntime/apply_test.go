package controllerruntime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestClientApply: controller-runtime's Client.Apply and
// Status().Apply, the way operators write with server-side apply,
// create, update, take fields with ForceOwnership and write status
// through the status subresource.
func TestClientApply(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cl, err := client.New(c.RESTConfig(), client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	desired := func(replicas int32) *appsv1ac.DeploymentApplyConfiguration {
		return appsv1ac.Deployment("op", "default").WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(replicas).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "op"})).
			WithTemplate(corev1ac.PodTemplateSpec().WithLabels(map[string]string{"app": "op"}).
				WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("registry.example/op:1")))))
	}
	require.NoError(t, cl.Apply(ctx, desired(1), client.FieldOwner("operator")))
	var d appsv1.Deployment
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "op"}, &d))
	assert.Equal(t, int32(1), *d.Spec.Replicas)

	// Someone else applies the replicas; the operator's next apply conflicts
	// unless it forces, as controllers are told to.
	require.NoError(t, cl.Apply(ctx, appsv1ac.Deployment("op", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4)),
		client.FieldOwner("hpa"), client.ForceOwnership))
	err = cl.Apply(ctx, desired(2), client.FieldOwner("operator"))
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "got %v", err)
	require.NoError(t, cl.Apply(ctx, desired(2), client.FieldOwner("operator"), client.ForceOwnership))
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "op"}, &d))
	assert.Equal(t, int32(2), *d.Spec.Replicas)

	// An Apply-based status writer.
	status := appsv1ac.Deployment("op", "default").WithStatus(appsv1ac.DeploymentStatus().WithObservedGeneration(d.Generation).WithReplicas(2))
	require.NoError(t, cl.Status().Apply(ctx, status, client.FieldOwner("operator-status"), client.ForceOwnership))
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "op"}, &d))
	assert.Equal(t, int32(2), d.Status.Replicas)
	var owners []string
	for _, e := range d.ManagedFields {
		owners = append(owners, e.Manager+"/"+string(e.Operation)+"/"+e.Subresource)
	}
	assert.Contains(t, owners, "operator/Apply/")
	assert.Contains(t, owners, "operator-status/Apply/status")
}
