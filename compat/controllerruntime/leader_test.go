package controllerruntime_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/orkit/orkit/compat/internal/cluster"
)

const (
	podsAnnotation = "compat.orkit.io/pods"
	nodeNameField  = "spec.nodeName"
)

// podCounter writes on every Node how many pods are bound to it, found
// through a field index on the manager's cache.
type podCounter struct {
	c          client.Client
	reconciles atomic.Int64
}

func (r *podCounter) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.reconciles.Add(1)
	var node corev1.Node
	if err := r.c.Get(ctx, req.NamespacedName, &node); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pods corev1.PodList
	if err := r.c.List(ctx, &pods, client.MatchingFields{nodeNameField: node.Name}); err != nil {
		return ctrl.Result{}, err
	}
	n := strconv.Itoa(len(pods.Items))
	if node.Annotations[podsAnnotation] == n {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(node.DeepCopy())
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[podsAnnotation] = n
	return ctrl.Result{}, r.c.Patch(ctx, &node, patch)
}

// newCountingManager makes a manager with leader election on the Lease
// default/compat-pod-counter and the podCounter controller.
func newCountingManager(t *testing.T, cfg *rest.Config, id string) (ctrl.Manager, *podCounter) {
	t.Helper()
	lease, renew, retry := 2*time.Second, 1500*time.Millisecond, 100*time.Millisecond
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		LeaderElection: true, LeaderElectionID: "compat-pod-counter", LeaderElectionNamespace: "default",
		LeaderElectionResourceLock: "leases", LeaderElectionReleaseOnCancel: true,
		LeaseDuration: &lease, RenewDeadline: &renew, RetryPeriod: &retry,
	})
	require.NoError(t, err)
	require.NoError(t, mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, nodeNameField, func(o client.Object) []string {
		if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
			return []string{n}
		}
		return nil
	}))
	r := &podCounter{c: mgr.GetClient()}
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named("podcounter-"+id).For(&corev1.Node{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
				return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: n}}}
			}
			return nil
		})).Complete(r))
	return mgr, r
}

// startManager runs mgr until the returned stop is called; stop waits
// for Start to return and checks it returned nil.
func startManager(t *testing.T, mgr ctrl.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		require.NoError(t, <-done)
	}
	t.Cleanup(stop)
	return stop
}

// waitAnnotation waits until node carries podsAnnotation = want.
func waitAnnotation(t *testing.T, cs kubernetes.Interface, node, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
		require.NoError(t, err)
		if n.Annotations[podsAnnotation] == want {
			return
		}
		require.False(t, time.Now().After(deadline), "node %s: %s=%q, want %q", node, podsAnnotation, n.Annotations[podsAnnotation], want)
		time.Sleep(20 * time.Millisecond)
	}
}

func createBoundPod(t *testing.T, cs kubernetes.Interface, name, node string) {
	t.Helper()
	_, err := cs.CoreV1().Pods("default").Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "app:1"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// TestManagerLeaderElectionAndFieldIndex: two controller-runtime managers
// with leader election on a Lease; only the leader reconciles, through a
// field index on its cache (pods by spec.nodeName) and a mapped watch;
// when the leader stops it releases the Lease and the other takes over
// and reconciles what changed meanwhile.
func TestManagerLeaderElectionAndFieldIndex(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	for _, n := range []string{"n1", "n2"} {
		_, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	for i := range 3 {
		createBoundPod(t, cs, fmt.Sprint("a-", i), "n1")
	}
	createBoundPod(t, cs, "b-0", "n2")

	first, r1 := newCountingManager(t, c.RESTConfig(), "first")
	stopFirst := startManager(t, first)
	<-first.Elected()
	waitAnnotation(t, cs, "n1", "3")
	waitAnnotation(t, cs, "n2", "1")

	second, r2 := newCountingManager(t, c.RESTConfig(), "second")
	startManager(t, second)
	createBoundPod(t, cs, "b-1", "n2")
	waitAnnotation(t, cs, "n2", "2")
	l, err := cs.CoordinationV1().Leases("default").Get(ctx, "compat-pod-counter", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, l.Spec.HolderIdentity)
	assert.Contains(t, *l.Spec.HolderIdentity, "_", "controller-runtime's identity: host_uuid")
	firstHolder := *l.Spec.HolderIdentity
	assert.Zero(t, r2.reconciles.Load(), "the follower does not reconcile")
	assert.Positive(t, r1.reconciles.Load())

	stopFirst()
	select {
	case <-second.Elected():
	case <-time.After(30 * time.Second):
		t.Fatal("the second manager was never elected after the first released the Lease")
	}
	createBoundPod(t, cs, "a-3", "n1")
	waitAnnotation(t, cs, "n1", "4")
	assert.Positive(t, r2.reconciles.Load())
	l, err = cs.CoordinationV1().Leases("default").Get(ctx, "compat-pod-counter", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, firstHolder, *l.Spec.HolderIdentity)
}
