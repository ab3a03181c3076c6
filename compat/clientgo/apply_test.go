package clientgo_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// webDeployment is alice's apply configuration of a Deployment.
func webDeployment(replicas int32) *appsv1ac.DeploymentApplyConfiguration {
	return appsv1ac.Deployment("web", "default").
		WithLabels(map[string]string{"app": "web"}).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(replicas).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(map[string]string{"app": "web"}).
				WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().
					WithName("web").WithImage("registry.example/web:1").
					WithPorts(corev1ac.ContainerPort().WithContainerPort(8080)).
					WithEnv(corev1ac.EnvVar().WithName("MODE").WithValue("prod"))))))
}

// TestTypedApply: client-go's typed Apply creates and updates, a second
// field manager gets a 409 Conflict with FieldManagerConflict causes,
// Force takes the field over, and client-go's Extract functions read
// back exactly what a manager applied from orkit's managedFields.
func TestTypedApply(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deps := cs.AppsV1().Deployments("default")

	out, err := deps.Apply(ctx, webDeployment(2), metav1.ApplyOptions{FieldManager: "alice"})
	require.NoError(t, err)
	assert.Equal(t, int32(2), *out.Spec.Replicas)
	require.NotEmpty(t, out.ManagedFields)
	assert.Equal(t, "alice", out.ManagedFields[0].Manager)
	assert.Equal(t, metav1.ManagedFieldsOperationApply, out.ManagedFields[0].Operation)

	extracted, err := appsv1ac.ExtractDeployment(out, "alice")
	require.NoError(t, err)
	assert.Equal(t, webDeployment(2).Spec, extracted.Spec, "Extract returns what alice applied")

	bob := appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(5))
	_, err = deps.Apply(ctx, bob, metav1.ApplyOptions{FieldManager: "bob"})
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "got %v", err)
	var st apierrors.APIStatus
	require.ErrorAs(t, err, &st)
	require.NotNil(t, st.Status().Details)
	require.Len(t, st.Status().Details.Causes, 1)
	assert.Equal(t, metav1.CauseTypeFieldManagerConflict, st.Status().Details.Causes[0].Type)
	assert.Equal(t, ".spec.replicas", st.Status().Details.Causes[0].Field)
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`, st.Status().Message)

	out, err = deps.Apply(ctx, bob, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	require.NoError(t, err)
	assert.Equal(t, int32(5), *out.Spec.Replicas)
	assert.Len(t, out.Spec.Template.Spec.Containers, 1, "bob's apply keeps alice's containers")
	extracted, err = appsv1ac.ExtractDeployment(out, "alice")
	require.NoError(t, err)
	assert.Nil(t, extracted.Spec.Replicas, "alice lost the replicas to bob")

	// An Update by a typed client is recorded too.
	cur, err := deps.Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	cur.Spec.Template.Spec.Containers[0].Image = "registry.example/web:2"
	out, err = deps.Update(ctx, cur, metav1.UpdateOptions{FieldManager: "editor"})
	require.NoError(t, err)
	var found bool
	for _, e := range out.ManagedFields {
		if e.Manager == "editor" {
			found = true
			assert.Equal(t, metav1.ManagedFieldsOperationUpdate, e.Operation)
			assert.Equal(t, "apps/v1", e.APIVersion)
		}
	}
	assert.True(t, found, "editor recorded: %+v", out.ManagedFields)

	// ConfigMap: apply creates, and a manager that stops applying a key removes it.
	cms := cs.CoreV1().ConfigMaps("default")
	cm := corev1ac.ConfigMap("settings", "default").WithData(map[string]string{"a": "1", "b": "2"})
	_, err = cms.Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "app"})
	require.NoError(t, err)
	got, err := cms.Apply(ctx, corev1ac.ConfigMap("settings", "default").WithData(map[string]string{"a": "1"}), metav1.ApplyOptions{FieldManager: "app"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "1"}, got.Data)

	// Status through ApplyStatus records the subresource.
	st2, err := deps.ApplyStatus(ctx, appsv1ac.Deployment("web", "default").WithStatus(appsv1ac.DeploymentStatus().WithObservedGeneration(7)), metav1.ApplyOptions{FieldManager: "ctrl", Force: true})
	require.NoError(t, err)
	assert.Equal(t, int64(7), st2.Status.ObservedGeneration)
	found = false
	for _, e := range st2.ManagedFields {
		if e.Manager == "ctrl" && e.Subresource == "status" {
			found = true
		}
	}
	assert.True(t, found, "status applier recorded with its subresource: %+v", st2.ManagedFields)
}
