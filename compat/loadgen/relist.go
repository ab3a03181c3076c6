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

// PodRelist starts a fresh shared informer on every pod of the cluster
// (all namespaces, its own client and connection) and reports how long it
// takes to sync: what each of an operator's informers pays when it starts
// or relists after a 410. It creates nothing; cfg.N, when set, is the pod
// count the informer must hold once synced.
func PodRelist(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.REST == nil {
		return nil, fmt.Errorf("%w: no REST config", ErrInvalidConfig)
	}
	cs, err := kubernetes.NewForConfig(cfg.restConfig())
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	ictx, stop := context.WithCancel(ctx)
	defer func() { stop(); factory.Shutdown() }()
	start := time.Now()
	factory.Start(ictx.Done())
	if !cache.WaitForCacheSync(ictx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("informer did not sync: %w", ctx.Err())
	}
	elapsed := time.Since(start)
	got := len(inf.GetStore().ListKeys())
	if cfg.N > 0 && got != cfg.N {
		return nil, fmt.Errorf("informer synced with %d pods, want %d", got, cfg.N)
	}
	r := newResult("pod-relist")
	r.add("pods", "%d", got)
	r.add("watchlist", "%v", features.FeatureGates().Enabled(features.WatchListClient))
	r.add("seconds", "%.3f", elapsed.Seconds())
	r.add("pods_per_second", "%.0f", float64(got)/elapsed.Seconds())
	return r, nil
}
