package nodeipam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// DefaultClusterCIDR is the pod network nodes get their CIDRs from.
var DefaultClusterCIDR = netip.MustParsePrefix("10.244.0.0/16")

// DefaultNodeMaskSize is the size of each node's pod CIDR.
const DefaultNodeMaskSize = 24

// Options configure the controller. The zero value uses the defaults.
type Options struct {
	// ClusterCIDR; default DefaultClusterCIDR.
	ClusterCIDR netip.Prefix
	// NodeMaskSize; default DefaultNodeMaskSize.
	NodeMaskSize int
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Reconciler assigns pod CIDRs to nodes. Make one with New; safe for
// concurrent use.
type Reconciler struct {
	client *client.Client
	nodes  informer.Lister[*core.Node]
	set    *CIDRSet
	log    *slog.Logger

	mu     sync.Mutex
	synced bool
	byNode map[string]netip.Prefix
	// warned holds the pod CIDR each node was last warned about, so a
	// CIDR the controller cannot take is logged once, not on every
	// status update of the node.
	warned map[string]string
}

var _ controller.Reconciler = (*Reconciler)(nil)

// New makes the node IPAM controller over the manager's Node informer.
// It fails with ErrInvalidOptions for a mask size that does not fit the
// cluster CIDR.
func New(m *controller.Manager, opts Options) (*controller.Controller, *Reconciler, error) {
	if m == nil {
		return nil, nil, fmt.Errorf("%w: no manager", ErrInvalidOptions)
	}
	if !opts.ClusterCIDR.IsValid() {
		opts.ClusterCIDR = DefaultClusterCIDR
	}
	if opts.NodeMaskSize == 0 {
		opts.NodeMaskSize = DefaultNodeMaskSize
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	set, err := NewCIDRSet(opts.ClusterCIDR, opts.NodeMaskSize)
	if err != nil {
		return nil, nil, err
	}
	inf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, nil, err
	}
	r := &Reconciler{client: m.Client(), nodes: inf.Lister(), set: set, log: opts.Logger, byNode: map[string]netip.Prefix{},
		warned: map[string]string{}}
	c, err := controller.New("nodeipam", r, controller.Config{Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	controller.WatchObjects(c, inf)
	return c, r, nil
}

// Set returns the allocator (for tests and metrics).
func (r *Reconciler) Set() *CIDRSet { return r.set }

// recover marks the CIDRs of every cached node taken, once, before the
// first allocation: a restarted controller never hands out a CIDR a node
// already has.
func (r *Reconciler) recoverLocked() {
	if r.synced {
		return
	}
	r.synced = true
	for _, n := range r.nodes.List(nil) {
		r.occupyLocked(n)
	}
}

func (r *Reconciler) occupyLocked(n *core.Node) bool {
	if n.Spec.PodCIDR == "" {
		return false
	}
	p, err := netip.ParsePrefix(n.Spec.PodCIDR)
	if err != nil {
		r.log.Warn("node has an unparsable pod CIDR", "node", n.Name, "podCIDR", n.Spec.PodCIDR)
		return true
	}
	if have, ok := r.byNode[n.Name]; ok && have == p {
		return true
	}
	fresh, err := r.set.Occupy(p)
	warn := r.warned[n.Name] != n.Spec.PodCIDR
	switch {
	case err != nil && warn:
		r.log.Warn("node pod CIDR outside the cluster CIDR", "node", n.Name, "err", err)
	case err == nil && !fresh && warn:
		r.log.Warn("node pod CIDR already taken by another node", "node", n.Name, "podCIDR", p)
	case err == nil && fresh:
		r.byNode[n.Name] = p
		delete(r.warned, n.Name)
		return true
	}
	r.warned[n.Name] = n.Spec.PodCIDR
	return true
}

// Reconcile gives one node a pod CIDR, or frees a deleted node's.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.mu.Lock()
	r.recoverLocked()
	n, err := r.nodes.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		if p, ok := r.byNode[req.Name]; ok {
			r.set.Release(p)
			delete(r.byNode, req.Name)
		}
		delete(r.warned, req.Name)
		r.mu.Unlock()
		return controller.Result{}, nil
	}
	if err != nil || r.occupyLocked(n) {
		r.mu.Unlock()
		return controller.Result{}, err
	}
	p, ok := r.byNode[n.Name]
	if !ok {
		if p, err = r.set.Allocate(); err != nil {
			r.mu.Unlock()
			return controller.Result{}, err
		}
		r.byNode[n.Name] = p
	}
	r.mu.Unlock()
	return controller.Result{}, r.assign(ctx, n.Name, p)
}

// assign writes p into the node; on failure the CIDR is freed again.
func (r *Reconciler) assign(ctx context.Context, node string, p netip.Prefix) error {
	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"podCIDR": p.String(), "podCIDRs": []string{p.String()}}})
	_, err := client.For[core.Node](r.client, "").Patch(ctx, node, client.MergePatchType, patch)
	if err == nil {
		return nil
	}
	r.mu.Lock()
	if r.byNode[node] == p {
		r.set.Release(p)
		delete(r.byNode, node)
	}
	r.mu.Unlock()
	if apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("assign pod CIDR %s to node %s: %w", p, node, err)
}
