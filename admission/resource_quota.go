package admission

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// ResourceQuotaName is the name of the ResourceQuota plugin.
const ResourceQuotaName = "ResourceQuota"

// defaultQuotaRetries bounds the compare-and-swap attempts per quota.
const defaultQuotaRetries = 100

// QuotaStore reads and writes the ResourceQuota objects of a namespace.
// List returns fresh objects the caller may change. UpdateStatus writes
// q.Status if q.ResourceVersion is still the stored one and returns the
// stored result; otherwise it writes nothing and returns an error for
// which api/errors.IsConflict holds. Implementations must be safe for
// concurrent use.
type QuotaStore interface {
	List(ctx context.Context, namespace string) ([]*core.ResourceQuota, error)
	UpdateStatus(ctx context.Context, q *core.ResourceQuota) (*core.ResourceQuota, error)
}

// ResourceQuota is a Validator that enforces the ResourceQuota objects of
// a namespace on creates: object counts (pods, services, configmaps,
// secrets, persistentvolumeclaims, resourcequotas, count/<resource>.<group>),
// pod compute (cpu, memory, requests.*, limits.*, hugepages, extended
// resources) and claim storage (requests.storage, per storage class).
//
// Enforcement is exact under concurrency: for every quota that constrains
// the object it adds the object's usage to status.used with a
// compare-and-swap on the quota's resourceVersion, re-reading and
// re-checking on conflict, so no two admissions can both take the last
// unit. If a later quota refuses, the charges already made are given back.
// A refusal is a 403: `exceeded quota: q, requested: pods=1, used:
// pods=10, limited: pods=10`. A quota that limits cpu or memory also
// requires every container to state them (`failed quota: q: must specify
// requests.cpu for: web`). Dry runs are checked but charge nothing.
//
// The limits are spec.hard (mirrored into status.hard on every charge);
// missing status.used entries count as zero unless the plugin was built
// WithUnknownUsageRefused, which refuses as Kubernetes does until a
// controller has computed usage (`status unknown for quota: q, resources:
// pods`).
//
// Usage is only ever added here. It is given back by the quota controller
// (controller/resourcequota), which recomputes status.used from the
// objects that exist with QuotaUsed: after a delete, and after a create that failed once admitted
// (storage error, initializer failure). The API server may call Release
// to give a failed create's usage back at once.
//
// Updates are not charged: pods cannot change their resources, and claim
// expansion is not counted. Because a charge is made when the plugin
// admits, put it last among the validators, as Kubernetes does, so that a
// later refusal cannot leave a charge behind. A ResourceQuota is safe for
// concurrent use.
type ResourceQuota struct {
	Handler
	store         QuotaStore
	retries       int
	refuseUnknown bool
}

var _ Validator = (*ResourceQuota)(nil)

// QuotaOption configures a ResourceQuota plugin.
type QuotaOption func(*ResourceQuota)

// WithQuotaRetries sets how many times a charge to one quota is retried
// after a conflict (default 100; n < 1 means 1).
func WithQuotaRetries(n int) QuotaOption {
	return func(p *ResourceQuota) { p.retries = max(n, 1) }
}

// WithUnknownUsageRefused makes the plugin refuse objects charged to a
// quota whose status.used lacks a limited resource, as Kubernetes does.
func WithUnknownUsageRefused() QuotaOption {
	return func(p *ResourceQuota) { p.refuseUnknown = true }
}

// NewResourceQuota returns the plugin reading and charging quotas through store.
func NewResourceQuota(store QuotaStore, opts ...QuotaOption) *ResourceQuota {
	p := &ResourceQuota{
		Handler: Handler{PluginName: ResourceQuotaName, Operations: []Operation{Create, Update}},
		store:   store,
		retries: defaultQuotaRetries,
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// charge is what one quota is asked to take.
type charge struct {
	name      string
	requested core.ResourceList
}

// Validate checks a create, or an in-place pod resize (pods/resize), against
// every quota of its namespace and charges those it falls under; a resize
// is charged what it adds (kube-apiserver's quota evaluates pods/resize).
func (p *ResourceQuota) Validate(ctx context.Context, a *Attributes) error {
	if a.Namespace == "" || a.Object == nil || !charged(a) {
		return nil
	}
	quotas, err := p.store.List(ctx, a.Namespace)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("list resource quotas of namespace %q: %w", a.Namespace, err))
	}
	if len(quotas) == 0 {
		return nil // nothing to charge: skip computing the object's usage
	}
	usage := removeZeros(ObjectUsage(a.Resource.GroupResource(), a.Object))
	if a.Operation == Update {
		usage = growth(usage, ObjectUsage(a.Resource.GroupResource(), a.OldObject))
		if len(usage) == 0 {
			return nil
		}
	}
	sort.Slice(quotas, func(i, j int) bool { return quotas[i].Name < quotas[j].Name })
	var charges []charge
	for _, q := range quotas {
		c, err := p.evaluate(a, q, usage)
		if err != nil {
			return err
		}
		if len(c.requested) > 0 {
			charges = append(charges, c)
		}
	}
	if a.DryRun || len(charges) == 0 {
		return nil
	}
	current := map[string]*core.ResourceQuota{}
	for _, q := range quotas {
		current[q.Name] = q
	}
	for i, c := range charges {
		if err := p.chargeOne(ctx, a, current[c.name], usage); err != nil {
			p.giveBack(ctx, a.Namespace, charges[:i])
			return err
		}
	}
	return nil
}

