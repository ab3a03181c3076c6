package apiserver

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/store"
)

// evictionRetries bounds the attempts of an eviction that keeps meeting
// conflicting writes (of the pod or of its budget), as Kubernetes'
// EvictionsRetry does (20 steps).
const evictionRetries = 20

// Messages worded as kube-apiserver words them.
const (
	msgViolatesBudget    = "Cannot evict pod as it would violate the pod's disruption budget."
	msgMultipleBudgets   = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	msgEvictionNameDiffs = "name in URL does not match name in Eviction object"
)

// pdbGVR is the resource of PodDisruptionBudgets.
var pdbGVR = meta.GroupVersionResource{Group: policy.GroupName, Version: policy.Version, Resource: "poddisruptionbudgets"}

// servePodEviction handles POST pods/<name>/eviction (policy/v1
// Eviction), as kube-apiserver's EvictionREST does: a pod that is
// pending, terminal or already being deleted is deleted without looking
// at budgets; otherwise the one PodDisruptionBudget selecting the pod
// (more than one: 500) must allow a disruption, which is taken from its
// status (a resourceVersion-guarded write that also records the pod in
// disruptedPods) before the pod is deleted with the eviction's delete
// options. A budget that allows none answers 429 with the
// DisruptionBudget cause, so that clients (kubectl drain) retry. Dry runs
// (query or deleteOptions.dryRun) check everything and write nothing.
func (s *Server) servePodEviction(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "create" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	ev, err := readEviction(r, req)
	if err != nil {
		writeError(w, err)
		return
	}
	st, err := s.evict(ctx, s.evictionDeleteRequest(req, ev.DeleteOptions), ev.DeleteOptions)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, int(st.Code), st)
}

// readEviction decodes the body and checks it names the pod of the URL;
// the delete options default to empty ones.
func readEviction(r *http.Request, req *Request) (*policy.Eviction, error) {
	body, _, err := readBody(r, "application/json", "application/yaml")
	if err != nil {
		return nil, err
	}
	ev := &policy.Eviction{}
	if err := decodeStrict(body, ev, false); err != nil {
		return nil, err
	}
	if ev.Name != "" && ev.Name != req.Info.Name {
		return nil, apierrors.NewBadRequest(msgEvictionNameDiffs)
	}
	if ev.DeleteOptions == nil {
		ev.DeleteOptions = &meta.DeleteOptions{}
	}
	if p := ev.DeleteOptions.PropagationPolicy; p != nil {
		switch *p {
		case meta.DeletePropagationOrphan, meta.DeletePropagationBackground, meta.DeletePropagationForeground:
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("propagationPolicy %q is not supported", *p))
		}
	}
	return ev, nil
}

// evictionDeleteRequest returns the request the pod's deletion runs as:
// the pods resource without the subresource, with the dry run of the
// query and of the delete options merged (into both).
func (s *Server) evictionDeleteRequest(req *Request, opts *meta.DeleteOptions) *Request {
	info := *req.Info
	info.Subresource, info.Verb = "", "delete"
	q := url.Values{}
	maps.Copy(q, req.Query)
	if len(opts.DryRun) > 0 && len(q["dryRun"]) == 0 {
		q["dryRun"] = opts.DryRun
	}
	if len(q["dryRun"]) > 0 && len(opts.DryRun) == 0 {
		opts.DryRun = q["dryRun"]
	}
	del := *req
	del.Info, del.Query = &info, q
	return &del
}

// evictionSucceeded is the answer to an eviction that deleted (or, in a
// dry run, would delete) the pod.
func evictionSucceeded() *meta.Status {
	return &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess, Code: http.StatusCreated}
}

// evict runs the eviction of the pod req names and returns the Status to
// answer with (success, or the 500 of several budgets) or an error.
func (s *Server) evict(ctx context.Context, req *Request, opts *meta.DeleteOptions) (*meta.Status, error) {
	var pod *core.Pod
	for attempt := 0; ; attempt++ {
		obj, err := s.getVisible(ctx, req)
		if err != nil {
			return nil, err
		}
		pod = obj.(*core.Pod)
		if !canIgnoreBudget(pod) {
			break
		}
		delOpts := opts
		if rvUnset(opts) && pod.Status.Phase == core.PodPending {
			// A pending pod may start meanwhile: delete only this version.
			delOpts = withResourceVersion(opts, pod.ResourceVersion)
		}
		err = s.addConditionAndDelete(ctx, req, delOpts)
		if err == nil {
			return evictionSucceeded(), nil
		}
		if !apierrors.IsConflict(err) || !rvUnset(opts) || attempt >= evictionRetries {
			return nil, err
		}
	}
	pdbs, err := s.budgetsOf(ctx, pod)
	if err != nil {
		return nil, err
	}
	switch len(pdbs) {
	case 0:
		return s.deleteEvicted(ctx, req, opts, "", "")
	case 1:
	default:
		return &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure,
			Message: msgMultipleBudgets, Code: http.StatusInternalServerError}, nil
	}
	pdb := pdbs[0]
	if unhealthyEvictable(pod, pdb) {
		// Not Ready, and the budget is healthy without it (or always
		// allows unhealthy evictions): delete it if it is still this
		// version, without taking a disruption.
		return s.deleteEvicted(ctx, req, opts, pdb.Name, pod.ResourceVersion)
	}
	if err := s.takeDisruption(ctx, pdb, pod.Name, len(opts.DryRun) > 0); err != nil {
		return nil, err
	}
	return s.deleteEvicted(ctx, req, opts, pdb.Name, "")
}

