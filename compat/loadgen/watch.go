package loadgen

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// WatchConfig sizes WatchLatency; zero values are documented.
type WatchConfig struct {
	Config
	// Watchers is how many watches run, each on its own TLS connection;
	// 0 means 100.
	Watchers int
	// Interval between the writer's updates; 0 means 20ms.
	Interval time.Duration
	// Writes is how many updates the writer makes; 0 means 500 (10 s at
	// 20ms).
	Writes int
}

// WatchLatency starts cfg.Watchers watches of one ConfigMap (field
// selector metadata.name=<it>), each through a client with its own
// connection, then updates that ConfigMap cfg.Writes times, once every
// cfg.Interval, from one writer. Each update carries its sequence number
// and the time it was sent; every watcher measures sent → received for
// each MODIFIED event. It reports the latencies over all watchers and
// events, and how many (watcher, update) pairs never arrived.
func WatchLatency(ctx context.Context, cfg WatchConfig) (*Result, error) {
	if cfg.REST == nil {
		return nil, fmt.Errorf("%w: no REST config", ErrInvalidConfig)
	}
	watchers, writes, interval := cfg.Watchers, cfg.Writes, cfg.Interval
	if watchers <= 0 {
		watchers = 100
	}
	if writes <= 0 {
		writes = 500
	}
	if interval <= 0 {
		interval = 20 * time.Millisecond
	}
	base := cfg.restConfig()
	cs, err := kubernetes.NewForConfig(base)
	if err != nil {
		return nil, err
	}
	ns := cfg.namespace()
	if err := ensureNamespace(ctx, cs, ns); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("watched-%d", time.Now().UnixNano())
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	var dials atomic.Int64
	ws := make([]*watcher, watchers)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i := range ws {
		wcs, err := kubernetes.NewForConfig(ownConnection(base, &dials))
		if err != nil {
			return nil, err
		}
		w, err := wcs.CoreV1().ConfigMaps(ns).Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name,
			ResourceVersion: cm.ResourceVersion})
		if err != nil {
			return nil, fmt.Errorf("watcher %d: %w", i, err)
		}
		ws[i] = &watcher{w: w, seen: make([]bool, writes), lat: make(latencies, 0, writes)}
		wg.Add(1)
		go func() { defer wg.Done(); ws[i].run() }()
	}
	defer func() { stop(); wg.Wait() }()

	if err := writeEvery(ctx, cs, cm, writes, interval); err != nil {
		return nil, err
	}
	// The last events get up to 5 s to arrive.
	deadline := time.Now().Add(5 * time.Second)
	for _, w := range ws {
		for w.count() < writes && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	stop()
	wg.Wait()
	var all latencies
	missing := 0
	for _, w := range ws {
		all = append(all, w.lat...)
		for _, s := range w.seen {
			if !s {
				missing++
			}
		}
	}
	r := newResult("watch")
	r.add("watchers", "%d", watchers)
	r.add("connections", "%d", dials.Load())
	r.add("writes", "%d", writes)
	r.add("interval", "%s", interval)
	r.add("events", "%d", len(all))
	r.add("missing", "%d", missing)
	r.addLatencies("", all)
	return r, nil
}

// writeEvery updates cm n times, one every interval, each carrying its
// sequence number and the time it was sent (UnixNano).
func writeEvery(ctx context.Context, cs kubernetes.Interface, cm *corev1.ConfigMap, n int, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	cur := cm
	for i := range n {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		next := cur.DeepCopy()
		next.Data = map[string]string{"seq": strconv.Itoa(i), "sent": strconv.FormatInt(time.Now().UnixNano(), 10)}
		var err error
		if cur, err = cs.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, next, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update %d: %w", i, err)
		}
	}
	return nil
}

// watcher receives one watch's events.
type watcher struct {
	w    watch.Interface
	mu   sync.Mutex
	seen []bool
	lat  latencies
	n    int
}

func (w *watcher) run() {
	defer w.w.Stop()
	for ev := range w.w.ResultChan() {
		now := time.Now()
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Modified || !ok {
			continue
		}
		seq, err1 := strconv.Atoi(cm.Data["seq"])
		sent, err2 := strconv.ParseInt(cm.Data["sent"], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		w.mu.Lock()
		if seq >= 0 && seq < len(w.seen) && !w.seen[seq] {
			w.seen[seq] = true
			w.lat = append(w.lat, now.Sub(time.Unix(0, sent)))
			w.n++
		}
		w.mu.Unlock()
	}
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