// charged reports whether a is charged to quotas: a create of the object
// itself, or a resize of a pod.
func charged(a *Attributes) bool {
	switch a.Operation {
	case Create:
		return a.Subresource == ""
	case Update:
		return a.Subresource == "resize" && a.OldObject != nil &&
			a.Resource.GroupResource() == meta.GroupResource{Resource: "pods"}
	}
	return false
}

// growth is what usage adds to old: per resource the positive difference.
func growth(usage, old core.ResourceList) core.ResourceList {
	out := core.ResourceList{}
	for name, q := range usage {
		if o, ok := old[name]; ok {
			if q.Cmp(o) <= 0 {
				continue
			}
			q = q.DeepCopy()
			q.Sub(o)
		}
		out[name] = q
	}
	return out
}

// evaluate decides whether q constrains the object and whether it may
// take usage now; it returns what q would be charged.
func (p *ResourceQuota) evaluate(a *Attributes, q *core.ResourceQuota, usage core.ResourceList) (charge, error) {
	gr := a.Resource.GroupResource()
	if !quotaMatchesScopes(q, a.Object) {
		return charge{name: q.Name}, nil
	}
	var restricted []core.ResourceName
	for _, name := range sortedKeys(q.Spec.Hard) {
		if quotaTracks(gr, name) {
			restricted = append(restricted, name)
		}
	}
	if len(restricted) == 0 {
		return charge{name: q.Name}, nil
	}
	if pod, ok := a.Object.(*core.Pod); ok {
		if msg := podConstraints(pod, restricted); msg != "" {
			return charge{}, forbidden(a, fmt.Errorf("failed quota: %s: %s", q.Name, msg))
		}
	}
	if p.refuseUnknown {
		var unknown []string
		for _, name := range restricted {
			if _, ok := q.Status.Used[name]; !ok {
				unknown = append(unknown, string(name))
			}
		}
		if len(unknown) > 0 {
			return charge{}, forbidden(a, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, strings.Join(unknown, ",")))
		}
	}
	requested := mask(usage, restricted)
	if exceeded := exceeds(q, requested); len(exceeded) > 0 {
		return charge{}, forbidden(a, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
			prettyPrint(mask(requested, exceeded)), prettyPrint(maskZero(q.Status.Used, exceeded)),
			prettyPrint(mask(q.Spec.Hard, exceeded))))
	}
	return charge{name: q.Name, requested: requested}, nil
}

// exceeds returns the resources of requested that would take q past its
// hard limits.
func exceeds(q *core.ResourceQuota, requested core.ResourceList) []core.ResourceName {
	var out []core.ResourceName
	for _, name := range sortedKeys(requested) {
		next := q.Status.Used[name].DeepCopy()
		next.Add(requested[name])
		if hard := q.Spec.Hard[name]; next.Cmp(hard) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// chargeOne adds the object's usage to one quota with a compare-and-swap,
// re-reading and re-evaluating after every conflict.
func (p *ResourceQuota) chargeOne(ctx context.Context, a *Attributes, q *core.ResourceQuota, usage core.ResourceList) error {
	var lastErr error
	for range p.retries {
		if q == nil {
			return nil // deleted meanwhile: nothing to charge
		}
		c, err := p.evaluate(a, q, usage)
		if err != nil || len(c.requested) == 0 {
			return err
		}
		next := withUsed(q, c.requested, false)
		if _, err = p.store.UpdateStatus(ctx, next); err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return apierrors.NewInternalError(fmt.Errorf("charge resource quota %q: %w", q.Name, err))
		}
		lastErr = err
		name := q.Name
		if q, err = p.reread(ctx, a.Namespace, name); err != nil || q == nil {
			return err
		}
	}
	return apierrors.NewConflict(meta.GroupResource{Resource: "resourcequotas"}, q.Name,
		fmt.Errorf("%w after %d attempts: %v", ErrQuotaContention, p.retries, lastErr))
}

// reread returns the current quota called name, or nil when it is gone.
func (p *ResourceQuota) reread(ctx context.Context, ns, name string) (*core.ResourceQuota, error) {
	if err := ctx.Err(); err != nil {
		return nil, apierrors.NewTimeout(fmt.Sprintf("charging resource quota %q: %v", name, err))
	}
	quotas, err := p.store.List(ctx, ns)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("list resource quotas of namespace %q: %w", ns, err))
	}
	for _, q := range quotas {
		if q.Name == name {
			return q, nil
		}
	}
	return nil, nil
}

