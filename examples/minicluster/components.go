package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates/approver"
	"github.com/orkit/orkit/controller/certificates/signer"
	"github.com/orkit/orkit/controller/localpath"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/controller/nodelifecycle"
	"github.com/orkit/orkit/controller/podautoscaler"
	"github.com/orkit/orkit/controller/rootcacert"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/controller/standard"
	"github.com/orkit/orkit/cri/fake"
	"github.com/orkit/orkit/kubelet"
	"github.com/orkit/orkit/pki"
)

// Pod networks: the cluster's pod CIDR, of which real nodes take
// 10.244.<i>.0/24 themselves (i = 1 … maxRealNodes, in the reserved lower
// half) and node IPAM hands the upper half to nodes that register without
// a pod CIDR (simulated nodes).
var (
	clusterCIDR  = netip.MustParsePrefix("10.244.0.0/16")
	realNodeCIDR = netip.MustParsePrefix("10.244.0.0/17")
)

// masterAdvertiseAddr is where pods reach the API server (the endpoints
// of the kubernetes Service): node-1's pod bridge address, which the host
// holds once node-1's first pod is attached, on a port the control plane
// picks and relays to the API server's listener.
const masterAdvertiseAddr = "10.244.1.1:0"

// nodeIPAM returns node IPAM's settings: the cluster CIDR and mask of
// --cluster-cidr and --node-cidr-mask-size, less the real nodes' range
// where it holds it.
func (c *cluster) nodeIPAM() nodeipam.Config {
	s := c.opts.Server
	cfg := nodeipam.Config{ClusterCIDR: s.ClusterCIDR, NodeMaskSize: s.NodeCIDRMaskSize}
	if !cfg.ClusterCIDR.IsValid() {
		cfg.ClusterCIDR = clusterCIDR
	}
	if holdsRealNodes(cfg.ClusterCIDR) {
		cfg.Reserved = []netip.Prefix{realNodeCIDR}
	}
	return cfg
}

// maxRealNodes is how many real nodes fit in realNodeCIDR.
const maxRealNodes = 127

// startControllers runs the controller manager as
// system:kube-controller-manager. As a --role server it is elected on a
// Lease in kube-system (the standard controllers run while this process
// leads; losing the Lease ends the process, as kube-controller-manager
// exits for its supervisor to restart it). In the single process, which
// holds the store's lock and so is the only one, it runs without an
// election, like its scheduler: a Lease renewal held up for 10 s by an
// overloaded machine must not stop every controller for good.
func (c *cluster) startControllers(ctx context.Context) error {
	cl, err := c.clientFor("system:kube-controller-manager")
	if err != nil {
		return err
	}
	mc := controller.ManagerConfig{Client: cl, Logger: c.opts.Logger}
	election := "no leader election: the only one"
	if c.opts.Server.Role == roleServer {
		mc.LeaderElection = c.opts.leaderElection(controllerLeaseName)
		election = fmt.Sprintf("leader election on %s/%s as %s", leaseNamespace, controllerLeaseName, c.opts.Server.Identity)
	}
	m, err := controller.NewManager(mc)
	if err != nil {
		return err
	}
	if c.podInformer, err = controller.InformerFor[core.Pod](m, ""); err != nil {
		return err
	}
	if c.nodeInformer, err = controller.InformerFor[core.Node](m, ""); err != nil {
		return err
	}
	// LoadBalancer Services get loopback addresses, reachable on this host.
	lb, err := servicelb.NewLoopback(netip.MustParsePrefix("127.0.100.0/24"))
	if err != nil {
		return err
	}
	var rootCA rootcacert.Config
	if c.cp != nil {
		rootCA.RootCA = c.cp.CA.CertPEM
	}
	_, err = standard.Add(m, standard.Config{
		RootCACert: rootCA,
		NodeIPAM:   c.nodeIPAM(),
		NodeLifecycle: nodelifecycle.Config{GracePeriod: c.opts.Server.NodeMonitorGracePeriod,
			DefaultTolerationSeconds: time.Duration(c.opts.Server.DefaultTolerationSeconds) * time.Second},
		ServiceLB:               servicelb.Config{Provider: lb},
		LocalPath:               localpath.Config{BaseDir: filepath.Join(c.opts.DataDir, "local-path")},
		HorizontalPodAutoscaler: podautoscaler.Config{SyncPeriod: c.opts.HPASyncPeriod},
	})
	if err != nil {
		return err
	}
	// The default StorageClass, as k3s ships its local-path class: claims
	// naming no class (Helm charts, volumeClaimTemplates) get a directory
	// on the node their first pod is scheduled to.
	if err := localpath.EnsureClass(ctx, c.admin, localpath.Class(localpath.DefaultClassName, "", true)); err != nil {
		return err
	}
	if err := addCertificateControllers(m, c.cp.CA); err != nil {
		return err
	}
	c.goRun("controller manager", func() error { return m.Run(ctx) })
	c.step("controller manager started (user system:kube-controller-manager, %s): %s",
		election, strings.Join(append(standard.Names(), approver.Name, signer.Name), ", "))
	return nil
}

