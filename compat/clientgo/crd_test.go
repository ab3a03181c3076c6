package clientgo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestDynamicInformerOnCRD: client-go's discovery RESTMapper finds a CRD's
// kind (and short name) once it is established; a dynamic shared
// informer on its custom resources syncs and, under 8 concurrent writers
// creating, updating and deleting them, ends holding exactly the server's
// objects.
func TestDynamicInformerOnCRD(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	c.ApplyCRD(t, "../../apiserver/testdata/crd/crontab-crd.yaml")
	cfg := c.RESTConfig()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "stable.example.com", Kind: "CronTab"}, "v1")
	require.NoError(t, err)
	require.Equal(t, "crontabs", m.Resource.Resource)
	require.Equal(t, "namespace", string(m.Scope.Name()))
	expander := restmapper.NewShortcutExpander(mapper, dc, nil)
	gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: "ct"})
	require.NoError(t, err)
	require.Equal(t, m.Resource, gvr)

	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := factory.ForResource(m.Resource).Informer()
	v := newView()
	_, err = inf.AddEventHandler(v)
	require.NoError(t, err)
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))

	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "compat"}}}
	_, err = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{})
	require.NoError(t, err)
	res := dyn.Resource(m.Resource)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				ns := namespaces[(w+i)%len(namespaces)]
				name := fmt.Sprintf("ct-%d-%d", w, i)
				u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
					"metadata": map[string]any{"name": name}, "spec": map[string]any{"cronSpec": "* * * * *", "replicas": int64(i % 3)}}}
				_, err := res.Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
				if err == nil {
					_, err = res.Namespace(ns).Patch(ctx, name, "application/merge-patch+json", []byte(`{"spec":{"image":"x"}}`), metav1.PatchOptions{})
				}
				if err == nil && i%4 == 0 {
					err = res.Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{})
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()

	list, err := res.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	want := state{}
	for i := range list.Items {
		k, rv := keyRV(&list.Items[i])
		want[k] = rv
	}
	require.Len(t, want, 8*(15-4))
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := storeState(inf)
		if d := diff(want, got); d == "" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the informer's store differs from the server: %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, want, v.snapshot(), "the handler saw what the store holds")
	require.Zero(t, v.badAdds+v.badDeletes)
}
