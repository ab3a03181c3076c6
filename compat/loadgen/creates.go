package loadgen

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// payload is the 1 KiB of data every created ConfigMap carries.
var payload = strings.Repeat("x", 1024)

// Creates creates cfg.N ConfigMaps (default 10,000) of 1 KiB each in
// cfg.Namespace from cfg.Workers goroutines sharing one clientset (one
// HTTP/2 connection, as an operator's client has), and reports
// creates/s over the whole run and each create's latency. Names are
// unique per run, so runs may repeat on the same server.
func Creates(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.REST == nil {
		return nil, fmt.Errorf("%w: no REST config", ErrInvalidConfig)
	}
	n := cfg.N
	if n <= 0 {
		n = 10000
	}
	cs, err := kubernetes.NewForConfig(cfg.restConfig())
	if err != nil {
		return nil, err
	}
	ns := cfg.namespace()
	if err := ensureNamespace(ctx, cs, ns); err != nil {
		return nil, err
	}
	clients := []kubernetes.Interface{cs}
	var dials atomic.Int64
	if cfg.OwnConnections {
		clients = nil
		for range cfg.workers() {
			c, err := kubernetes.NewForConfig(ownConnection(cfg.restConfig(), &dials))
			if err != nil {
				return nil, err
			}
			clients = append(clients, c)
		}
	}
	lat, elapsed, err := createConfigMaps(ctx, clients, ns, fmt.Sprintf("c%d", time.Now().UnixNano()), n, cfg.workers())
	if err != nil {
		return nil, err
	}
	r := newResult("creates")
	r.add("objects", "%d", n)
	r.add("workers", "%d", cfg.workers())
	r.add("own_connections", "%v", cfg.OwnConnections)
	r.add("seconds", "%.2f", elapsed.Seconds())
	r.add("per_second", "%.0f", float64(n)/elapsed.Seconds())
	r.addLatencies("", lat)
	return r, nil
}

// createConfigMaps creates n ConfigMaps named <prefix>-<i> in ns from
// workers goroutines (worker w writes through clients[w%len(clients)]); it returns each create's latency and the time from
// the first send to the last answer. The first error stops the run.
func createConfigMaps(ctx context.Context, clients []kubernetes.Interface, ns, prefix string, n, workers int) (latencies, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	lat := make(latencies, n)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	start := time.Now()
	for w := range workers {
		cs := clients[w%len(clients)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)},
					Data: map[string]string{"payload": payload}}
				t0 := time.Now()
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("create %s: %w", cm.Name, err); cancel() })
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return lat, time.Since(start), firstErr
}
