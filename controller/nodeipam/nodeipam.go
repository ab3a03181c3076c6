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

// Config configures the controller. The zero value uses the defaults.
type Config struct {
	// ClusterCIDR; default DefaultClusterCIDR.
	ClusterCIDR netip.Prefix
	// NodeMaskSize; default DefaultNodeMaskSize.
	NodeMaskSize int
	// Reserved ranges of ClusterCIDR are never allocated: nodes that
	// register with pod CIDRs of their own take them (a node agent that
	// configures its network before it registers). Such a node's CIDR is
	// accepted as any other inside ClusterCIDR. Default none.
	Reserved []netip.Prefix
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller assigns pod CIDRs to nodes. It is a *controller.Controller
// (add it to the Manager it was made on, or Run it) reconciling with its
// own Reconcile. Make one with New; safe for concurrent use.
type Controller struct {
	*controller.Controller
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

var _ controller.Reconciler = (*Controller)(nil)

// New makes the node IPAM controller over m's shared informers of Nodes,
// writing through m's client; add it to m (m.Add) to run it while m leads,
// or Run it. It fails with ErrInvalidConfig without a manager, or for a
// cluster CIDR, node mask size or reserved range that do not fit together,
// and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if !cfg.ClusterCIDR.IsValid() {
		cfg.ClusterCIDR = DefaultClusterCIDR
	}
	if cfg.NodeMaskSize == 0 {
		cfg.NodeMaskSize = DefaultNodeMaskSize
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	set, err := NewCIDRSet(cfg.ClusterCIDR, cfg.NodeMaskSize)
	if err != nil {
		return nil, err
	}
	for _, p := range cfg.Reserved {
		if err := set.Reserve(p); err != nil {
			return nil, fmt.Errorf("%w: reserved range: %w", ErrInvalidConfig, err)
		}
	}
	inf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), nodes: inf.Lister(), set: set, log: cfg.Logger, byNode: map[string]netip.Prefix{},
		warned: map[string]string{}}
	c, err := controller.New("nodeipam", r, controller.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, inf)
	r.Controller = c
	return r, nil
}

// Set returns the allocator (for tests and metrics).
func (r *Controller) Set() *CIDRSet { return r.set }

// recover marks the CIDRs of every cached node taken, once, before the
// first allocation: a restarted controller never hands out a CIDR a node
// already has.
func (r *Controller) recoverLocked() {
	if r.synced {
		return
	}
	r.synced = true
	for _, n := range r.nodes.List(nil) {
		r.occupyLocked(n)
	}
}

func (r *Controller) occupyLocked(n *core.Node) bool {
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
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
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
func (r *Controller) assign(ctx context.Context, node string, p netip.Prefix) error {
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
