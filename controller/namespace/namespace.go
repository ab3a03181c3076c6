package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
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

// Reconcile deletes the content of a terminating namespace, pods first
// (Kubernetes' ordered namespace deletion: nothing else is deleted while
// a pod is left, so what a pod uses stays until it is gone), then
// finalizes it. Every pass records the deletion conditions
// (recordConditions).
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
	var st deletionState
	resources, err := r.namespacedResources(ctx)
	if err != nil {
		st.discoveryErr = err
		r.recordConditions(ctx, ns, st)
		return controller.Result{}, err
	}
	pods := slices.IndexFunc(resources, func(m client.Mapping) bool { return m.Resource == podsGVR })
	if pods >= 0 {
		r.deleteContent(ctx, ns.Name, resources[pods:pods+1], &st)
		resources = slices.Delete(resources, pods, pods+1)
	}
	if len(st.left) == 0 && len(st.errs) == 0 {
		r.deleteContent(ctx, ns.Name, resources, &st)
	}
	r.recordConditions(ctx, ns, st)
	if err := errors.Join(st.errs...); err != nil {
		return controller.Result{}, err
	}
	if len(st.left) > 0 {
		return controller.Result{RequeueAfter: r.recheck}, nil
	}
	fin := meta.DeepCopy(ns)
	fin.Spec.Finalizers = slices.DeleteFunc(fin.Spec.Finalizers, func(f core.FinalizerName) bool { return f == core.FinalizerKubernetes })
	if fin.Spec.Finalizers == nil {
		fin.Spec.Finalizers = []core.FinalizerName{}
	}
	return controller.Result{}, r.finalizer.Finalize(ctx, fin)
}

// podsGVR is deleted before everything else.
var podsGVR = meta.GroupVersionResource{Version: "v1", Resource: "pods"}

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

// deletionState is what one pass over a namespace's content found.
type deletionState struct {
	discoveryErr error
	// errs are the failures to list or delete a resource.
	errs []error
	// left counts, per resource, the objects still there (being deleted).
	left map[meta.GroupResource]int
	// finalizers counts, per finalizer, the objects left that hold it.
	finalizers map[string]int
}

// deleteContent deletes every object of resources in ns, recording in st
// what is still there (being deleted) and what failed; a failure of one
// resource does not stop the others. An empty resource costs one list; a
// non-empty one a list, the deletes and a list to see what is left.
func (r *Controller) deleteContent(ctx context.Context, ns string, resources []client.Mapping, st *deletionState) {
	for _, m := range resources {
		dyn := client.DynamicFor(r.client, m, ns)
		left, err := r.deleteResource(ctx, dyn, m, ns)
		if err != nil {
			st.errs = append(st.errs, err)
			continue
		}
		for _, o := range left {
			if st.left == nil {
				st.left, st.finalizers = map[meta.GroupResource]int{}, map[string]int{}
			}
			st.left[m.Resource.GroupResource()]++
			for _, f := range o.Finalizers {
				st.finalizers[f]++
			}
		}
	}
}

// deleteResource deletes the objects of one resource in ns and returns
// the metadata of those still there.
func (r *Controller) deleteResource(ctx context.Context, dyn *client.Dynamic, m client.Mapping, ns string) ([]*meta.ObjectMeta, error) {
	l, err := dyn.List(ctx, client.ListOptions{})
	if ignorable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", m.Resource.Resource, ns, err)
	}
	if !slices.ContainsFunc(l.Items, func(o client.Unstructured) bool { return o.DeletionTimestamp == nil }) {
		return metadataOf(l), nil // empty, or everything already terminating
	}
	if slices.Contains(m.Verbs, "deletecollection") {
		if err := dyn.DeleteCollection(ctx, nil, client.ListOptions{}); err != nil && !ignorable(err) {
			return nil, fmt.Errorf("delete %s in %s: %w", m.Resource.Resource, ns, err)
		}
	} else {
		for i := range l.Items {
			o := &l.Items[i]
			if o.DeletionTimestamp != nil {
				continue
			}
			if err := dyn.Delete(ctx, o.Name, nil); err != nil && !ignorable(err) {
				return nil, fmt.Errorf("delete %s %s/%s: %w", m.Resource.Resource, ns, o.Name, err)
			}
		}
	}
	if l, err = dyn.List(ctx, client.ListOptions{}); err != nil && !ignorable(err) {
		return nil, fmt.Errorf("list %s in %s: %w", m.Resource.Resource, ns, err)
	}
	return metadataOf(l), nil
}

