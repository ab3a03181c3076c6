package clientgo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestNodeRegisteredWithStatus: a node agent written with client-go (as
// kwok and virtual-kubelet are) creates its Node with capacity,
// allocatable, conditions and addresses in one request; orkit keeps them,
// as Kubernetes does, and leaves the Node without a generation.
func TestNodeRegisteredWithStatus(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "fake-1", Labels: map[string]string{"type": "kwok"}},
		Status: corev1.NodeStatus{
			Capacity: res, Allocatable: res,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}},
			NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.37.0-fake"},
		},
	}
	created, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	require.NoError(t, err)
	got, err := cs.CoreV1().Nodes().Get(ctx, "fake-1", metav1.GetOptions{})
	require.NoError(t, err)
	for _, n := range []*corev1.Node{created, got} {
		assert.Equal(t, "110", n.Status.Allocatable.Pods().String())
		assert.Equal(t, "32Gi", n.Status.Capacity.Memory().String())
		require.Len(t, n.Status.Conditions, 1)
		assert.Equal(t, corev1.ConditionTrue, n.Status.Conditions[0].Status)
		assert.Equal(t, "10.0.0.7", n.Status.Addresses[0].Address)
		assert.Equal(t, "v1.37.0-fake", n.Status.NodeInfo.KubeletVersion)
		assert.Zero(t, n.Generation)
	}

	// A later update through the main resource leaves the status alone.
	got.Labels["zone"] = "a"
	got.Status.Conditions = nil
	updated, err := cs.CoreV1().Nodes().Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Len(t, updated.Status.Conditions, 1)

	svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Zero(t, svc.Generation, "Kubernetes gives Services no generation")
}
