package main

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/kubelet"
)

// startControllers runs the controller manager as
// system:kube-controller-manager, with leader election on a Lease.
func (c *cluster) startControllers(ctx context.Context) error {
	c.step("controllers: not wired in yet")
	return nil
}

// startSimNodes runs n simulated nodes (kubelets over the fake runtime)
// sharing one client, pod informer and heartbeat loop.
func (c *cluster) startSimNodes(ctx context.Context, n int) error {
	pool := kubelet.NewSimPool(c.admin, kubelet.SimConfig{Logger: c.opts.Logger})
	for i := 0; i < n; i++ {
		if _, err := pool.Add(fmt.Sprintf("sim-node-%d", i)); err != nil {
			return err
		}
	}
	c.goRun("simulated nodes", func() error { return pool.Run(ctx) })
	c.step("%d simulated nodes started (sim-node-0 … sim-node-%d)", n, n-1)
	return nil
}