// deleteEvicted deletes the pod after its budget was checked. A
// non-empty guardRV deletes only that version of the pod (the one found
// unhealthy) unless the client set its own precondition; losing that race
// answers 429 so that the client evicts again.
func (s *Server) deleteEvicted(ctx context.Context, req *Request, opts *meta.DeleteOptions, pdbName, guardRV string) (*meta.Status, error) {
	guarded := guardRV != "" && rvUnset(opts)
	delOpts := opts
	if guarded {
		delOpts = withResourceVersion(opts, guardRV)
	}
	err := s.addConditionAndDelete(ctx, req, delOpts)
	if err != nil && guarded && apierrors.IsConflict(err) {
		return nil, budgetBeingProcessed(pdbName)
	}
	if err != nil {
		return nil, err
	}
	return evictionSucceeded(), nil
}

// addConditionAndDelete marks the pod with the DisruptionTarget condition
// (unless dry run), honouring the delete options' preconditions, then
// deletes it with those options (the resourceVersion precondition moved
// to the version the condition made).
func (s *Server) addConditionAndDelete(ctx context.Context, req *Request, opts *meta.DeleteOptions) error {
	res := req.resource
	if !isDryRun(req.Query) {
		out, err := res.storage.GuaranteedUpdate(ctx, req.Info.Namespace, req.Info.Name, true, func(cur meta.Object) (meta.Object, error) {
			if err := checkPreconditions(res, cur, opts.Preconditions); err != nil {
				return nil, err
			}
			pod := meta.DeepCopy(cur.(*core.Pod))
			changed := core.UpdatePodCondition(&pod.Status, core.PodCondition{Type: core.DisruptionTarget,
				Status: meta.ConditionTrue, Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
			if !changed || pod.DeletionTimestamp != nil {
				return nil, NoChange()
			}
			return pod, nil
		})
		if err != nil {
			return err
		}
		if !rvUnset(opts) {
			opts = withResourceVersion(opts, out.GetObjectMeta().ResourceVersion)
		}
	}
	_, _, err := s.delete(ctx, req, req.Info.Namespace, req.Info.Name, opts)
	return err
}

// budgetsOf returns the PodDisruptionBudgets of the pod's namespace whose
// selector matches the pod (policy/v1: a nil selector matches nothing,
// an empty one everything; an invalid one nothing).
func (s *Server) budgetsOf(ctx context.Context, pod *core.Pod) ([]*policy.PodDisruptionBudget, error) {
	res, ok := s.lookup(pdbGVR)
	if !ok {
		return nil, nil // PodDisruptionBudgets are not served: nothing to honour
	}
	list, err := res.storage.ListRaw(ctx, pod.Namespace, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	var all []*policy.PodDisruptionBudget
	for _, kv := range list.KVs {
		obj, err := res.storage.Decode(kv)
		if err != nil {
			return nil, res.storage.apiError(err, nameFromKey(kv.Key))
		}
		all = append(all, obj.(*policy.PodDisruptionBudget))
	}
	return matchingBudgets(all, pod), nil
}

// matchingBudgets returns the budgets of pdbs whose selector matches pod.
func matchingBudgets(pdbs []*policy.PodDisruptionBudget, pod *core.Pod) []*policy.PodDisruptionBudget {
	var out []*policy.PodDisruptionBudget
	for _, pdb := range pdbs {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := labels.SelectorFromLabelSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out
}

// takeDisruption takes one disruption from the budget named like pdb,
// re-reading it after each conflicting write, and records podName in
// its disruptedPods. A dry run checks and writes nothing.
func (s *Server) takeDisruption(ctx context.Context, pdb *policy.PodDisruptionBudget, podName string, dryRun bool) error {
	res, ok := s.lookup(pdbGVR)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("poddisruptionbudgets are not served"))
	}
	for attempt := 0; attempt < evictionRetries; attempt++ {
		if attempt > 0 {
			obj, err := res.storage.Get(ctx, pdb.Namespace, pdb.Name)
			if err != nil {
				return err
			}
			pdb = obj.(*policy.PodDisruptionBudget)
		}
		next, err := decrementBudget(pdb, podName, meta.Now())
		if err != nil || dryRun {
			return err
		}
		rv := pdb.ResourceVersion
		_, err = res.storage.GuaranteedUpdate(ctx, pdb.Namespace, pdb.Name, false, func(cur meta.Object) (meta.Object, error) {
			if cur.GetObjectMeta().ResourceVersion != rv {
				return nil, apierrors.NewConflict(res.gr(), pdb.Name, fmt.Errorf("the object has been modified"))
			}
			return next, nil
		})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return apierrors.NewTimeout(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Name))
}

// decrementBudget checks that pdb allows a disruption now and returns a
// copy with it taken: disruptionsAllowed decremented (the
// DisruptionAllowed condition updated when it reaches 0) and podName
// recorded in disruptedPods at now. The refusals are Kubernetes': 429
// while the controller has not observed the budget's generation or when
// it allows no disruption, 403 for a negative count or a disruptedPods
// map over policy.MaxDisruptedPodSize.
func decrementBudget(pdb *policy.PodDisruptionBudget, podName string, now meta.Time) (*policy.PodDisruptionBudget, error) {
	st := &pdb.Status
	forbidden := func(why string) error {
		gr := meta.GroupResource{Group: policy.GroupName, Resource: "poddisruptionbudget"}
		return apierrors.NewForbidden(gr, pdb.Name, fmt.Sprintf("%s %q is forbidden: %s", gr, pdb.Name, why))
	}
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return nil, budgetBeingProcessed(pdb.Name)
	case st.DisruptionsAllowed < 0:
		return nil, forbidden("pdb disruptions allowed is negative")
	case len(st.DisruptedPods) > policy.MaxDisruptedPodSize:
		return nil, forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller")
	case st.DisruptionsAllowed == 0:
		err := apierrors.NewTooManyRequests(msgViolatesBudget, 0)
		err.Details.Causes = append(err.Details.Causes, meta.StatusCause{Type: policy.DisruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy)})
		return nil, err
	}
	next := meta.DeepCopy(pdb)
	next.Status.DisruptionsAllowed--
	if next.Status.DisruptionsAllowed == 0 {
		policy.SetDisruptionAllowedCondition(next, now)
	}
	if next.Status.DisruptedPods == nil {
		next.Status.DisruptedPods = map[string]meta.Time{}
	}
	next.Status.DisruptedPods[podName] = now
	return next, nil
}

