package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// ownerState is what a live check found of one owner.
type ownerState int

const (
	ownerSolid    ownerState = iota // exists, not deleting in the foreground
	ownerWaiting                    // exists, deleting in the foreground
	ownerDangling                   // absent, or another object under the name
)

// process handles the object uid as the graph has it now. It returns a
// delay after which to look again, or an error to retry with backoff.
func (gc *Controller) process(ctx context.Context, uid meta.UID) (time.Duration, error) {
	n, ok := gc.graph.get(uid)
	if !ok {
		return 0, nil // gone; its dependents were queued when it went
	}
	if n.deleting {
		switch {
		case n.hasFinalizer(meta.FinalizerOrphanDependents):
			return 0, gc.orphanDependents(ctx, n)
		case n.hasFinalizer(meta.FinalizerDeleteDependents):
			return 0, gc.deleteDependents(ctx, n)
		}
		return 0, nil
	}
	if len(n.owners) == 0 {
		return 0, nil
	}
	return gc.attemptToDelete(ctx, n)
}

// attemptToDelete deletes n when none of its owners exists any more (or
// the remaining ones are deleting in the foreground), and otherwise drops
// references to owners that are gone or deleting in the foreground.
//
// Acting on n reads it live first and classifies its current owners: the
// graph may not have seen an owner just added (a dependent given a second
// owner right before the first is deleted must not be collected), as
// Kubernetes' collector reads the latest object.
func (gc *Controller) attemptToDelete(ctx context.Context, n *node) (time.Duration, error) {
	solid, waiting, dangling, retry, err := gc.classify(ctx, n)
	if err != nil || (len(solid) > 0 && len(dangling) == 0 && len(waiting) == 0) {
		return retry, err // nothing to do
	}
	live, err := client.DynamicFor(gc.client, n.mapping, n.namespace).Get(ctx, n.name)
	if apierrors.IsNotFound(err) || (err == nil && live.UID != n.uid) {
		return 0, nil // gone, or another object under the name
	}
	if err != nil {
		return 0, fmt.Errorf("get %s: %w", n.key(), err)
	}
	if !slices.EqualFunc(live.OwnerReferences, n.owners, func(a, b meta.OwnerReference) bool { return a.UID == b.UID }) {
		n.owners = live.OwnerReferences
		if solid, waiting, dangling, retry, err = gc.classify(ctx, n); err != nil {
			return 0, err
		}
	}
	if len(n.owners) == 0 {
		return 0, nil
	}
	if len(solid) > 0 {
		if len(dangling) == 0 && len(waiting) == 0 {
			return retry, nil
		}
		// References to owners deleting in the foreground go too, as
		// Kubernetes' collector drops them: the owner may finish only once
		// no dependent refers to it, and one with another owner stays.
		return retry, gc.mutate(ctx, n, func(m *meta.ObjectMeta) bool {
			return dropOwners(m, append(dangling, waiting...))
		})
	}
	policy := meta.DeletePropagationBackground
	switch {
	case len(waiting) > 0 && len(gc.graph.dependentUIDs(n.uid)) > 0:
		policy = meta.DeletePropagationForeground
		if err := gc.breakCycle(ctx, n); err != nil {
			return 0, err
		}
	case n.hasFinalizer(meta.FinalizerOrphanDependents):
		policy = meta.DeletePropagationOrphan
	}
	gc.opts.Logger.Info("deleting dependent", "object", n.key(), "policy", policy, "danglingOwners", len(dangling), "ownersDeletingInForeground", len(waiting))
	return 0, gc.delete(ctx, n, policy)
}

// classify sorts n's owners by their state; retry is set when an owner
// must be looked at again later (its kind unresolvable, or not followed).
func (gc *Controller) classify(ctx context.Context, n *node) (solid, waiting, dangling []meta.UID, retry time.Duration, err error) {
	for _, ref := range n.owners {
		st, err := gc.ownerState(ctx, n, ref)
		if errors.Is(err, ErrUnresolvableOwner) {
			gc.opts.Logger.Warn("keeping dependent of an unresolvable owner", "object", n.key(), "owner", ref.Kind, "err", err)
			st, retry = ownerSolid, gc.opts.DiscoveryPeriod
		} else if err != nil {
			return nil, nil, nil, 0, err
		}
		switch st {
		case ownerSolid:
			if _, inGraph := gc.graph.get(ref.UID); !inGraph {
				// Found by a live GET only: its resource is not followed
				// (yet), so no event will tell when it goes. Look again.
				retry = gc.opts.DiscoveryPeriod
			}
			solid = append(solid, ref.UID)
		case ownerWaiting:
			waiting = append(waiting, ref.UID)
		case ownerDangling:
			dangling = append(dangling, ref.UID)
		}
	}
	return solid, waiting, dangling, retry, nil
}

