package hostgw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// RouteTable is where a Router keeps its routes: the routes it owns
// (List) and the two changes (Replace, Delete). Table is the kernel's;
// tests use a map.
type RouteTable interface {
	List() ([]Route, error)
	Replace(Route) error
	Delete(Route) error
}

var _ RouteTable = (*Table)(nil)

// DefaultResyncPeriod is how often a Router compares the table with the
// Nodes even when no Node changed (repairing routes someone removed).
const DefaultResyncPeriod = 30 * time.Second

// Config configures a Router. Client, NodeName and Table are required.
type Config struct {
	// Client reads the Nodes (get, list, watch nodes).
	Client *client.Client
	// NodeName is this node: its own pod CIDR gets no route.
	NodeName string
	// Table holds the routes; the Router owns its contents while it runs.
	Table RouteTable
	// ResyncPeriod; zero means DefaultResyncPeriod.
	ResyncPeriod time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Router keeps Table equal to Desired(NodeName, Nodes). Run is its only
// goroutine; Routes may be called concurrently with it.
type Router struct {
	cfg   Config
	nodes *informer.Informer[*core.Node]
	kick  chan struct{}
}

// New returns a Router for cfg; errors wrap ErrInvalidConfig.
func New(cfg Config) (*Router, error) {
	switch {
	case cfg.Client == nil:
		return nil, fmt.Errorf("%w: no Client", ErrInvalidConfig)
	case cfg.NodeName == "":
		return nil, fmt.Errorf("%w: no NodeName", ErrInvalidConfig)
	case cfg.Table == nil:
		return nil, fmt.Errorf("%w: no Table", ErrInvalidConfig)
	}
	if cfg.ResyncPeriod == 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	lw := informer.NewListerWatcher(client.For[core.Node](cfg.Client, ""), "", "")
	r := &Router{cfg: cfg, kick: make(chan struct{}, 1)}
	r.nodes = informer.New[*core.Node](lw, informer.Config[*core.Node]{Name: "nodes", Logger: cfg.Logger,
		Transform: func(n *core.Node) (*core.Node, error) { n.ManagedFields = nil; return n, nil }})
	kick := func() {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	r.nodes.AddEventHandler(informer.HandlerFuncs[*core.Node]{
		AddFunc:    func(*core.Node, bool) { kick() },
		UpdateFunc: func(o, n *core.Node) { kick() },
		DeleteFunc: func(any) { kick() },
	})
	return r, nil
}

// Run watches the Nodes and applies the routes after every change (a
// burst of changes is applied once) and every ResyncPeriod, until ctx
// ends; it returns nil then. Failures to apply are logged and retried at
// the next change or resync; routes are left in place when it returns.
func (r *Router) Run(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- r.nodes.Run(ctx) }()
	defer func() { <-done }()
	if !informer.WaitForCacheSync(ctx, r.nodes.HasSynced) {
		return nil
	}
	tick := time.NewTicker(r.cfg.ResyncPeriod)
	defer tick.Stop()
	for {
		r.sync()
		select {
		case <-ctx.Done():
			return nil
		case <-r.kick:
		case <-tick.C:
		}
	}
}

// sync applies the routes the cached Nodes want.
func (r *Router) sync() {
	want, skipped := Desired(r.cfg.NodeName, r.nodes.Lister().List(labels.Everything()))
	for _, s := range skipped {
		r.cfg.Logger.Debug("host-gw: no route", "node", s.Node, "reason", s.Reason)
	}
	changed, err := Apply(r.cfg.Table, want)
	for _, c := range changed {
		r.cfg.Logger.Info("host-gw route "+c.Op, "route", c.Route.String(), "node", c.Route.Node)
	}
	if err != nil {
		r.cfg.Logger.Warn("host-gw routes", "err", err)
	}
}

// Routes returns the routes the Router's table holds now.
func (r *Router) Routes() ([]Route, error) { return r.cfg.Table.List() }

// Change is one route Apply added, changed or deleted (Op "replaced" or
// "deleted").
type Change struct {
	Op    string
	Route Route
}

// Apply makes t hold exactly want: it replaces the routes missing or with
// another gateway and deletes those no longer wanted. It goes on past a
// failing route and returns what it changed and the failures joined.
func Apply(t RouteTable, want []Route) ([]Change, error) {
	current, err := t.List()
	if err != nil {
		return nil, err
	}
	replace, remove := Diff(current, want)
	var (
		changed []Change
		errs    []error
	)
	for _, rt := range remove {
		if err := t.Delete(rt); err != nil {
			errs = append(errs, err)
			continue
		}
		changed = append(changed, Change{"deleted", rt})
	}
	for _, rt := range replace {
		if err := t.Replace(rt); err != nil {
			errs = append(errs, err)
			continue
		}
		changed = append(changed, Change{"replaced", rt})
	}
	return changed, errors.Join(errs...)
}
