package controller

import (
	"slices"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
)

// Source is where a controller hears about objects of type T: an
// *informer.Informer[T] (usually a Manager's shared one). The controller
// registers its handler when it starts and removes it when it stops.
type Source[T meta.Object] interface {
	AddEventHandler(h informer.Handler[T], opts ...informer.HandlerOption) *informer.Registration
}

var _ Source[*coordination.Lease] = (*informer.Informer[*coordination.Lease])(nil)

// Mapper turns an object the controller watches into the requests to
// reconcile (none, one or several). It is called on the handler's
// goroutine with the cache's object, which it must not modify, and must
// not block.
type Mapper[T meta.Object] func(obj T) []Request

// Watch makes c reconcile the requests m maps each added, updated and
// deleted object of src to. On an update both the old and the new
// object are mapped (an object that moved from one owner to another
// concerns both). Tombstones of deletes seen only by a relist are
// unwrapped. Watches must be set up before c runs; one added while it
// runs takes effect at its next Run.
func Watch[T meta.Object](c *Controller, src Source[T], m Mapper[T]) {
	c.addWatch(func(enqueue func(Request)) *informer.Registration {
		return src.AddEventHandler(mapHandler[T]{m: m, enqueue: enqueue})
	})
}

// WatchObjects makes c reconcile the objects of src themselves: each
// event enqueues the object's own namespace/name.
func WatchObjects[T meta.Object](c *Controller, src Source[T]) {
	Watch(c, src, EnqueueObject[T])
}

// WatchOwned makes c reconcile the controlling owners of the objects of
// src: those whose controller reference (the ownerReference with
// controller=true) names an owner of the given kind.
func WatchOwned[T meta.Object](c *Controller, src Source[T], owner OwnerKind) {
	Watch(c, src, EnqueueOwner[T](owner))
}

// OwnerKind says which owners EnqueueOwner maps dependents to.
type OwnerKind struct {
	// Group ("" for the core group) and Kind of the owner; the version in
	// the reference is ignored.
	Group, Kind string
	// ClusterScoped owners (a Namespace, a Node) are requested without a
	// namespace; other owners live in their dependent's namespace.
	ClusterScoped bool
}

// EnqueueObject maps an object to its own request.
func EnqueueObject[T meta.Object](obj T) []Request {
	m := obj.GetObjectMeta()
	return []Request{{Namespace: m.Namespace, Name: m.Name}}
}

// EnqueueOwner returns a Mapper from a dependent to its controlling
// owner, when that owner is of the given kind. Dependents without a
// controller reference, or controlled by another kind, map to nothing.
func EnqueueOwner[T meta.Object](owner OwnerKind) Mapper[T] {
	return func(obj T) []Request {
		m := obj.GetObjectMeta()
		ref := meta.ControllerOf(m)
		if ref == nil || ref.Kind != owner.Kind || ref.Name == "" {
			return nil
		}
		if meta.ParseGroupVersion(ref.APIVersion).Group != owner.Group {
			return nil
		}
		if owner.ClusterScoped {
			return []Request{{Name: ref.Name}}
		}
		return []Request{{Namespace: m.Namespace, Name: ref.Name}}
	}
}

// EnqueueSelectingOwners returns a Mapper from an orphan (an object with
// no controller reference, not being deleted) to the owners of its
// namespace in owners whose label selector matches it: those that may
// adopt it (ClaimObjects). An owner whose selector is invalid or empty
// selects nothing; accept, when set, narrows the owners further (a
// StatefulSet takes only pods named for its ordinals). Objects that have
// a controller map to nothing: map them with EnqueueOwner.
func EnqueueSelectingOwners[T, O meta.Object](owners informer.Lister[O], selector func(O) *meta.LabelSelector, accept func(owner O, obj T) bool) Mapper[T] {
	return func(obj T) []Request {
		m := obj.GetObjectMeta()
		if meta.ControllerOf(m) != nil || m.DeletionTimestamp != nil {
			return nil
		}
		var out []Request
		for _, o := range owners.Namespace(m.Namespace).List(nil) {
			sel, err := labels.SelectorFromLabelSelector(selector(o))
			if err != nil || sel.Empty() || !sel.Matches(labels.Set(m.Labels)) || accept != nil && !accept(o, obj) {
				continue
			}
			om := o.GetObjectMeta()
			out = append(out, Request{Namespace: om.Namespace, Name: om.Name})
		}
		return out
	}
}

// mapHandler is the informer handler behind Watch.
type mapHandler[T meta.Object] struct {
	m       Mapper[T]
	enqueue func(Request)
}

var _ informer.Handler[*coordination.Lease] = mapHandler[*coordination.Lease]{}

func (h mapHandler[T]) add(obj T) {
	for _, r := range h.m(obj) {
		h.enqueue(r)
	}
}

// OnAdd enqueues the requests obj maps to.
func (h mapHandler[T]) OnAdd(obj T, _ bool) { h.add(obj) }

// OnUpdate enqueues the requests of the new object, then those of the
// old one that the new one does not map to.
func (h mapHandler[T]) OnUpdate(oldObj, newObj T) {
	reqs := h.m(newObj)
	for _, r := range reqs {
		h.enqueue(r)
	}
	for _, r := range h.m(oldObj) {
		if !slices.Contains(reqs, r) {
			h.enqueue(r)
		}
	}
}

// OnDelete enqueues the requests of the deleted object (unwrapping a
// tombstone); anything else is ignored.
func (h mapHandler[T]) OnDelete(obj any) {
	if o, ok := informer.ObjectOf[T](obj); ok {
		h.add(o)
	}
}