// breakCycle unblocks n's owner references when one of n's dependents is
// itself deleting in the foreground, as Kubernetes' collector does before
// deleting n in the foreground: owners waiting on n, n waiting on that
// dependent, and the dependent (through ownerReferences that form a
// circle) waiting on them would otherwise wait for each other forever.
// Like Kubernetes', this may unblock where there is no circle; then an
// owner only finishes its deletion before n instead of after it.
func (gc *Controller) breakCycle(ctx context.Context, n *node) error {
	for _, d := range gc.graph.dependentsOf(n.uid) {
		if !d.waitingForDependents() {
			continue
		}
		owners := make([]meta.UID, len(n.owners))
		for i, r := range n.owners {
			owners[i] = r.UID
		}
		gc.opts.Logger.Info("unblocking owners of a dependent whose own dependent deletes in the foreground (a possible ownership circle)",
			"object", n.key(), "dependent", d.key())
		return gc.mutate(ctx, n, func(m *meta.ObjectMeta) bool { return unblockOwners(m, owners) })
	}
	return nil
}

// ownerState finds out whether ref's owner exists: from the graph when it
// is there (a cache that may lag, but never shows an owner that never
// existed), else by a live GET in the dependent's namespace, whose UID
// must match.
func (gc *Controller) ownerState(ctx context.Context, n *node, ref meta.OwnerReference) (ownerState, error) {
	// A namespaced owner counts only in the dependent's own namespace:
	// cross-namespace references are treated as absent, as Kubernetes does.
	if o, ok := gc.graph.get(ref.UID); ok && (o.namespace == "" || o.namespace == n.namespace) {
		if o.waitingForDependents() {
			return ownerWaiting, nil
		}
		return ownerSolid, nil
	}
	if gc.absent.has(ref.UID) {
		return ownerDangling, nil
	}
	m, err := gc.mappingFor(ctx, ref)
	if err != nil {
		return ownerSolid, err
	}
	ns := ""
	if m.Namespaced {
		if n.namespace == "" {
			return ownerSolid, fmt.Errorf("%w: cluster-scoped %s names namespaced owner %s", ErrUnresolvableOwner, n.key(), ref.Kind)
		}
		ns = n.namespace
	}
	live, err := client.DynamicFor(gc.client, m, ns).Get(ctx, ref.Name)
	switch {
	case apierrors.IsNotFound(err) || (err == nil && live.UID != ref.UID):
		gc.absent.add(ref.UID)
		return ownerDangling, nil
	case err != nil:
		return ownerSolid, fmt.Errorf("get owner %s %q of %s: %w", ref.Kind, ref.Name, n.key(), err)
	case live.DeletionTimestamp != nil && live.HasFinalizer(meta.FinalizerDeleteDependents):
		return ownerWaiting, nil
	}
	return ownerSolid, nil
}

// mappingFor resolves an ownerReference's kind, in its version if
// served, else in the group's preferred one.
func (gc *Controller) mappingFor(ctx context.Context, ref meta.OwnerReference) (client.Mapping, error) {
	gvk := meta.ParseGroupVersion(ref.APIVersion).WithKind(ref.Kind)
	if gc.unknownKinds.has(gvk, time.Now()) {
		// A miss refreshes discovery; once per kind and DiscoveryPeriod
		// is enough.
		return client.Mapping{}, fmt.Errorf("%w: %s", ErrUnresolvableOwner, gvk)
	}
	m, err := gc.resolve(ctx, gvk)
	if errors.Is(err, ErrUnresolvableOwner) {
		gc.unknownKinds.add(gvk, time.Now(), gc.opts.DiscoveryPeriod)
	}
	return m, err
}

func (gc *Controller) resolve(ctx context.Context, gvk meta.GroupVersionKind) (client.Mapping, error) {
	mapper := gc.client.RESTMapper()
	m, err := mapper.ForKind(ctx, gvk)
	if errors.Is(err, client.ErrNoMatch) && gvk.Version != "" {
		gvk.Version = ""
		m, err = mapper.ForKind(ctx, gvk)
	}
	if errors.Is(err, client.ErrNoMatch) {
		return m, fmt.Errorf("%w: %s: %v", ErrUnresolvableOwner, gvk, err)
	}
	return m, err
}