// simTaint keeps ordinary pods off simulated nodes when --sim-node-taint
// asks for it: only pods that tolerate it (scale experiments beside real
// nodes) are placed there.
var simTaint = core.Taint{Key: "orkit.io/simulated", Value: "true", Effect: core.TaintEffectNoSchedule}

// startSimNodes runs n simulated nodes (kubelets over the fake runtime)
// sharing one client, pod informer and heartbeat loop. With
// opts.SimNodeTaint they carry simTaint, so real workloads stay on real
// nodes; without it they run any pod, as a kwok node does.
func (c *cluster) startSimNodes(ctx context.Context, n int) error {
	// Pods' usage comes from their sim.orkit.io/cpu and /memory
	// annotations (kubectl annotate raises the load).
	base := kubelet.Config{SyntheticUsage: kubelet.SimUsageFromAnnotations}
	taint := "untainted"
	if c.opts.SimNodeTaint {
		base.Taints = []core.Taint{simTaint}
		taint = fmt.Sprintf("tainted %s=%s:%s", simTaint.Key, simTaint.Value, simTaint.Effect)
	}
	// Any image may run on them (the conformance suite's agnhost, busybox,
	// pause): fake.ImageProgram models its command as a kwok node would.
	runtime := func(string) (*fake.Runtime, error) {
		return fake.New(fake.WithEventBuffer(16), fake.WithProgram(fake.ImageProgram))
	}
	pool := kubelet.NewSimPool(c.admin, kubelet.SimConfig{Logger: c.opts.Logger, Base: base, Runtime: runtime,
		Pods: c.podInformer, Nodes: c.nodeInformer})
	c.simPool = pool
	for i := 0; i < n; i++ {
		if _, err := pool.Add(fmt.Sprintf("sim-node-%d", i)); err != nil {
			return err
		}
	}
	c.goRun("simulated nodes", func() error { return pool.Run(ctx) })
	c.step("%d simulated nodes started (sim-node-0 … sim-node-%d), %s", n, n-1, taint)
	return nil
}

// addCertificateControllers adds the CertificateSigningRequest approver
// (which approves kubelets' serving requests for their own names too) and
// the signer (with the cluster CA) to m.
func addCertificateControllers(m *controller.Manager, ca *pki.CA) error {
	// Agents' kubelets ask for serving certificates for their own names
	// (serverTLSBootstrap); the API server verifies kubelets with the CA.
	a, err := approver.New(m, approver.Config{ApproveKubeletServing: true})
	if err != nil {
		return err
	}
	s, err := signer.New(m, signer.Config{CA: ca})
	if err != nil {
		return err
	}
	return errors.Join(m.Add(a), m.Add(s))
}
