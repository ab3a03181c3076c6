package informer_test

import (
	"context"
	"fmt"
	"sort"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
)

// staticLW lists fixed pods and then watches quietly until cancelled; a
// real program uses informer.NewListerWatcher over a client.Resource.
type staticLW struct{ pods []*core.Pod }

func (s staticLW) List(context.Context, informer.ListOptions) ([]*core.Pod, string, string, error) {
	return s.pods, "10", "", nil
}

func (s staticLW) Watch(ctx context.Context, _ informer.ListOptions) (<-chan informer.Event[*core.Pod], error) {
	ch := make(chan informer.Event[*core.Pod])
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}

func newPod(ns, name, node string) *core.Pod {
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec:       core.PodSpec{NodeName: node},
	}
}

func ExampleIndexer() {
	ix := informer.NewIndexer(informer.Indexers[*core.Pod]{informer.NodeNameIndex: informer.IndexPodsByNodeName})
	for _, p := range []*core.Pod{newPod("a", "web-1", "node-1"), newPod("a", "web-2", "node-2"), newPod("b", "db", "node-1")} {
		if _, _, err := ix.Put(p); err != nil {
			panic(err)
		}
	}
	keys, _ := ix.IndexKeys(informer.NodeNameIndex, "node-1")
	fmt.Println(keys)
	// Output: [a/web-1 b/db]
}

func ExampleInformer() {
	lw := staticLW{pods: []*core.Pod{newPod("a", "web-1", "node-1"), newPod("a", "web-2", "")}}
	inf := informer.New[*core.Pod](lw, informer.Config[*core.Pod]{
		Name: "pods",
		// Drop what the program does not need before it is cached.
		Transform: func(p *core.Pod) (*core.Pod, error) { p.ManagedFields = nil; return p, nil },
	})
	added := make(chan string, 2)
	inf.AddEventHandler(informer.HandlerFuncs[*core.Pod]{
		AddFunc: func(p *core.Pod, initial bool) { added <- informer.KeyOf(p) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	if !informer.WaitForCacheSync(ctx, inf.HasSynced) {
		panic("not synced")
	}
	got := []string{<-added, <-added}
	sort.Strings(got)
	fmt.Println("handler saw", got)
	pods := inf.Lister().Namespace("a").List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	fmt.Println("pods in a:", len(pods))
	cancel()
	<-done
	fmt.Println("cache after stop:", inf.Indexer().Len())
	// Output:
	// handler saw [a/web-1 a/web-2]
	// pods in a: 2
	// cache after stop: 0
}

func ExampleFactory() {
	f := informer.NewFactory()
	defer f.Shutdown()
	newLW := func() (informer.ListerWatcher[*core.Pod], error) {
		return staticLW{pods: []*core.Pod{newPod("a", "web-1", "")}}, nil
	}
	// Two users ask for pods: they share one informer, one list and watch.
	a, _ := informer.InformerFor(f, "pods", newLW, informer.Config[*core.Pod]{})
	b, _ := informer.InformerFor(f, "pods", newLW, informer.Config[*core.Pod]{})
	fmt.Println("shared:", a == b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx)
	fmt.Println(f.WaitForCacheSync(ctx))
	// Output:
	// shared: true
	// map[pods:true]
}
