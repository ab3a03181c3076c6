package clientgo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/consistencydetector"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestNodeAndDeploymentInformersConverge: shared informers for Nodes
// (cluster-scoped, written through the main resource and the status
// subresource as node agents do) and Deployments (spec and status) sync
// and end up exactly equal to the server's objects after 16 writers'
// creates, updates, status updates and deletes.
func TestNodeAndDeploymentInformersConverge(t *testing.T) {
	restore := consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(true)
	defer restore()
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ensureNamespaces(t, cs)
	ctx := context.Background()
	ws := make([]*objWriter, writers)
	for i := range ws {
		ws[i] = &objWriter{cs: cs, id: i, rnd: rand.New(rand.NewPCG(uint64(i), 20)),
			nodes: map[string]*corev1.Node{}, deps: map[string]*appsv1.Deployment{}}
	}
	runObjWriters(t, ws, 10) // before the informers start

	var log cluster.RequestLog
	cfg := c.RESTConfig()
	cfg.WrapTransport = log.Wrap
	informerCS := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactory(informerCS, 0)
	watchedObjs := []*watched{
		{name: "nodes", inf: factory.Core().V1().Nodes().Informer(), list: func(ctx context.Context) (runtime.Object, error) {
			return cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		}},
		{name: "deployments", inf: factory.Apps().V1().Deployments().Informer(), list: func(ctx context.Context) (runtime.Object, error) {
			return cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
		}},
	}
	for _, w := range watchedObjs {
		w.view = newView()
		_, err := w.inf.AddEventHandler(w.view)
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, w := range watchedObjs {
		require.True(t, cache.WaitForCacheSync(sctx.Done(), w.inf.HasSynced), "%s informer did not sync", w.name)
	}
	runObjWriters(t, ws, 50)
	requireConverged(t, watchedObjs)
	streamed := log.Count(func(r cluster.Request) bool { return r.IsWatch() && r.Query.Get("sendInitialEvents") == "true" })
	t.Logf("WatchListClient=%v; watch-lists %d", watchListUsed(), streamed)
	if watchListUsed() {
		assert.GreaterOrEqual(t, streamed, 2, "each reflector streams its list")
	} else {
		assert.Zero(t, streamed)
	}
}

// objWriter writes its own Nodes and Deployments (so writers never
// conflict).
type objWriter struct {
	cs    kubernetes.Interface
	id    int
	rnd   *rand.Rand
	nodes map[string]*corev1.Node
	deps  map[string]*appsv1.Deployment
}

func runObjWriters(t *testing.T, ws []*objWriter, ops int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(ws))
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ops {
				if err := w.op(i); err != nil {
					errs <- fmt.Errorf("writer %d op %d: %w", w.id, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
}

func (w *objWriter) op(i int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := w.rnd.IntN(4)
	if w.rnd.IntN(2) == 0 {
		return w.node(ctx, fmt.Sprintf("n%d-%d", w.id, k), i)
	}
	return w.deployment(ctx, namespaces[w.id%len(namespaces)], fmt.Sprintf("d%d-%d", w.id, k), i)
}

func (w *objWriter) node(ctx context.Context, name string, i int) error {
	c := w.cs.CoreV1().Nodes()
	cur, ok := w.nodes[name]
	var err error
	switch r := w.rnd.IntN(10); {
	case !ok:
		cur, err = c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"op": fmt.Sprint(i)}},
			Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}}},
			metav1.CreateOptions{})
		w.nodes[name] = cur
	case r < 3:
		next := cur.DeepCopy()
		next.Labels["op"] = fmt.Sprint(i)
		cur, err = c.Update(ctx, next, metav1.UpdateOptions{})
		w.nodes[name] = cur
	case r < 7:
		next := cur.DeepCopy()
		next.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
		next.Status.Conditions[0].Message = fmt.Sprint("op ", i)
		cur, err = c.UpdateStatus(ctx, next, metav1.UpdateOptions{})
		w.nodes[name] = cur
	default:
		err = c.Delete(ctx, name, metav1.DeleteOptions{})
		delete(w.nodes, name)
	}
	return err
}

func (w *objWriter) deployment(ctx context.Context, ns, name string, i int) error {
	c := w.cs.AppsV1().Deployments(ns)
	cur, ok := w.deps[name]
	var err error
	labels := map[string]string{"app": name}
	switch r := w.rnd.IntN(10); {
	case !ok:
		cur, err = c.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "app:1"}}}}}}, metav1.CreateOptions{})
		w.deps[name] = cur
	case r < 4:
		next := cur.DeepCopy()
		next.Spec.Replicas = ptr.To(int32(i % 5))
		cur, err = c.Update(ctx, next, metav1.UpdateOptions{})
		w.deps[name] = cur
	case r < 7:
		next := cur.DeepCopy()
		next.Status.ObservedGeneration = next.Generation
		next.Status.Replicas = int32(i % 5)
		cur, err = c.UpdateStatus(ctx, next, metav1.UpdateOptions{})
		w.deps[name] = cur
	default:
		err = c.Delete(ctx, name, metav1.DeleteOptions{})
		delete(w.deps, name)
	}
	return err
}
