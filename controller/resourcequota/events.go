package resourcequota

import (
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// filteredSource is a controller.Source that passes on only the events
// keep accepts (adds, and updates from old to new); deletes always pass.
// It is how the controller, as Kubernetes' quota controller and monitor,
// recomputes a quota only for what the admission plugin does not charge:
// an object's charge is added when it is admitted, so recomputing on its
// add from an informer that may not hold it yet would take the charge
// back and let the next create past the quota.
type filteredSource[T meta.Object] struct {
	src    controller.Source[T]
	add    func(obj T) bool
	update func(oldObj, newObj T) bool
}

// AddEventHandler registers h on the source behind the filter.
func (f filteredSource[T]) AddEventHandler(h informer.Handler[T], opts ...informer.HandlerOption) *informer.Registration {
	return f.src.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc: func(obj T, initial bool) {
			if f.add(obj) {
				h.OnAdd(obj, initial)
			}
		},
		UpdateFunc: func(oldObj, newObj T) {
			if f.update(oldObj, newObj) {
				h.OnUpdate(oldObj, newObj)
			}
		},
		DeleteFunc: h.OnDelete,
	}, opts...)
}

// quotaNeedsSync says whether a quota event asks for its status to be
// computed: a new quota, a changed spec.hard, or a status that does not
// yet mirror spec.hard or lacks usage of a limited resource. Status-only
// changes (the admission plugin's charges, this controller's writes) do
// not.
func quotaNeedsSync(q *core.ResourceQuota) bool {
	if !q.Spec.Hard.Equal(q.Status.Hard) {
		return true
	}
	for name := range q.Status.Hard {
		if _, ok := q.Status.Used[name]; !ok {
			return true
		}
	}
	return false
}

// quotaEvents filters quota events: every add, and the updates that change
// spec.hard or leave the status short of it (quotaNeedsSync).
func quotaEvents(src controller.Source[*core.ResourceQuota]) controller.Source[*core.ResourceQuota] {
	return filteredSource[*core.ResourceQuota]{
		src: src,
		add: func(*core.ResourceQuota) bool { return true },
		update: func(o, n *core.ResourceQuota) bool {
			return !o.Spec.Hard.Equal(n.Spec.Hard) || quotaNeedsSync(n)
		},
	}
}

// objectEvents filters the events of objects of resource gr: adds never
// pass (the admission plugin charged them; objects that existed before a
// quota are counted by its own add, and the resync catches the rest); an
// update passes when it changes what the object charges (a pod that
// finished, a Service that became a NodePort, a claim that grew); deletes
// pass.
func objectEvents[T meta.Object](src controller.Source[T], gr meta.GroupResource, now func() time.Time) controller.Source[T] {
	return filteredSource[T]{
		src: src,
		add: func(T) bool { return false },
		update: func(o, n T) bool {
			t := now()
			return !admission.QuotaCharge(gr, o, t).Equal(admission.QuotaCharge(gr, n, t))
		},
	}
}
