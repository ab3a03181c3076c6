package namespace_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/namespace"
	"github.com/orkit/orkit/internal/testnode"
)

func TestNamespaceDeletion(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, c, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	nc, err := namespace.New(m, namespace.Config{Recheck: 100 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(nc))
	testnode.RunManager(t, m)
	ctx := context.Background()

	_, err = client.For[core.Namespace](c, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	om := func(n string) meta.ObjectMeta { return meta.ObjectMeta{Name: n, Namespace: "team"} }
	_, err = client.For[core.ConfigMap](c, "team").Create(ctx, &core.ConfigMap{ObjectMeta: om("cfg")})
	require.NoError(t, err)
	_, err = client.For[core.Secret](c, "team").Create(ctx, &core.Secret{ObjectMeta: om("sec")})
	require.NoError(t, err)
	two := int32(2)
	l := map[string]string{"app": "x"}
	_, err = client.For[apps.Deployment](c, "team").Create(ctx, &apps.Deployment{ObjectMeta: om("dep"), Spec: apps.DeploymentSpec{
		Replicas: &two, Selector: &meta.LabelSelector{MatchLabels: l}, Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: l},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}}})
	require.NoError(t, err)
	// A running pod whose deletion the node agent confirms only later.
	pods := client.For[core.Pod](c, "team")
	_, err = pods.Create(ctx, &core.Pod{ObjectMeta: om("pod"), Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p, err := pods.Get(ctx, "pod")
		return err == nil && p.Status.Phase == core.PodRunning
	}, "pod running")

	require.NoError(t, client.For[core.Namespace](c, "").Delete(ctx, "team", nil))
	testnode.Eventually(t, 60*time.Second, func() bool {
		_, err := client.For[core.Namespace](c, "").Get(ctx, "team")
		return apierrors.IsNotFound(err)
	}, "namespace gone")
	for _, check := range []error{
		getErr(client.For[core.ConfigMap](c, "team").Get(ctx, "cfg")),
		getErr(client.For[core.Secret](c, "team").Get(ctx, "sec")),
		getErr(client.For[apps.Deployment](c, "team").Get(ctx, "dep")),
		getErr(pods.Get(ctx, "pod")),
	} {
		assert.True(t, apierrors.IsNotFound(check), "content deleted: %v", check)
	}
	// The default namespace is untouched.
	_, err = client.For[core.Namespace](c, "").Get(ctx, "default")
	assert.NoError(t, err)
}

func getErr[T any](_ T, err error) error { return err }

func TestNewRequiresManager(t *testing.T) {
	_, err := namespace.New(nil, namespace.Config{})
	assert.ErrorIs(t, err, namespace.ErrInvalidConfig)
}

// TestNamespaceWaitsForTerminatingContent: a pod whose node never
// confirms its deletion keeps the namespace Terminating, with the
// NamespaceContentRemaining condition, until it is gone.
func TestNamespaceWaitsForTerminatingContent(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, c, testnode.Config{Nodes: 1})
	ctx := context.Background()
	require.NoError(t, agent.AddNode(ctx, "silent"))
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	nc, err := namespace.New(m, namespace.Config{Recheck: 100 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(nc))
	testnode.RunManager(t, m)

	nss := client.For[core.Namespace](c, "")
	_, err = nss.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "stuck"}})
	require.NoError(t, err)
	pods := client.For[core.Pod](c, "stuck")
	_, err = pods.Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "stuck"},
		Spec: core.PodSpec{NodeName: "silent", Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p, err := pods.Get(ctx, "p")
		return err == nil && p.Status.Phase == core.PodRunning
	}, "pod running")
	require.NoError(t, agent.RemoveNode(ctx, "silent", false)) // the node goes silent

	require.NoError(t, nss.Delete(ctx, "stuck", nil))
	testnode.Eventually(t, 30*time.Second, func() bool {
		ns, err := nss.Get(ctx, "stuck")
		if err != nil {
			return false
		}
		for _, c := range ns.Status.Conditions {
			if c.Type == core.NamespaceContentRemaining && c.Status == meta.ConditionTrue {
				return true
			}
		}
		return false
	}, "NamespaceContentRemaining")
	ns, err := nss.Get(ctx, "stuck")
	require.NoError(t, err)
	assert.Equal(t, core.NamespaceTerminating, ns.Status.Phase)

	zero := int64(0)
	require.NoError(t, pods.Delete(ctx, "p", &meta.DeleteOptions{GracePeriodSeconds: &zero}))
	testnode.Eventually(t, 30*time.Second, func() bool {
		_, err := nss.Get(ctx, "stuck")
		return apierrors.IsNotFound(err)
	}, "namespace gone once the pod is")
}

