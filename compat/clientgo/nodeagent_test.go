package clientgo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/compat/internal/nodeagent"
)

// TestNodeAgentRunsScheduledPods: a kwok-like node agent written with
// client-go registers Nodes with their status and renews their Leases;
// orkit's scheduler binds pods to those Nodes within their allocatable
// resources, and the agent marks them Running. Deleting a pod gracefully
// is finished by the agent, as a kubelet would.
func TestNodeAgentRunsScheduledPods(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Scheduler: true})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	big := nodeagent.New(cs, nodeagent.Config{LeaseInterval: time.Second})
	small := nodeagent.New(cs, nodeagent.Config{LeaseInterval: time.Second, Labels: map[string]string{"size": "small"},
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"),
			corev1.ResourcePods: resource.MustParse("110")}})
	for i := range 2 {
		require.NoError(t, big.Register(ctx, fmt.Sprint("kwok-big-", i)))
	}
	require.NoError(t, small.Register(ctx, "kwok-small"))
	done := make(chan error, 2)
	for _, a := range []*nodeagent.Agent{big, small} {
		go func() { done <- a.Run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		require.NoError(t, <-done)
	})

	// Each pod asks for 600m CPU: the small node (1 CPU) fits one.
	const pods = 8
	for i := range pods {
		_, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("p-", i), Labels: map[string]string{"test": "nodeagent"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "app:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("600m")}}}}}},
			metav1.CreateOptions{})
		require.NoError(t, err)
	}
	running := waitPodsRunning(t, cs, pods)
	perNode := map[string]int{}
	for _, p := range running {
		perNode[p.Spec.NodeName]++
		assert.Equal(t, "10.1.0.1", p.Status.PodIP)
	}
	assert.Equal(t, pods, perNode["kwok-big-0"]+perNode["kwok-big-1"]+perNode["kwok-small"], "%v", perNode)
	assert.LessOrEqual(t, perNode["kwok-small"], 1, "the small node's allocatable CPU fits one pod: %v", perNode)
	// the agents count a start once their status write returns, which may
	// be after the list above saw it
	require.Eventually(t, func() bool { return big.PodsStarted()+small.PodsStarted() == int64(pods) }, 30*time.Second, 20*time.Millisecond,
		"the agents marked every pod Running: %d", big.PodsStarted()+small.PodsStarted())

	// The Nodes kept their status; the Leases are renewed.
	n, err := cs.CoreV1().Nodes().Get(ctx, "kwok-small", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "1", n.Status.Allocatable.Cpu().String())
	first, err := cs.CoordinationV1().Leases("kube-node-lease").Get(ctx, "kwok-big-0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, first.OwnerReferences, 1)
	assert.Equal(t, "Node", first.OwnerReferences[0].Kind)
	deadline := time.Now().Add(30 * time.Second)
	for {
		l, err := cs.CoordinationV1().Leases("kube-node-lease").Get(ctx, "kwok-big-0", metav1.GetOptions{})
		require.NoError(t, err)
		if l.Spec.RenewTime.After(first.Spec.RenewTime.Time) {
			assert.Equal(t, "kwok-big-0", *l.Spec.HolderIdentity)
			break
		}
		require.False(t, time.Now().After(deadline), "the lease of kwok-big-0 was never renewed")
		time.Sleep(50 * time.Millisecond)
	}

	// A graceful delete is finished by the agent: the pod goes away.
	require.NoError(t, cs.CoreV1().Pods("default").Delete(ctx, "p-0", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](30)}))
	deadline = time.Now().Add(30 * time.Second)
	for {
		l, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		if len(l.Items) == pods-1 {
			break
		}
		require.False(t, time.Now().After(deadline), "p-0 was never deleted: the agent did not finish its graceful deletion")
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPodsRunning waits until n pods exist in default, all Running, and
// returns them.
func waitPodsRunning(t *testing.T, cs kubernetes.Interface, n int) []corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{FieldSelector: "status.phase=Running",
			LabelSelector: "test=nodeagent"}) // other tests of the package share the cluster
		require.NoError(t, err)
		if len(l.Items) == n {
			return l.Items
		}
		require.False(t, time.Now().After(deadline), "%d of %d pods Running", len(l.Items), n)
		time.Sleep(50 * time.Millisecond)
	}
}
