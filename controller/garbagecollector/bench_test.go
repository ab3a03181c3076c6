package garbagecollector

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// BenchmarkCascadingDeletion measures, per iteration, the time from
// deleting (in the background) an owner of 1,000 ConfigMaps to the last
// of them gone, through the API server.
func BenchmarkCascadingDeletion(b *testing.B) {
	c := startServer(b)
	gc, err := New(managerFor(b, c), Config{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = gc.Run(ctx) }()
	const n = 1000
	cms := client.For[core.ConfigMap](c, "default")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		owner, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("owner-%d", i)}})
		if err != nil {
			b.Fatal(err)
		}
		no := false
		ref := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: &no}
		createParallel(b, cms, n, func(j int) *core.ConfigMap {
			return &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("dep-%d-%d", i, j), OwnerReferences: []meta.OwnerReference{ref}}}
		})
		wctx, stopWatch := context.WithCancel(ctx)
		watch, err := cms.Watch(wctx, client.ListOptions{ResourceVersion: owner.ResourceVersion})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := cms.Delete(ctx, owner.Name, nil); err != nil {
			b.Fatal(err)
		}
		for gone := 0; gone < n; {
			ev, ok := <-watch
			if !ok {
				b.Fatal("watch ended")
			}
			if ev.Type == meta.Deleted && ev.Object.Name != owner.Name {
				gone++
			}
		}
		b.StopTimer()
		stopWatch()
		b.StartTimer()
	}
	b.ReportMetric(float64(n), "dependents/op")
}

func createParallel(b *testing.B, cms *client.Resource[core.ConfigMap, *core.ConfigMap], n int, mk func(int) *core.ConfigMap) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for j := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := cms.Create(context.Background(), mk(j)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