func metadataOf(l *meta.List[client.Unstructured]) []*meta.ObjectMeta {
	if l == nil {
		return nil
	}
	out := make([]*meta.ObjectMeta, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i].ObjectMeta
	}
	return out
}

// ignorable: gone already, or a resource the server does not let us
// list or delete (it was in discovery but is not backed for this).
func ignorable(err error) bool {
	return err != nil && (apierrors.IsNotFound(err) || apierrors.IsConflict(err))
}

// deletionConditions are the conditions the controller keeps on a
// terminating namespace, each with the reason and message of its False
// ("nothing wrong") form, as Kubernetes' namespace controller keeps them.
var deletionConditions = []struct {
	t           core.NamespaceConditionType
	reason, msg string
}{
	{core.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"},
	{core.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{core.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{core.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"},
	{core.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// conditionsOf returns the True conditions st calls for, by type.
// Kubernetes words them so; unlike Kubernetes, the remaining-content
// conditions are also set while only pods are left (Kubernetes reports
// them only once it deletes the rest).
func conditionsOf(st deletionState) map[core.NamespaceConditionType]core.NamespaceCondition {
	out := map[core.NamespaceConditionType]core.NamespaceCondition{}
	set := func(t core.NamespaceConditionType, reason, msg string) {
		out[t] = core.NamespaceCondition{Type: t, Status: meta.ConditionTrue, Reason: reason, Message: msg}
	}
	if st.discoveryErr != nil {
		set(core.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", st.discoveryErr.Error())
	}
	if len(st.errs) > 0 {
		msgs := make([]string, len(st.errs))
		for i, e := range st.errs {
			msgs[i] = e.Error()
		}
		sort.Strings(msgs)
		set(core.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(msgs), strings.Join(msgs, ", ")))
	}
	var left, fins []string
	for gr, n := range st.left {
		left = append(left, fmt.Sprintf("%s.%s has %d resource instances", gr.Resource, gr.Group, n))
	}
	for f, n := range st.finalizers {
		fins = append(fins, fmt.Sprintf("%s in %d resource instances", f, n))
	}
	sort.Strings(left)
	sort.Strings(fins)
	if len(left) > 0 {
		set(core.NamespaceContentRemaining, "SomeResourcesRemain", "Some resources are remaining: "+strings.Join(left, ", "))
	}
	if len(fins) > 0 {
		set(core.NamespaceFinalizersRemaining, "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: "+strings.Join(fins, ", "))
	}
	return out
}

// recordConditions writes the namespace's deletion conditions for st:
// True for what went wrong or is left, False ("all done") for the rest,
// when that changes anything (best effort: the reconcile's outcome does
// not depend on it).
func (r *Controller) recordConditions(ctx context.Context, ns *core.Namespace, st deletionState) {
	upd := meta.DeepCopy(ns)
	failing, changed := conditionsOf(st), false
	for _, dc := range deletionConditions {
		want, ok := failing[dc.t]
		if !ok {
			want = core.NamespaceCondition{Type: dc.t, Status: meta.ConditionFalse, Reason: dc.reason, Message: dc.msg}
		}
		i := slices.IndexFunc(upd.Status.Conditions, func(c core.NamespaceCondition) bool { return c.Type == dc.t })
		if i < 0 {
			want.LastTransitionTime = meta.Now()
			upd.Status.Conditions, changed = append(upd.Status.Conditions, want), true
			continue
		}
		c := &upd.Status.Conditions[i]
		if c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			continue
		}
		if c.Status != want.Status {
			c.LastTransitionTime = meta.Now()
		}
		c.Status, c.Reason, c.Message, changed = want.Status, want.Reason, want.Message, true
	}
	if !changed {
		return
	}
	if _, err := client.For[core.Namespace](r.client, "").UpdateStatus(ctx, upd); err != nil && ctx.Err() == nil {
		r.log.Debug("namespace conditions not recorded", "namespace", ns.Name, "err", err)
	}
}
