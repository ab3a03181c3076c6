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

// Options configure the controller. Provider is required.
type Options struct {
	// Provider makes the load balancers.
	Provider LoadBalancer
	// Workers; default 2.
	Workers int
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Reconciler drives a provider from LoadBalancer Services. Make one with
// New; safe for concurrent use.
type Reconciler struct {
	client   *client.Client
	services informer.Lister[*core.Service]
	nodes    informer.Lister[*core.Node]
	provider LoadBalancer
	restore  sync.Once
}

var _ controller.Reconciler = (*Reconciler)(nil)

// New makes the service load balancer controller over the manager's
// Service and Node informers.
func New(m *controller.Manager, opts Options) (*controller.Controller, *Reconciler, error) {
	if m == nil || opts.Provider == nil {
		return nil, nil, fmt.Errorf("%w: a manager and a provider are required", ErrInvalidOptions)
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	svcInf, err := controller.InformerFor[core.Service](m, "")
	if err != nil {
		return nil, nil, err
	}
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, nil, err
	}
	r := &Reconciler{client: m.Client(), services: svcInf.Lister(), nodes: nodeInf.Lister(), provider: opts.Provider}
	c, err := controller.New("servicelb", r, controller.Config{Workers: opts.Workers, Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	controller.WatchObjects(c, svcInf)
	controller.Watch(c, nodeInf, func(*core.Node) []controller.Request { return r.loadBalancers() })
	return c, r, nil
}

// loadBalancers returns a request for every LoadBalancer Service.
func (r *Reconciler) loadBalancers() []controller.Request {
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
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
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

func (r *Reconciler) restoreAll() {
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

func (r *Reconciler) ensure(ctx context.Context, svc *core.Service) error {
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

func (r *Reconciler) teardown(ctx context.Context, svc *core.Service) error {
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
func (r *Reconciler) readyNodes() []*core.Node {
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

func (r *Reconciler) setIngress(ctx context.Context, svc *core.Service, ing []core.LoadBalancerIngress) error {
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

func (r *Reconciler) setFinalizers(ctx context.Context, svc *core.Service, fins []string) error {
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
