package loadgen

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// InformerSync creates cfg.N ConfigMaps (default 10,000) of 1 KiB in a
// namespace of their own, then starts a fresh shared informer on that
// namespace and reports how long it takes to sync (HasSynced, with the
// process's client-go feature gates: WatchList by default) and that it
// holds every object.
func InformerSync(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.REST == nil {
		return nil, fmt.Errorf("%w: no REST config", ErrInvalidConfig)
	}
	n := cfg.N
	if n <= 0 {
		n = 10000
	}
	rc := cfg.restConfig()
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	ns := fmt.Sprintf("%s-sync-%d", cfg.namespace(), time.Now().UnixNano())
	if err := ensureNamespace(ctx, cs, ns); err != nil {
		return nil, err
	}
	if _, _, err := createConfigMaps(ctx, []kubernetes.Interface{cs}, ns, "s", n, cfg.workers()); err != nil {
		return nil, err
	}
	// A client of its own, so the informer's connection is new too.
	ics, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(ics, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	ictx, stop := context.WithCancel(ctx)
	defer func() { stop(); factory.Shutdown() }()
	start := time.Now()
	factory.Start(ictx.Done())
	if !cache.WaitForCacheSync(ictx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("informer did not sync: %w", ctx.Err())
	}
	elapsed := time.Since(start)
	got := len(inf.GetStore().ListKeys())
	if got != n {
		return nil, fmt.Errorf("informer synced with %d objects, want %d", got, n)
	}
	r := newResult("informer-sync")
	r.add("objects", "%d", n)
	r.add("watchlist", "%v", features.FeatureGates().Enabled(features.WatchListClient))
	r.add("seconds", "%.3f", elapsed.Seconds())
	r.add("objects_per_second", "%.0f", float64(n)/elapsed.Seconds())
	return r, nil
}
