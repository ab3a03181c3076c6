package loadgen

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/orkit/orkit/compat/internal/nodeagent"
)

// ScheduleConfig sizes Schedule; zero values are documented.
type ScheduleConfig struct {
	// Config: N is the pod count (default 10,000), Workers the pod
	// writers (default 32).
	Config
	// Nodes is how many Nodes the agent registers; 0 means 5,000.
	Nodes int
	// LeaseInterval is the agent's Lease renewal interval; 0 means 10 s.
	LeaseInterval time.Duration
	// Timeout bounds the wait for every pod to be bound and Running; 0
	// means 10 minutes.
	Timeout time.Duration
}

// Schedule registers cfg.Nodes Nodes with their status through a
// client-go node agent (which renews their Leases and marks the pods
// bound to them Running), then creates cfg.N pods from cfg.Workers
// writers and waits until a scheduler (not started here: the server's)
// has bound every one and the agent has started it. It reports the
// registration rate and pods/s from the first create to the last bound
// and to the last Running, as a pod informer sees them.
func Schedule(ctx context.Context, cfg ScheduleConfig) (*Result, error) {
	if cfg.REST == nil {
		return nil, fmt.Errorf("%w: no REST config", ErrInvalidConfig)
	}
	pods, nodes, timeout := cfg.N, cfg.Nodes, cfg.Timeout
	if pods <= 0 {
		pods = 10000
	}
	if nodes <= 0 {
		nodes = 5000
	}
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	cs, err := kubernetes.NewForConfig(cfg.restConfig())
	if err != nil {
		return nil, err
	}
	ns := cfg.namespace()
	if err := ensureNamespace(ctx, cs, ns); err != nil {
		return nil, err
	}
	run := time.Now().UnixNano()
	agent := nodeagent.New(cs, nodeagent.Config{LeaseInterval: cfg.LeaseInterval, Workers: 32})
	regStart := time.Now()
	if err := parallel(ctx, nodes, cfg.workers(), func(ctx context.Context, i int) error {
		return agent.Register(ctx, fmt.Sprintf("lg-%d-%d", run, i))
	}); err != nil {
		return nil, err
	}
	regTime := time.Since(regStart)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() { defer wg.Done(); _ = agent.Run(ctx) }()
	track, err := trackPods(ctx, cs, ns, &wg)
	if err != nil {
		return nil, err
	}

	prefix := fmt.Sprintf("p%d", run)
	start := time.Now()
	var createLat latencies
	var mu sync.Mutex
	if err := parallel(ctx, pods, cfg.workers(), func(ctx context.Context, i int) error {
		t0 := time.Now()
		_, err := cs.CoreV1().Pods(ns).Create(ctx, schedPod(fmt.Sprintf("%s-%d", prefix, i)), metav1.CreateOptions{})
		mu.Lock()
		createLat = append(createLat, time.Since(t0))
		mu.Unlock()
		return err
	}); err != nil {
		return nil, err
	}
	created := time.Since(start)
	for track.bound.Load() < int64(pods) || track.running.Load() < int64(pods) {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("after %v: %d of %d pods bound, %d Running", time.Since(start), track.bound.Load(), pods, track.running.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	bound, running := track.times()
	r := newResult("schedule")
	r.add("nodes", "%d", nodes)
	r.add("register_per_second", "%.0f", float64(nodes)/regTime.Seconds())
	r.add("pods", "%d", pods)
	r.add("writers", "%d", cfg.workers())
	r.add("created_per_second", "%.0f", float64(pods)/created.Seconds())
	r.add("create_p99", "%s", ms(createLat.quantile(0.99)))
	r.add("bound_seconds", "%.2f", bound.Sub(start).Seconds())
	r.add("bound_per_second", "%.0f", float64(pods)/bound.Sub(start).Seconds())
	r.add("running_per_second", "%.0f", float64(pods)/running.Sub(start).Seconds())
	r.add("lease_renewals", "%d", agent.LeaseRenewals())
	return r, nil
}

// schedPod is a pod asking for a little CPU and memory.
func schedPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "loadgen"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}}}}}}
}

// podTracker counts the pods of a namespace seen bound and Running, and
// when the last of each was seen.
type podTracker struct {
	bound, running atomic.Int64
	mu             sync.Mutex
	seenBound      map[string]bool
	seenRunning    map[string]bool
	lastBound      time.Time
	lastRunning    time.Time
}

// trackPods starts a pod informer on ns, owned by wg and ctx.
func trackPods(ctx context.Context, cs kubernetes.Interface, ns string, wg *sync.WaitGroup) (*podTracker, error) {
	t := &podTracker{seenBound: map[string]bool{}, seenRunning: map[string]bool{}}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: t.observe, UpdateFunc: func(_, o any) { t.observe(o) },
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	wg.Add(1)
	go func() { defer wg.Done(); <-ctx.Done(); factory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("pod informer did not sync: %w", ctx.Err())
	}
	return t, nil
}

func (t *podTracker) observe(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.Spec.NodeName != "" && !t.seenBound[p.Name] {
		t.seenBound[p.Name] = true
		t.lastBound = now
		t.bound.Add(1)
	}
	if p.Status.Phase == corev1.PodRunning && !t.seenRunning[p.Name] {
		t.seenRunning[p.Name] = true
		t.lastRunning = now
		t.running.Add(1)
	}
}

func (t *podTracker) times() (bound, running time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastBound, t.lastRunning
}

// parallel runs f(ctx, i) for i in [0, n) from workers goroutines and
// returns the first error (which stops the rest).
func parallel(ctx context.Context, n, workers int, f func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
