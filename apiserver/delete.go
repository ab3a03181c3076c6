package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/orkit/orkit/admission"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// GracefulStrategy is implemented by strategies of kinds whose deletion
// waits for a grace period (pods): it returns the grace period to apply,
// and false to delete at once.
type GracefulStrategy interface {
	GracePeriod(obj meta.Object, opts *meta.DeleteOptions) (seconds int64, graceful bool)
}

// DeleteStrategy is implemented by strategies of kinds whose deletion
// waits on more than metadata.finalizers (namespaces on spec.finalizers,
// pods on their grace period).
type DeleteStrategy interface {
	// BeginDelete changes an object as its deletion starts.
	BeginDelete(obj meta.Object)
	// Pending reports whether an object marked for deletion must stay.
	Pending(obj meta.Object) bool
}

// delete runs the delete pipeline: preconditions, admission, propagation
// finalizers, graceful deletion, finalizers, then removal. It returns the
// object (the final state, or the one now being deleted) and whether it is
// gone from storage.
func (s *Server) delete(ctx context.Context, req *Request, ns, name string, opts *meta.DeleteOptions) (meta.Object, bool, error) {
	res := req.resource
	var gone bool
	out, err := res.storage.GuaranteedUpdate(ctx, ns, name, true, func(cur meta.Object) (meta.Object, error) {
		gone = false // a retry starts over
		next, err := s.deleteStep(ctx, req, cur, opts, &gone)
		if next != nil {
			countDeletionStart(cur, next)
		}
		return next, err
	})
	if err != nil {
		return nil, false, err
	}
	if gone {
		// GuaranteedUpdate removed it: a deletionTimestamp and no finalizers.
		return out, true, nil
	}
	return out, false, nil
}

// countDeletionStart bumps the generation of an object that tracks one
// when its deletion starts (it gets its deletionTimestamp), as
// kube-apiserver does: its controller must see that the object changed.
func countDeletionStart(cur, next meta.Object) {
	nm := next.GetObjectMeta()
	if cur.GetObjectMeta().DeletionTimestamp == nil && nm.DeletionTimestamp != nil && nm.Generation > 0 {
		nm.Generation++
	}
}

// deleteStep is one try of the delete pipeline on the stored object cur:
// the next state to store (with gone set when it is to be removed), or
// NoChange.
func (s *Server) deleteStep(ctx context.Context, req *Request, cur meta.Object, opts *meta.DeleteOptions, gone *bool) (meta.Object, error) {
	res := req.resource
	cm := cur.GetObjectMeta()
	if err := checkPreconditions(res, cur, opts.Preconditions); err != nil {
		return nil, err
	}
	// Mutating admission runs on deletes too, as kube-apiserver's
	// AdmissionToValidateObjectDeleteFunc does: with no new object and
	// the stored one (a copy) as the old, so a mutating webhook sees the
	// request and its denial blocks the delete; there is nothing for it
	// to patch.
	attrs := s.admissionAttrs(req, admission.Delete, nil, meta.DeepCopy(cur))
	if err := s.admission.Admit(ctx, attrs); err != nil {
		return nil, admissionError(res, cm.Name, err)
	}
	if err := s.admission.Validate(ctx, attrs); err != nil {
		return nil, admissionError(res, cm.Name, err)
	}
	if isDryRun(req.Query) {
		return nil, NoChange()
	}
	next := meta.DeepCopy(cur)
	nm := next.GetObjectMeta()
	addPropagationFinalizer(nm, opts)
	now := meta.Now()
	if ds, ok := res.Strategy.(DeleteStrategy); ok && nm.DeletionTimestamp == nil {
		ds.BeginDelete(next)
	}
	if gs, ok := res.Strategy.(GracefulStrategy); ok {
		if grace, graceful := gs.GracePeriod(cur, opts); graceful {
			if grace > 0 {
				if cm.DeletionGracePeriodSeconds != nil && *cm.DeletionGracePeriodSeconds <= grace {
					return nil, NoChange() // already deleting with a shorter grace period
				}
				t := meta.NewTime(now.Add(time.Duration(grace) * time.Second))
				nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = &t, &grace
				return next, nil
			}
			zero := int64(0)
			nm.DeletionGracePeriodSeconds = &zero
			if nm.DeletionTimestamp == nil {
				nm.DeletionTimestamp = &now
			}
		} else if nm.DeletionGracePeriodSeconds != nil {
			// No longer graceful (the pod terminated while its grace
			// period ran): nothing is pending any more.
			zero := int64(0)
			nm.DeletionGracePeriodSeconds = &zero
		}
	}
	if len(nm.Finalizers) > 0 || res.storage.pending(next) {
		if nm.DeletionTimestamp == nil {
			zero := int64(0)
			nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = &now, &zero
		}
		if sameStored(res.storage, next, cur) {
			return nil, NoChange()
		}
		return next, nil
	}
	// No finalizers and no grace: delete now.
	*gone = true
	if nm.DeletionTimestamp == nil {
		nm.DeletionTimestamp = &now
	}
	return next, nil
}

func checkPreconditions(res *served, cur meta.Object, p *meta.Preconditions) error {
	if p == nil {
		return nil
	}
	m := cur.GetObjectMeta()
	if p.UID != nil && *p.UID != m.UID {
		return apierrors.NewConflict(res.gr(), m.Name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.ResourceVersion {
		return apierrors.NewConflict(res.gr(), m.Name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, m.ResourceVersion))
	}
	return nil
}

// addPropagationFinalizer records an orphan or foreground request as the
// finalizer the garbage collector acts on.
func addPropagationFinalizer(m *meta.ObjectMeta, opts *meta.DeleteOptions) {
	policy := meta.DeletionPropagation("")
	if opts.PropagationPolicy != nil {
		policy = *opts.PropagationPolicy
	} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
		policy = meta.DeletePropagationOrphan
	}
	var f string
	switch policy {
	case meta.DeletePropagationOrphan:
		f = meta.FinalizerOrphanDependents
	case meta.DeletePropagationForeground:
		f = meta.FinalizerDeleteDependents
	default:
		return
	}
	if !m.HasFinalizer(f) {
		m.Finalizers = append(m.Finalizers, f)
	}
}

func (s *Server) handleDeleteCollection(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	opts, err := readDeleteOptions(r, req.Query)
	if err != nil {
		writeError(w, err)
		return
	}
	f, err := parseFilter(req)
	if err != nil {
		writeError(w, err)
		return
	}
	items, listRV, _, _, err := s.listFromStore(ctx, req, f, "")
	if err != nil {
		writeError(w, err)
		return
	}
	var deleted []listItem
	for _, it := range items {
		m := it.obj.GetObjectMeta()
		out, _, err := s.delete(ctx, req, m.Namespace, m.Name, opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			writeError(w, err)
			return
		}
		deleted = append(deleted, listItem{obj: out})
	}
	writeItems(w, r, req, deleted, listRV, "", nil)
}
