package controller

import (
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
)

// ObserveExpectations wraps src, the dependents' informer, so that e sees
// their creations and deletions before any handler does: a dependent
// added after the initial list counts as a creation for the owner key
// owner returns, and one deleted or marked for deletion counts through
// DeletionObservedOf. Watch the result instead of src:
//
//	controller.Watch(c, controller.ObserveExpectations(pods, exp, ownerKey), mapper)
//
// so that when the reconcile the event triggers runs, the expectations
// already include it.
func ObserveExpectations[T meta.Object](src Source[T], e *Expectations, owner func(T) (Request, bool)) Source[T] {
	return observing[T]{src: src, e: e, owner: owner}
}

type observing[T meta.Object] struct {
	src   Source[T]
	e     *Expectations
	owner func(T) (Request, bool)
}

// AddEventHandler registers h behind the expectations observer.
func (o observing[T]) AddEventHandler(h informer.Handler[T], opts ...informer.HandlerOption) *informer.Registration {
	return o.src.AddEventHandler(observer[T]{h: h, o: o}, opts...)
}

type observer[T meta.Object] struct {
	h informer.Handler[T]
	o observing[T]
}

// OnAdd counts a creation (not for the initial list) and, for an object
// already being deleted, a deletion, then hands the object on.
func (w observer[T]) OnAdd(obj T, initial bool) {
	if key, ok := w.o.owner(obj); ok {
		if !initial {
			w.o.e.CreationObserved(key)
		}
		if m := obj.GetObjectMeta(); m.DeletionTimestamp != nil {
			w.o.e.DeletionObservedOf(key, m.UID)
		}
	}
	w.h.OnAdd(obj, initial)
}

// OnUpdate counts a deletion once the object has a deletionTimestamp.
func (w observer[T]) OnUpdate(oldObj, newObj T) {
	if m := newObj.GetObjectMeta(); m.DeletionTimestamp != nil {
		if key, ok := w.o.owner(newObj); ok {
			w.o.e.DeletionObservedOf(key, m.UID)
		}
	}
	w.h.OnUpdate(oldObj, newObj)
}

// OnDelete counts a deletion (tombstones included).
func (w observer[T]) OnDelete(obj any) {
	if o, ok := informer.ObjectOf[T](obj); ok {
		if key, ok := w.o.owner(o); ok {
			w.o.e.DeletionObservedOf(key, o.GetObjectMeta().UID)
		}
	}
	w.h.OnDelete(obj)
}
