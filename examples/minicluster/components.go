package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/cronjob"
	"github.com/orkit/orkit/controller/daemonset"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/disruption"
	"github.com/orkit/orkit/controller/endpoints"
	"github.com/orkit/orkit/controller/garbagecollector"
	"github.com/orkit/orkit/controller/job"
	"github.com/orkit/orkit/controller/namespace"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/controller/nodelifecycle"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/controller/serviceaccount"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/controller/statefulset"
	"github.com/orkit/orkit/controller/volumebinding"
	"github.com/orkit/orkit/kubelet"
)

// startControllers runs the controller manager as
// system:kube-controller-manager, with leader election on a Lease in
// kube-system: the built-in controllers run while this process leads.
func (c *cluster) startControllers(ctx context.Context) error {
	cfg, err := c.configFor("system:kube-controller-manager")
	if err != nil {
		return err
	}
	cl, err := client.New(cfg)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl, Logger: c.opts.Logger,
		LeaderElection: &controller.LeaderElectionConfig{Namespace: "kube-system", Name: "kube-controller-manager",
			Identity: fmt.Sprintf("%s_%d", host, os.Getpid())}})
	if err != nil {
		return err
	}
	log := c.opts.Logger
	add := func(name string, r controller.Runnable, err error) error {
		if err != nil {
			return fmt.Errorf("controller %s: %w", name, err)
		}
		return m.Add(r)
	}
	// One Event writer for the controller manager's client, run by the
	// manager; each controller records as its own source.
	events, err := record.New(cl, record.Options{Source: core.EventSource{Component: "kube-controller-manager"}, Logger: log})
	if err := add("events", events, err); err != nil {
		return err
	}
	rs, _, err := replicaset.New(m, replicaset.Options{Logger: log,
		Recorder: events.WithSource(core.EventSource{Component: replicaset.Component})})
	if err := add("replicaset", rs, err); err != nil {
		return err
	}
	dep, _, err := deployment.New(m, deployment.Options{Logger: log,
		Recorder: events.WithSource(core.EventSource{Component: deployment.Component})})
	if err := add("deployment", dep, err); err != nil {
		return err
	}
	sts, err := statefulset.New(m, statefulset.Options{Logger: log})
	if err := add("statefulset", sts, err); err != nil {
		return err
	}
	ds, err := daemonset.New(m, daemonset.Options{Logger: log})
	if err := add("daemonset", ds, err); err != nil {
		return err
	}
	jc, _, err := job.New(m, job.Options{Logger: log, Recorder: events.WithSource(core.EventSource{Component: job.Component})})
	if err := add("job", jc, err); err != nil {
		return err
	}
	cj, _, err := cronjob.New(m, cronjob.Options{Logger: log, Recorder: events.WithSource(core.EventSource{Component: cronjob.Component})})
	if err := add("cronjob", cj, err); err != nil {
		return err
	}
	pdb, _, err := disruption.New(m, disruption.Options{Logger: log, Recorder: events.WithSource(core.EventSource{Component: disruption.Component})})
	if err := add("disruption", pdb, err); err != nil {
		return err
	}
	nl, err := nodelifecycle.New(m, nodelifecycle.Options{Logger: log})
	if err := add("nodelifecycle", nl, err); err != nil {
		return err
	}
	pgc, err := nodelifecycle.NewPodGC(m, nodelifecycle.PodGCOptions{Logger: log})
	if err := add("podgc", pgc, err); err != nil {
		return err
	}
	gc, err := garbagecollector.New(garbagecollector.Options{Client: cl, Logger: log})
	if err := add("garbagecollector", gc, err); err != nil {
		return err
	}
	ep, _, err := endpoints.New(m, endpoints.Options{Logger: log})
	if err := add("endpoints", ep, err); err != nil {
		return err
	}
	if err := c.addMoreControllers(m, cfg, add); err != nil {
		return err
	}
	c.goRun("controller manager", func() error { return m.Run(ctx) })
	c.step("controller manager started (user system:kube-controller-manager, leader election on kube-system/kube-controller-manager): " +
		"replicaset, deployment, statefulset, daemonset, job, cronjob, disruption, endpoints, namespace, service account, node IPAM, service load balancer, volume binding, node lifecycle, pod GC, garbage collector")
	return nil
}

// addMoreControllers adds the controllers that need settings of the cluster.
func (c *cluster) addMoreControllers(m *controller.Manager, cfg *client.Config, add func(string, controller.Runnable, error) error) error {
	log := c.opts.Logger
	fin, err := namespace.NewHTTPFinalizer(cfg)
	if err != nil {
		return err
	}
	ns, _, err := namespace.New(m, namespace.Options{Finalizer: fin, Logger: log})
	if err := add("namespace", ns, err); err != nil {
		return err
	}
	sa, _, err := serviceaccount.New(m, serviceaccount.Options{Logger: log})
	if err := add("serviceaccount", sa, err); err != nil {
		return err
	}
	// Real nodes take 10.244.<i>.0/24 themselves; IPAM hands the upper half
	// of the cluster CIDR to nodes that register without one.
	ipam, _, err := nodeipam.New(m, nodeipam.Options{ClusterCIDR: netip.MustParsePrefix("10.244.128.0/17"), NodeMaskSize: 24, Logger: log})
	if err := add("nodeipam", ipam, err); err != nil {
		return err
	}
	// LoadBalancer Services get loopback addresses, reachable on this host.
	lb, err := servicelb.NewLoopback(netip.MustParsePrefix("127.0.100.0/24"))
	if err != nil {
		return err
	}
	slb, _, err := servicelb.New(m, servicelb.Options{Provider: lb, Logger: log})
	if err := add("servicelb", slb, err); err != nil {
		return err
	}
	vb, err := volumebinding.New(m, volumebinding.Options{LocalStorageClass: "local-path",
		LocalDir: filepath.Join(c.opts.DataDir, "volumes"), Logger: log})
	return add("volumebinding", vb, err)
}

// simTaint keeps ordinary pods off simulated nodes: only pods that
// tolerate it (scale experiments) are placed there.
var simTaint = core.Taint{Key: "orkit.io/simulated", Value: "true", Effect: core.TaintEffectNoSchedule}

// startSimNodes runs n simulated nodes (kubelets over the fake runtime)
// sharing one client, pod informer and heartbeat loop. They carry
// simTaint, so real workloads stay on real nodes.
func (c *cluster) startSimNodes(ctx context.Context, n int) error {
	pool := kubelet.NewSimPool(c.admin, kubelet.SimConfig{Logger: c.opts.Logger,
		Base: kubelet.Config{Taints: []core.Taint{simTaint}}})
	for i := 0; i < n; i++ {
		if _, err := pool.Add(fmt.Sprintf("sim-node-%d", i)); err != nil {
			return err
		}
	}
	c.goRun("simulated nodes", func() error { return pool.Run(ctx) })
	c.step("%d simulated nodes started (sim-node-0 … sim-node-%d), tainted %s=%s:%s", n, n-1, simTaint.Key, simTaint.Value, simTaint.Effect)
	return nil
}
