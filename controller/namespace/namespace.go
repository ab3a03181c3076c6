package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// DefaultRecheck is how soon a namespace whose content is still going
// away is looked at again.
const DefaultRecheck = time.Second

// Config configures the controller. The zero value is usable.
type Config struct {
	// Finalizer writes the finalize subresource; default through the
	// manager's client.
	Finalizer Finalizer
	// Recheck is how soon a namespace with content left is looked at
	// again; default DefaultRecheck.
	Recheck time.Duration
	// Workers; default 2.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller empties and finalizes terminating namespaces. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client     *client.Client
	namespaces informer.Lister[*core.Namespace]
	finalizer  Finalizer
	recheck    time.Duration
	log        *slog.Logger
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the namespace controller over m's shared informers of
// Namespaces, writing through m's client; add it to m (m.Add) to run it
// while m leads, or Run it. It fails with ErrInvalidConfig without a
// manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Finalizer == nil {
		cfg.Finalizer = clientFinalizer{m.Client()}
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = DefaultRecheck
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	inf, err := controller.InformerFor[core.Namespace](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), namespaces: inf.Lister(), finalizer: cfg.Finalizer, recheck: cfg.Recheck, log: cfg.Logger}
	c, err := controller.New("namespace", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, inf)
	r.Controller = c
	return r, nil
}

// Reconcile deletes the content of a terminating namespace, then
// finalizes it.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ns, err := r.namespaces.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, core.FinalizerKubernetes) {
		return controller.Result{}, nil
	}
	resources, err := r.namespacedResources(ctx)
	if err != nil {
		r.setCondition(ctx, ns, core.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", err.Error())
		return controller.Result{}, err
	}
	left, err := r.deleteContent(ctx, ns.Name, resources)
	if err != nil {
		r.setCondition(ctx, ns, core.NamespaceDeletionContentFailure, "ContentDeletionFailed", err.Error())
		return controller.Result{}, err
	}
	if len(left) > 0 {
		r.setCondition(ctx, ns, core.NamespaceContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+strings.Join(left, ", "))
		return controller.Result{RequeueAfter: r.recheck}, nil
	}
	fin := meta.DeepCopy(ns)
	fin.Spec.Finalizers = slices.DeleteFunc(fin.Spec.Finalizers, func(f core.FinalizerName) bool { return f == core.FinalizerKubernetes })
	if fin.Spec.Finalizers == nil {
		fin.Spec.Finalizers = []core.FinalizerName{}
	}
	return controller.Result{}, r.finalizer.Finalize(ctx, fin)
}

// namespacedResources returns, through discovery, every namespaced
// resource of each group's preferred version that can be listed and
// deleted.
func (r *Controller) namespacedResources(ctx context.Context) ([]client.Mapping, error) {
	d := r.client.Discovery()
	groups, err := d.ServerGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("discover groups: %w", err)
	}
	var out []client.Mapping
	for _, g := range groups {
		gv := meta.ParseGroupVersion(g.PreferredVersion.GroupVersion)
		list, err := d.ServerResources(ctx, gv)
		if err != nil {
			return nil, fmt.Errorf("discover %s: %w", gv, err)
		}
		for _, res := range list.Resources {
			if !res.Namespaced || strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") ||
				!slices.Contains(res.Verbs, "delete") {
				continue
			}
			out = append(out, client.Mapping{Resource: gv.WithResource(res.Name), Kind: gv.WithKind(res.Kind),
				Namespaced: true, Verbs: res.Verbs})
		}
	}
	return out, nil
}

// deleteContent deletes every object of resources in ns and returns
// "<count> <resource>" for what is still there (being deleted). An empty
// resource costs one list; a non-empty one a list, the deletes and a
// list to count what is left.
func (r *Controller) deleteContent(ctx context.Context, ns string, resources []client.Mapping) ([]string, error) {
	var left []string
	for _, m := range resources {
		dyn := client.DynamicFor(r.client, m, ns)
		n, err := r.deleteResource(ctx, dyn, m, ns)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			left = append(left, fmt.Sprintf("%d %s", n, m.Resource.GroupResource()))
		}
	}
	return left, nil
}

// deleteResource deletes the objects of one resource in ns and returns
// how many are still there.
func (r *Controller) deleteResource(ctx context.Context, dyn *client.Dynamic, m client.Mapping, ns string) (int, error) {
	l, err := dyn.List(ctx, client.ListOptions{})
	if ignorable(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("list %s in %s: %w", m.Resource.Resource, ns, err)
	}
	pending := 0
	for i := range l.Items {
		if l.Items[i].DeletionTimestamp == nil {
			pending++
		}
	}
	if pending == 0 {
		return len(l.Items), nil // empty, or everything already terminating
	}
	if slices.Contains(m.Verbs, "deletecollection") {
		if err := dyn.DeleteCollection(ctx, nil, client.ListOptions{}); err != nil && !ignorable(err) {
			return 0, fmt.Errorf("delete %s in %s: %w", m.Resource.Resource, ns, err)
		}
	} else {
		for i := range l.Items {
			o := &l.Items[i]
			if o.DeletionTimestamp != nil {
				continue
			}
			if err := dyn.Delete(ctx, o.Name, nil); err != nil && !ignorable(err) {
				return 0, fmt.Errorf("delete %s %s/%s: %w", m.Resource.Resource, ns, o.Name, err)
			}
		}
	}
	if l, err = dyn.List(ctx, client.ListOptions{}); err != nil && !ignorable(err) {
		return 0, fmt.Errorf("list %s in %s: %w", m.Resource.Resource, ns, err)
	}
	if l == nil {
		return 0, nil
	}
	return len(l.Items), nil
}

// ignorable: gone already, or a resource the server does not let us
// list or delete (it was in discovery but is not backed for this).
func ignorable(err error) bool {
	return err != nil && (apierrors.IsNotFound(err) || apierrors.IsConflict(err))
}

// setCondition records a deletion condition in the namespace's status
// (best effort: the reconcile's outcome does not depend on it).
func (r *Controller) setCondition(ctx context.Context, ns *core.Namespace, t core.NamespaceConditionType, reason, msg string) {
	upd := meta.DeepCopy(ns)
	for i, c := range upd.Status.Conditions {
		if c.Type == t {
			if c.Status == meta.ConditionTrue && c.Message == msg {
				return
			}
			upd.Status.Conditions = slices.Delete(upd.Status.Conditions, i, i+1)
			break
		}
	}
	upd.Status.Conditions = append(upd.Status.Conditions, core.NamespaceCondition{Type: t, Status: meta.ConditionTrue,
		Reason: reason, Message: msg, LastTransitionTime: meta.Now()})
	if _, err := client.For[core.Namespace](r.client, "").UpdateStatus(ctx, upd); err != nil && ctx.Err() == nil {
		r.log.Debug("namespace condition not recorded", "namespace", ns.Name, "err", err)
	}
}