// Release gives back the usage of an object that was admitted but not
// stored (or has been deleted): it subtracts the object's usage from every
// quota of a.Namespace it falls under, never below zero, with the same
// compare-and-swap retries as a charge. a describes the create that was
// admitted. It returns the first error; quotas already released stay so.
func (p *ResourceQuota) Release(ctx context.Context, a *Attributes) error {
	if a.Namespace == "" || a.Object == nil {
		return nil
	}
	usage := removeZeros(ObjectUsage(a.Resource.GroupResource(), a.Object))
	quotas, err := p.store.List(ctx, a.Namespace)
	if err != nil {
		return fmt.Errorf("release quota usage in namespace %q: %w", a.Namespace, err)
	}
	var charges []charge
	for _, q := range quotas {
		if !quotaMatchesScopes(q, a.Object) {
			continue
		}
		var restricted []core.ResourceName
		for name := range q.Spec.Hard {
			if quotaTracks(a.Resource.GroupResource(), name) {
				restricted = append(restricted, name)
			}
		}
		if r := mask(usage, restricted); len(r) > 0 {
			charges = append(charges, charge{name: q.Name, requested: r})
		}
	}
	return p.giveBack(ctx, a.Namespace, charges)
}

// giveBack subtracts each charge from its quota, retrying on conflict.
func (p *ResourceQuota) giveBack(ctx context.Context, ns string, charges []charge) error {
	var errs []error
	for _, c := range charges {
		var err error
		for range p.retries {
			var q *core.ResourceQuota
			if q, err = p.reread(ctx, ns, c.name); err != nil || q == nil {
				break
			}
			if _, err = p.store.UpdateStatus(ctx, withUsed(q, c.requested, true)); err == nil || !apierrors.IsConflict(err) {
				break
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("release resource quota %q: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// withUsed returns a copy of q whose status.used has delta added (or
// subtracted, never below zero), with status.hard mirroring spec.hard and
// a zero for every limited resource not yet used.
func withUsed(q *core.ResourceQuota, delta core.ResourceList, subtract bool) *core.ResourceQuota {
	next := meta.DeepCopy(q)
	if next.Status.Used == nil {
		next.Status.Used = core.ResourceList{}
	}
	next.Status.Hard = q.Spec.Hard.DeepCopy()
	for name := range next.Status.Hard {
		if _, ok := next.Status.Used[name]; !ok {
			next.Status.Used[name] = *resource.NewQuantity(0, resource.DecimalSI)
		}
	}
	for name, d := range delta {
		cur := next.Status.Used[name].DeepCopy()
		if subtract {
			cur.Sub(d)
			if cur.Sign() < 0 {
				cur = *resource.NewQuantity(0, d.Format())
			}
		} else {
			cur.Add(d)
		}
		next.Status.Used[name] = cur
	}
	return next
}

// mask returns the entries of rl named in names.
func mask(rl core.ResourceList, names []core.ResourceName) core.ResourceList {
	out := core.ResourceList{}
	for _, n := range names {
		if q, ok := rl[n]; ok {
			out[n] = q.DeepCopy()
		}
	}
	return out
}

// maskZero is mask with a zero for every name rl lacks.
func maskZero(rl core.ResourceList, names []core.ResourceName) core.ResourceList {
	out := mask(rl, names)
	for _, n := range names {
		if _, ok := out[n]; !ok {
			out[n] = *resource.NewQuantity(0, resource.DecimalSI)
		}
	}
	return out
}

// removeZeros drops the zero quantities of rl in place and returns it.
func removeZeros(rl core.ResourceList) core.ResourceList {
	for n, q := range rl {
		if q.IsZero() {
			delete(rl, n)
		}
	}
	return rl
}

// prettyPrint renders a list as Kubernetes' quota messages do: "a=1,b=2".
func prettyPrint(rl core.ResourceList) string {
	parts := make([]string, 0, len(rl))
	for _, n := range sortedKeys(rl) {
		q := rl[n]
		parts = append(parts, string(n)+"="+q.String())
	}
	return strings.Join(parts, ",")
}
