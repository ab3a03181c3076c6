package servicelb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// CleanupFinalizer keeps a LoadBalancer Service until its load balancer
// is deleted.
const CleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// Config configures the controller. Provider is required.
type Config struct {
	// Provider makes the load balancers.
	Provider LoadBalancer
	// Workers; default 2.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller drives a provider from LoadBalancer Services. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client   *client.Client
	services informer.Lister[*core.Service]
	nodes    informer.Lister[*core.Node]
	provider LoadBalancer
	restore  sync.Once
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the service load balancer controller over m's shared informers
// of Services and Nodes, writing through m's client; add it to m (m.Add) to
// run it while m leads, or Run it. It fails with ErrInvalidConfig without a
// manager or without a Provider, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil || cfg.Provider == nil {
		return nil, fmt.Errorf("%w: a manager and a provider are required", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	svcInf, err := controller.InformerFor[core.Service](m, "")
	if err != nil {
		return nil, err
	}
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), services: svcInf.Lister(), nodes: nodeInf.Lister(), provider: cfg.Provider}
	c, err := controller.New("servicelb", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, svcInf)
	controller.Watch(c, nodeInf, func(*core.Node) []controller.Request { return r.loadBalancers() })
	r.Controller = c
	return r, nil
}

// loadBalancers returns a request for every LoadBalancer Service.
func (r *Controller) loadBalancers() []controller.Request {
	var out []controller.Request
	for _, s := range r.services.List(nil) {
		if s.Spec.Type == core.ServiceTypeLoadBalancer {
			out = append(out, controller.Request{Namespace: s.Namespace, Name: s.Name})
		}
	}
	return out
}

// wantsLB reports whether this controller serves svc now.
func wantsLB(svc *core.Service) bool {
	return svc.Spec.Type == core.ServiceTypeLoadBalancer && svc.DeletionTimestamp == nil && svc.Spec.LoadBalancerClass == nil
}

// Reconcile ensures or deletes one Service's load balancer.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.restore.Do(r.restoreAll)
	svc, err := r.services.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		gone := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: req.Namespace, Name: req.Name}}
		return controller.Result{}, r.provider.EnsureDeleted(ctx, gone)
	}
	if err != nil {
		return controller.Result{}, err
	}
	if wantsLB(svc) {
		return controller.Result{}, r.ensure(ctx, svc)
	}
	return controller.Result{}, r.teardown(ctx, svc)
}

func (r *Controller) restoreAll() {
	rs, ok := r.provider.(Restorer)
	if !ok {
		return
	}
	for _, s := range r.services.List(nil) {
		if wantsLB(s) {
			rs.Restore(s)
		}
	}
}

func (r *Controller) ensure(ctx context.Context, svc *core.Service) error {
	if !slices.Contains(svc.Finalizers, CleanupFinalizer) {
		if err := r.setFinalizers(ctx, svc, append(slices.Clone(svc.Finalizers), CleanupFinalizer)); err != nil {
			return err
		}
	}
	ing, err := r.provider.EnsureLoadBalancer(ctx, svc, r.readyNodes())
	if err != nil {
		return fmt.Errorf("%s: ensure load balancer of %s/%s: %w", r.provider.Name(), svc.Namespace, svc.Name, err)
	}
	return r.setIngress(ctx, svc, ing)
}

func (r *Controller) teardown(ctx context.Context, svc *core.Service) error {
	has := slices.Contains(svc.Finalizers, CleanupFinalizer)
	if !has && len(svc.Status.LoadBalancer.Ingress) == 0 {
		return nil
	}
	if err := r.provider.EnsureDeleted(ctx, svc); err != nil {
		return fmt.Errorf("%s: delete load balancer of %s/%s: %w", r.provider.Name(), svc.Namespace, svc.Name, err)
	}
	if err := r.setIngress(ctx, svc, nil); err != nil {
		return err
	}
	if has {
		return r.setFinalizers(ctx, svc, slices.DeleteFunc(slices.Clone(svc.Finalizers), func(f string) bool { return f == CleanupFinalizer }))
	}
	return nil
}

// readyNodes returns the schedulable, Ready nodes.
func (r *Controller) readyNodes() []*core.Node {
	var out []*core.Node
	for _, n := range r.nodes.List(nil) {
		if n.Spec.Unschedulable {
			continue
		}
		for _, c := range n.Status.Conditions {
			if c.Type == core.NodeReady && c.Status == meta.ConditionTrue {
				out = append(out, n)
			}
		}
	}
	return out
}

func (r *Controller) setIngress(ctx context.Context, svc *core.Service, ing []core.LoadBalancerIngress) error {
	if len(ing) == 0 && len(svc.Status.LoadBalancer.Ingress) == 0 || reflect.DeepEqual(ing, svc.Status.LoadBalancer.Ingress) {
		return nil
	}
	upd := meta.DeepCopy(svc)
	upd.Status.LoadBalancer.Ingress = ing
	_, err := client.For[core.Service](r.client, svc.Namespace).UpdateStatus(ctx, upd)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update load balancer status of %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

func (r *Controller) setFinalizers(ctx context.Context, svc *core.Service, fins []string) error {
	if fins == nil {
		fins = []string{}
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": svc.ResourceVersion, "finalizers": fins}})
	_, err := client.For[core.Service](r.client, svc.Namespace).Patch(ctx, svc.Name, client.MergePatchType, patch)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set finalizers of service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}
