package clientgo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// namespaces the writers write in (informers watch all namespaces).
var namespaces = []string{"default", "compat"}

// state is a set of objects as key (namespace/name) → resourceVersion.
type state map[string]string

// keyRV returns the key and resourceVersion of an object (or of the last
// state a tombstone carries).
func keyRV(obj any) (string, string) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Key, ""
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetNamespace() + "/" + m.GetName(), m.GetResourceVersion()
}

// view is what an event handler learns: it applies every add, update
// and delete it is given and counts the ones that do not fit what it
// already has (an add of a key it holds, a delete of a key it lacks).
type view struct {
	events     atomic.Int64 // every add, update and delete
	mu         sync.Mutex
	objs       state
	badAdds    int
	badDeletes int
}

func newView() *view { return &view{objs: state{}} }

func (v *view) OnAdd(obj any, _ bool) {
	v.events.Add(1)
	k, rv := keyRV(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.objs[k]; ok {
		v.badAdds++
	}
	v.objs[k] = rv
}

func (v *view) OnUpdate(_, obj any) {
	v.events.Add(1)
	k, rv := keyRV(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.objs[k] = rv
}

func (v *view) OnDelete(obj any) {
	v.events.Add(1)
	k, _ := keyRV(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.objs[k]; !ok {
		v.badDeletes++
	}
	delete(v.objs, k)
}

func (v *view) snapshot() state {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(state, len(v.objs))
	for k, rv := range v.objs {
		out[k] = rv
	}
	return out
}

// waitEvents waits until every informer's handler has been given n more
// events than it had when waitEvents was called.
func waitEvents(t *testing.T, ws []*watched, n int64) {
	t.Helper()
	for _, w := range ws {
		want := w.view.events.Load() + n
		// client-go's reflectors back off up to 30 s between attempts.
		deadline := time.Now().Add(90 * time.Second)
		for w.view.events.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%s informer stalled at %d events, waiting for %d", w.name, w.view.events.Load(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// storeState returns what an informer's store holds.
func storeState(inf cache.SharedIndexInformer) state {
	out := state{}
	for _, obj := range inf.GetStore().List() {
		k, rv := keyRV(obj)
		out[k] = rv
	}
	return out
}

// watched is one shared informer and the view of a handler on it.
type watched struct {
	name string
	inf  cache.SharedIndexInformer
	view *view
	list func(ctx context.Context) (runtime.Object, error)
}

// startInformers starts shared informers for configmaps and pods (all
// namespaces, no resync) on cfg, with a view handler each, and waits until
// they have synced. They stop when the test ends.
func startInformers(t *testing.T, cfg *rest.Config, reader kubernetes.Interface) []*watched {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	factory := informers.NewSharedInformerFactory(cs, 0)
	ws := []*watched{
		{name: "configmaps", inf: factory.Core().V1().ConfigMaps().Informer(), list: func(ctx context.Context) (runtime.Object, error) {
			return reader.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
		}},
		{name: "pods", inf: factory.Core().V1().Pods().Informer(), list: func(ctx context.Context) (runtime.Object, error) {
			return reader.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		}},
	}
	for _, w := range ws {
		w.view = newView()
		_, err := w.inf.AddEventHandler(w.view)
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, w := range ws {
		require.True(t, cache.WaitForCacheSync(ctx.Done(), w.inf.HasSynced), "%s informer did not sync", w.name)
	}
	return ws
}

// serverState reads the objects from the server (a consistent list).
func serverState(t *testing.T, w *watched) state {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := w.list(ctx)
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	out := state{}
	for _, obj := range items {
		k, rv := keyRV(obj)
		out[k] = rv
	}
	return out
}

// diff describes how got differs from want (at most a few keys).
func diff(want, got state) string {
	var d []string
	for k, rv := range want {
		if g, ok := got[k]; !ok {
			d = append(d, "missing "+k)
		} else if g != rv {
			d = append(d, fmt.Sprintf("%s at %s, want %s", k, g, rv))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, "extra "+k)
		}
	}
	sort.Strings(d)
	if len(d) > 8 {
		d = append(d[:8], fmt.Sprintf("... %d more", len(d)-8))
	}
	return strings.Join(d, "; ")
}

// requireConverged waits until every informer's store and handler view
// equal the server's objects exactly, and checks the handlers were never
// given an add of a key they had or a delete of one they lacked.
func requireConverged(t *testing.T, ws []*watched) {
	t.Helper()
	for _, w := range ws {
		var want state
		var why string
		// client-go's reflector backs off between failed list/watch
		// attempts up to a [30 s, 60 s) interval (reflector.go's
		// defaultBackoffMax with jitter 1.0), resetting only after two
		// quiet minutes; the tests that cut connections or restart the
		// server push it there, so an informer may rightly wait a minute
		// before it lists again. The deadline is beyond that.
		deadline := time.Now().Add(90 * time.Second)
		for {
			want = serverState(t, w)
			store, seen := storeState(w.inf), w.view.snapshot()
			ds, dv := diff(want, store), diff(want, seen)
			if ds == "" && dv == "" {
				break
			}
			why = fmt.Sprintf("store: %s | handler: %s", ds, dv)
			if time.Now().After(deadline) {
				t.Fatalf("%s informer did not converge to the server's %d objects: %s", w.name, len(want), why)
			}
			time.Sleep(100 * time.Millisecond)
		}
		w.view.mu.Lock()
		bad := [2]int{w.view.badAdds, w.view.badDeletes}
		w.view.mu.Unlock()
		require.Equal(t, [2]int{0, 0}, bad, "%s: adds of held keys, deletes of unknown keys", w.name)
		t.Logf("%s: informer equals the server's %d objects", w.name, len(want))
	}
}

// writer does random creates, updates and deletes of its own configmaps
// and pods (so writers never conflict), counting each in ops.
type writer struct {
	cs   kubernetes.Interface
	id   int
	keys int
	rnd  *rand.Rand
	cms  map[string]*corev1.ConfigMap
	pods map[string]*corev1.Pod
}

func newWriter(cs kubernetes.Interface, id, keys int) *writer {
	return &writer{cs: cs, id: id, keys: keys, rnd: rand.New(rand.NewPCG(uint64(id), 14)),
		cms: map[string]*corev1.ConfigMap{}, pods: map[string]*corev1.Pod{}}
}

// run does n operations, or fewer if ctx ends (between operations: each
// runs to its end, so the writer always knows what it wrote).
func (w *writer) run(ctx context.Context, n int, ops *atomic.Int64) error {
	for i := 0; i < n && ctx.Err() == nil; i++ {
		err := w.op(i)
		if err != nil {
			return fmt.Errorf("writer %d op %d: %w", w.id, i, err)
		}
		ops.Add(1)
	}
	return nil
}

// op does one random write of the writer's configmaps or pods.
func (w *writer) op(i int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := namespaces[w.id%len(namespaces)]
	k := w.rnd.IntN(w.keys)
	if w.rnd.IntN(2) == 0 {
		return w.configMap(ctx, ns, fmt.Sprintf("w%d-%d", w.id, k), i)
	}
	return w.pod(ctx, ns, fmt.Sprintf("p%d-%d", w.id, k), i)
}

func (w *writer) configMap(ctx context.Context, ns, name string, i int) error {
	c := w.cs.CoreV1().ConfigMaps(ns)
	cur, ok := w.cms[name]
	var err error
	switch {
	case !ok:
		cur, err = c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"writer": fmt.Sprint(w.id)}},
			Data: map[string]string{"op": fmt.Sprint(i)}}, metav1.CreateOptions{})
		w.cms[name] = cur
	case w.rnd.IntN(10) < 6:
		next := cur.DeepCopy()
		next.Data["op"] = fmt.Sprint(i)
		cur, err = c.Update(ctx, next, metav1.UpdateOptions{})
		w.cms[name] = cur
	default:
		err = c.Delete(ctx, name, metav1.DeleteOptions{})
		delete(w.cms, name)
	}
	return err
}

func (w *writer) pod(ctx context.Context, ns, name string, i int) error {
	c := w.cs.CoreV1().Pods(ns)
	cur, ok := w.pods[name]
	var err error
	switch {
	case !ok:
		cur, err = c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"op": fmt.Sprint(i)}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app:1"}}}}, metav1.CreateOptions{})
		w.pods[name] = cur
	case w.rnd.IntN(10) < 6:
		next := cur.DeepCopy()
		next.Labels["op"] = fmt.Sprint(i)
		cur, err = c.Update(ctx, next, metav1.UpdateOptions{})
		w.pods[name] = cur
	default:
		err = c.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		delete(w.pods, name)
	}
	return err
}

// runWriters runs n writers of ops operations each at once and returns
// the first error.
func runWriters(ctx context.Context, ws []*writer, ops int, done *atomic.Int64) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(ws))
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.run(ctx, ops, done); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func newWriters(cs kubernetes.Interface, n, keys int) []*writer {
	ws := make([]*writer, n)
	for i := range ws {
		ws[i] = newWriter(cs, i, keys)
	}
	return ws
}

// ensureNamespaces creates the writers' namespaces that do not exist.
func ensureNamespaces(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	for _, ns := range namespaces {
		_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
}
