package simcluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
)

// Cluster is a running control plane with an admin client and a client
// authenticated as system:kube-scheduler.
type Cluster struct {
	CP        *controlplane.ControlPlane
	Admin     *client.Client
	Scheduler *client.Client
}

// Start starts a control plane in a temporary directory of tb; it stops
// when tb's test ends.
func Start(tb testing.TB) *Cluster {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	dir := tb.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: addr, Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	c := &Cluster{CP: cp}
	c.Admin = newClient(tb, cp.AdminKubeconfig)
	path := filepath.Join(dir, "scheduler.kubeconfig")
	if err := cp.WriteKubeconfig(path, "system:kube-scheduler"); err != nil {
		tb.Fatal(err)
	}
	c.Scheduler = newClient(tb, path)
	return c
}

func newClient(tb testing.TB, path string) *client.Client {
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.QPS = -1
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := client.New(cfg, client.WithLogger(quiet))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.CloseIdleConnections)
	return c
}

// Node returns a Node named name with cpu, memory and 110 pods of
// capacity (and allocatable), labelled with its hostname and zone.
func Node(name, zone, cpu, memory string) *core.Node {
	rl := core.ResourceList{
		core.ResourceCPU:    resource.MustParse(cpu),
		core.ResourceMemory: resource.MustParse(memory),
		core.ResourcePods:   resource.MustParse("110"),
	}
	return &core.Node{
		ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{
			core.LabelHostname: name, core.LabelTopologyZone: zone}},
		Status: core.NodeStatus{Capacity: rl, Allocatable: rl,
			Conditions: []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue}}},
	}
}

// Pod returns a pending pod in namespace "default" requesting cpu and
// memory ("" for none), with grace period 0 so deletes are immediate.
func Pod(name, cpu, memory string) *core.Pod {
	req := core.ResourceList{}
	if cpu != "" {
		req[core.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[core.ResourceMemory] = resource.MustParse(memory)
	}
	zero := int64(0)
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "sim"}},
		Spec: core.PodSpec{
			TerminationGracePeriodSeconds: &zero,
			Containers: []core.Container{{Name: "c", Image: "orkit.local/pause:v1",
				Resources: core.ResourceRequirements{Requests: req}}},
		},
	}
}

// CreateAll creates objs with workers goroutines and returns the first
// error.
func CreateAll[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, c *client.Client, ns string, objs []PT, workers int) error {
	r := client.For[T, PT](c, ns)
	return forEach(ctx, objs, workers, func(o PT) error {
		if _, err := r.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetObjectMeta().Name, err)
		}
		return nil
	})
}

// CreateNodes creates nodes and then writes their status (the API server
// drops status on create, as Kubernetes does), with workers goroutines.
func CreateNodes(ctx context.Context, c *client.Client, nodes []*core.Node, workers int) error {
	r := client.For[core.Node](c, "")
	return forEach(ctx, nodes, workers, func(n *core.Node) error {
		created, err := r.Create(ctx, n)
		if err != nil {
			return fmt.Errorf("create node %s: %w", n.Name, err)
		}
		created.Status = n.Status
		if _, err := r.UpdateStatus(ctx, created); err != nil {
			return fmt.Errorf("node %s status: %w", n.Name, err)
		}
		return nil
	})
}

func forEach[T any](ctx context.Context, items []T, workers int, f func(T) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	next := make(chan T)
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				if err := f(it); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, it := range items {
		select {
		case next <- it:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