// TestOrderedNamespaceDeletion follows the conformance spec
// "OrderedNamespaceDeletion namespace deletion should delete pod first":
// while a pod of a terminating namespace is held by a finalizer, nothing
// else in it is deleted, and the namespace carries Kubernetes' deletion
// conditions; once the pod goes, the rest and the namespace follow.
func TestOrderedNamespaceDeletion(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, c, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	nc, err := namespace.New(m, namespace.Config{Recheck: 100 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(nc))
	testnode.RunManager(t, m)
	ctx := context.Background()

	nss := client.For[core.Namespace](c, "")
	_, err = nss.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "ordered"}})
	require.NoError(t, err)
	pods, cms := client.For[core.Pod](c, "ordered"), client.For[core.ConfigMap](c, "ordered")
	_, err = pods.Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ordered", Finalizers: []string{"example.com/hold"}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p, err := pods.Get(ctx, "p")
		return err == nil && p.Status.Phase == core.PodRunning
	}, "pod running")
	_, err = cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "cfg", Namespace: "ordered"}})
	require.NoError(t, err)

	require.NoError(t, nss.Delete(ctx, "ordered", nil))
	want := []struct {
		t       core.NamespaceConditionType
		status  meta.ConditionStatus
		message string
	}{
		{core.NamespaceDeletionDiscoveryFailure, meta.ConditionFalse, "All resources successfully discovered"},
		{core.NamespaceDeletionGVParsingFailure, meta.ConditionFalse, "All legacy kube types successfully parsed"},
		{core.NamespaceDeletionContentFailure, meta.ConditionFalse, "All content successfully deleted, may be waiting on finalization"},
		{core.NamespaceContentRemaining, meta.ConditionTrue, "Some resources are remaining: pods. has 1 resource instances"},
		{core.NamespaceFinalizersRemaining, meta.ConditionTrue, "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"},
	}
	var ns *core.Namespace
	testnode.Eventually(t, 30*time.Second, func() bool {
		ns, err = nss.Get(ctx, "ordered")
		return err == nil && len(ns.Status.Conditions) == len(want)
	}, "deletion conditions recorded")
	for _, w := range want {
		i := slices.IndexFunc(ns.Status.Conditions, func(c core.NamespaceCondition) bool { return c.Type == w.t })
		require.GreaterOrEqual(t, i, 0, "condition %s", w.t)
		assert.Equal(t, w.status, ns.Status.Conditions[i].Status, "%s", w.t)
		assert.Equal(t, w.message, ns.Status.Conditions[i].Message, "%s", w.t)
	}
	p, err := pods.Get(ctx, "p")
	require.NoError(t, err)
	assert.NotNil(t, p.DeletionTimestamp, "the pod is being deleted")
	_, err = cms.Get(ctx, "cfg")
	require.NoError(t, err, "nothing else is deleted while a pod is left")

	p.Finalizers = nil
	_, err = pods.Update(ctx, p)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		_, err := nss.Get(ctx, "ordered")
		return apierrors.IsNotFound(err)
	}, "namespace gone once the pod is")
	_, err = cms.Get(ctx, "cfg")
	assert.True(t, apierrors.IsNotFound(err), "the rest deleted: %v", err)
}