// budgetBeingProcessed is the 429 of a budget the disruption controller
// has not caught up with.
func budgetBeingProcessed(name string) error {
	err := apierrors.NewTooManyRequests(msgViolatesBudget, 10)
	err.Details.Causes = append(err.Details.Causes, meta.StatusCause{Type: policy.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name)})
	return err
}

// canIgnoreBudget reports whether the pod may be evicted without looking
// at budgets: it is terminal (its disruption already happened), pending
// (not yet running), or already being deleted.
func canIgnoreBudget(pod *core.Pod) bool {
	switch pod.Status.Phase {
	case core.PodSucceeded, core.PodFailed, core.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// unhealthyEvictable reports whether pod, not Ready, may be evicted
// without taking a disruption from pdb: the budget is met without it
// (currentHealthy >= desiredHealthy > 0), or its unhealthy pod eviction
// policy is AlwaysAllow.
func unhealthyEvictable(pod *core.Pod, pdb *policy.PodDisruptionBudget) bool {
	if core.IsPodReady(pod) {
		return false
	}
	if pdb.Status.DesiredHealthy > 0 && pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy {
		return true
	}
	p := pdb.Spec.UnhealthyPodEvictionPolicy
	return p != nil && *p == policy.AlwaysAllow
}

func rvUnset(opts *meta.DeleteOptions) bool {
	return opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
}

// withResourceVersion returns a copy of opts whose preconditions require
// resourceVersion rv.
func withResourceVersion(opts *meta.DeleteOptions, rv string) *meta.DeleteOptions {
	out := *opts
	p := meta.Preconditions{}
	if opts.Preconditions != nil {
		p = *opts.Preconditions
	}
	p.ResourceVersion = &rv
	out.Preconditions = &p
	return &out
}
