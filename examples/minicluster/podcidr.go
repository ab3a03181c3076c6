package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cni"
	"github.com/orkit/orkit/netpol"
)

// nodeNetwork is a real node's pod network: what the kubelet uses and
// what the node's stop releases.
type nodeNetwork interface {
	cni.Network
	ReclaimLeaked(ctx context.Context, live func(sandboxID string) bool) ([]string, error)
}

// podCIDRNetwork is an agent's CNI bridge network, made once the
// controller manager (node IPAM) has given the Node a spec.podCIDR: until
// then it is not ready (the node reports NetworkUnavailable through its
// Ready condition, as a kubelet without a pod CIDR does) and sets up no
// pod. Run watches for the CIDR; the other methods are safe to call
// concurrently with it.
type podCIDRNetwork struct {
	cl                     *client.Client
	node, bridge, stateDir string
	log                    *slog.Logger

	mu      sync.RWMutex
	net     *cni.LibCNI // nil until the pod CIDR is known
	podCIDR netip.Prefix
}

func newPodCIDRNetwork(cl *client.Client, node, bridge, stateDir string, log *slog.Logger) *podCIDRNetwork {
	return &podCIDRNetwork{cl: cl, node: node, bridge: bridge, stateDir: stateDir, log: log}
}

// Run polls the Node until it has a pod CIDR, then makes the bridge and
// the CNI network on it; it returns then, or when ctx ends.
func (p *podCIDRNetwork) Run(ctx context.Context) error {
	nodes := client.For[core.Node](p.cl, "")
	for {
		n, err := nodes.Get(ctx, p.node)
		if err == nil && n.Spec.PodCIDR != "" {
			subnet, perr := netip.ParsePrefix(n.Spec.PodCIDR)
			if perr != nil {
				return fmt.Errorf("node %s: spec.podCIDR %q: %w", p.node, n.Spec.PodCIDR, perr)
			}
			return p.setUp(subnet)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (p *podCIDRNetwork) setUp(subnet netip.Prefix) error {
	if _, err := ensureBridge(p.bridge, subnet); err != nil {
		return fmt.Errorf("bridge %s: %w", p.bridge, err)
	}
	// Pods on the bridge talk at L2: hand it to the NetworkPolicy rules.
	if err := netpol.EnableBridgeNetfilter(p.bridge); err != nil {
		p.log.Warn("NetworkPolicies cannot isolate this node's pods from each other", "bridge", p.bridge, "err", err)
	}
	n, err := cni.New(cni.Config{StateDir: p.stateDir, PodCIDRs: []netip.Prefix{subnet}, BridgeName: p.bridge,
		NetworkName: p.Name(), PluginDirs: []string{cniPluginDir}, Logger: p.log})
	if err != nil {
		return fmt.Errorf("pod network: %w", err)
	}
	p.mu.Lock()
	p.net, p.podCIDR = n, subnet
	p.mu.Unlock()
	return nil
}

// PodCIDR is the node's pod CIDR (the zero prefix until known).
func (p *podCIDRNetwork) PodCIDR() netip.Prefix {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.podCIDR
}

func (p *podCIDRNetwork) get() *cni.LibCNI {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.net
}

// Name is the CNI network name, orkit-<node>.
func (p *podCIDRNetwork) Name() string { return "orkit-" + p.node }

// Status is the bridge network's, or ErrNotReady without a pod CIDR.
func (p *podCIDRNetwork) Status(ctx context.Context) error {
	n := p.get()
	if n == nil {
		return fmt.Errorf("%w: node %s has no spec.podCIDR yet", cni.ErrNotReady, p.node)
	}
	return n.Status(ctx)
}

// SetUp attaches a pod once the network exists.
func (p *podCIDRNetwork) SetUp(ctx context.Context, pod cni.PodNetwork) (cni.Result, error) {
	n := p.get()
	if n == nil {
		return cni.Result{}, fmt.Errorf("%w: node %s has no spec.podCIDR yet", cni.ErrSetUp, p.node)
	}
	return n.SetUp(ctx, pod)
}

// TearDown detaches a pod; without a network there is nothing attached.
func (p *podCIDRNetwork) TearDown(ctx context.Context, pod cni.PodNetwork) error {
	if n := p.get(); n != nil {
		return n.TearDown(ctx, pod)
	}
	return nil
}

// Check verifies a pod's attachment.
func (p *podCIDRNetwork) Check(ctx context.Context, pod cni.PodNetwork) error {
	n := p.get()
	if n == nil {
		return fmt.Errorf("%w: node %s has no pod network yet", cni.ErrNotSetUp, p.node)
	}
	return n.Check(ctx, pod)
}

// ReclaimLeaked releases the attachments of sandboxes that are not live.
func (p *podCIDRNetwork) ReclaimLeaked(ctx context.Context, live func(string) bool) ([]string, error) {
	if n := p.get(); n != nil {
		return n.ReclaimLeaked(ctx, live)
	}
	return nil, nil
}
