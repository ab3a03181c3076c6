package informer

import (
	"fmt"

	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// Lister reads typed objects from an Indexer. The objects are the cache's
// own: treat them as read-only. It is a small value, safe for concurrent
// use, valid as long as its Indexer.
type Lister[T meta.Object] struct{ ix *Indexer[T] }

// NewLister returns a Lister over ix.
func NewLister[T meta.Object](ix *Indexer[T]) Lister[T] { return Lister[T]{ix: ix} }

// List returns the objects whose labels match sel (nil: all).
func (l Lister[T]) List(sel labels.Selector) []T {
	return filterLabels(l.ix.List(), sel)
}

// Get returns the object namespace/name (namespace "" for cluster-scoped),
// or an error wrapping ErrNotFound.
func (l Lister[T]) Get(namespace, name string) (T, error) {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	obj, ok := l.ix.Get(key)
	if !ok {
		return obj, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return obj, nil
}

// Namespace returns a lister restricted to namespace ns.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{ix: l.ix, ns: ns}
}

// NamespaceLister reads the objects of one namespace.
type NamespaceLister[T meta.Object] struct {
	ix *Indexer[T]
	ns string
}

// List returns the namespace's objects whose labels match sel (nil: all),
// through NamespaceIndex when the Indexer has it.
func (l NamespaceLister[T]) List(sel labels.Selector) []T {
	objs, err := l.ix.ByIndex(NamespaceIndex, l.ns)
	if err != nil { // no namespace index: scan
		all := l.ix.List()
		objs = all[:0:0]
		for _, o := range all {
			if o.GetObjectMeta().Namespace == l.ns {
				objs = append(objs, o)
			}
		}
	}
	return filterLabels(objs, sel)
}

// Get returns the object name in the namespace, or an error wrapping
// ErrNotFound.
func (l NamespaceLister[T]) Get(name string) (T, error) {
	return Lister[T]{ix: l.ix}.Get(l.ns, name)
}

func filterLabels[T meta.Object](objs []T, sel labels.Selector) []T {
	if sel == nil || sel.Empty() {
		return objs
	}
	out := objs[:0]
	for _, o := range objs {
		if sel.Matches(labels.Set(o.GetObjectMeta().Labels)) {
			out = append(out, o)
		}
	}
	return out
}