// orphanDependents strips the references to n from its dependents, then
// removes n's orphan finalizer so that its deletion completes.
func (gc *Controller) orphanDependents(ctx context.Context, n *node) error {
	var errs []error
	for _, d := range gc.graph.dependentsOf(n.uid) {
		err := gc.mutate(ctx, d, func(m *meta.ObjectMeta) bool { return dropOwners(m, []meta.UID{n.uid}) })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gc.metrics.orphaned.Inc()
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	gc.opts.Logger.Info("orphaned dependents", "owner", n.key())
	return gc.mutate(ctx, n, func(m *meta.ObjectMeta) bool { return dropFinalizer(m, meta.FinalizerOrphanDependents) })
}

// deleteDependents deletes n's dependents and, once none that blocks
// n's deletion is left, removes n's foregroundDeletion finalizer. Until
// then the dependents' deletions requeue n.
func (gc *Controller) deleteDependents(ctx context.Context, n *node) error {
	blocking := 0
	var errs []error
	for _, d := range gc.graph.dependentsOf(n.uid) {
		if ref := d.ownerRef(n.uid); ref != nil && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			blocking++
		}
		if !d.deleting {
			if _, err := gc.attemptToDelete(ctx, d); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if blocking > 0 {
		return nil
	}
	gc.opts.Logger.Info("dependents deleted; finishing foreground deletion", "owner", n.key())
	if err := gc.mutate(ctx, n, func(m *meta.ObjectMeta) bool { return dropFinalizer(m, meta.FinalizerDeleteDependents) }); err != nil {
		return err
	}
	gc.metrics.foreground.Inc()
	return nil
}

// delete deletes n (if it is still the object with n's UID) with policy.
func (gc *Controller) delete(ctx context.Context, n *node, policy meta.DeletionPropagation) error {
	uid := n.uid
	opts := &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}, PropagationPolicy: &policy}
	err := client.DynamicFor(gc.client, n.mapping, n.namespace).Delete(ctx, n.name, opts)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or replaced by another object of the name
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", n.key(), err)
	}
	gc.metrics.deletions.WithLabelValues(string(policy)).Inc()
	return nil
}

// maxConflicts bounds the read-modify-write retries of mutate.
const maxConflicts = 5

// mutate reads n live, applies change to its metadata and writes it back
// when change reports a change, retrying on conflicts. A missing object,
// or another object under n's name, is left alone.
func (gc *Controller) mutate(ctx context.Context, n *node, change func(*meta.ObjectMeta) bool) error {
	res := client.DynamicFor(gc.client, n.mapping, n.namespace)
	var err error
	for range maxConflicts {
		var cur *client.Unstructured
		cur, err = res.Get(ctx, n.name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("get %s: %w", n.key(), err)
		}
		if cur.UID != n.uid || !change(&cur.ObjectMeta) {
			return nil
		}
		_, err = res.Update(ctx, cur)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", n.key(), err)
	}
	return nil
}

func dropOwners(m *meta.ObjectMeta, uids []meta.UID) bool {
	before := len(m.OwnerReferences)
	m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(r meta.OwnerReference) bool { return slices.Contains(uids, r.UID) })
	if len(m.OwnerReferences) == 0 {
		m.OwnerReferences = nil
	}
	return len(m.OwnerReferences) != before
}

func unblockOwners(m *meta.ObjectMeta, uids []meta.UID) bool {
	changed := false
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		if slices.Contains(uids, r.UID) && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			no := false
			r.BlockOwnerDeletion, changed = &no, true
		}
	}
	return changed
}

func dropFinalizer(m *meta.ObjectMeta, f string) bool {
	before := len(m.Finalizers)
	m.Finalizers = slices.DeleteFunc(m.Finalizers, func(x string) bool { return x == f })
	if len(m.Finalizers) == 0 {
		m.Finalizers = nil
	}
	return len(m.Finalizers) != before
}

// key names n in logs: "Kind ns/name".
func (n *node) key() string {
	if n.namespace == "" {
		return n.mapping.Kind.Kind + " " + n.name
	}
	return n.mapping.Kind.Kind + " " + n.namespace + "/" + n.name
}
