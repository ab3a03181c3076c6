package disruption

import (
	"fmt"
	"maps"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
)

// DeletionTimeout is how long an entry of status.disruptedPods counts the
// pod as disrupted: a pod the API server approved the eviction of but that
// is still not being deleted after this long is counted again (Kubernetes'
// value).
const DeletionTimeout = 2 * time.Minute

// Scale is the desired replica count of one controller of pods.
type Scale struct {
	// UID identifies the object whose replicas count (a Deployment for the
	// pods of its ReplicaSets), so that it is counted once.
	UID meta.UID
	// Replicas is its spec.replicas (1 when unset).
	Replicas int32
}

// ScaleFunc returns the scale of the controller ref names in namespace ns:
// found false when ref is of a kind it does not know or the object is
// gone (or has another UID). Errors are for lookups that failed.
type ScaleFunc func(ns string, ref *meta.OwnerReference) (s Scale, found bool, err error)

// Result is what ComputeStatus decided for one budget.
type Result struct {
	// Status is the budget's new status, conditions included.
	Status policy.PodDisruptionBudgetStatus
	// Recheck, when above zero, is when to compute again: the first
	// disruptedPods entry to expire.
	Recheck time.Duration
	// Unmanaged names the pods without a controller that a budget counting
	// replicas could not count (Kubernetes warns about them, and so do we).
	Unmanaged []string
}

// ComputeStatus computes the status of pdb from the pods its selector
// matches, as Kubernetes' disruption controller does (see the package
// comment). It returns an error (wrapping ErrNoController when a pod's
// controller has no known scale) when the status cannot be computed; the
// caller then writes FailSafeStatus. pdb and pods are not modified.
func ComputeStatus(pdb *policy.PodDisruptionBudget, pods []*core.Pod, scale ScaleFunc, now time.Time) (Result, error) {
	expected, desired, unmanaged, err := expectedAndDesired(pdb, pods, scale)
	if err != nil {
		return Result{}, err
	}
	disrupted, recheck := disruptedPods(pdb.Status.DisruptedPods, pods, now)
	healthy := countHealthy(pods, disrupted, now)
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := policy.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation, DisruptedPods: disrupted, DisruptionsAllowed: allowed,
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected,
		Conditions: append([]meta.Condition(nil), pdb.Status.Conditions...),
	}
	next := policy.PodDisruptionBudget{Status: st}
	policy.SetDisruptionAllowedCondition(&next, meta.NewTime(now))
	res := Result{Status: next.Status, Unmanaged: unmanaged}
	if !recheck.IsZero() {
		res.Recheck = recheck.Sub(now)
	}
	return res, nil
}

// FailSafeStatus is the status of a budget whose status could not be
// computed: the old counts, no disruption allowed, DisruptionAllowed
// False with reason SyncFailed and err's message.
func FailSafeStatus(pdb *policy.PodDisruptionBudget, cause error, now time.Time) policy.PodDisruptionBudgetStatus {
	next := policy.PodDisruptionBudget{Status: pdb.Status}
	next.Status.DisruptedPods = maps.Clone(pdb.Status.DisruptedPods)
	next.Status.Conditions = append([]meta.Condition(nil), pdb.Status.Conditions...)
	next.Status.DisruptionsAllowed = 0
	policy.SetSyncFailedCondition(&next, cause.Error(), meta.NewTime(now))
	return next.Status
}

// expectedAndDesired returns the expected pod count and the desired
// healthy count, with the unmanaged pods a replica count skipped.
func expectedAndDesired(pdb *policy.PodDisruptionBudget, pods []*core.Pod, scale ScaleFunc) (expected, desired int32, unmanaged []string, err error) {
	switch spec := &pdb.Spec; {
	case spec.MaxUnavailable != nil:
		if expected, unmanaged, err = expectedScale(pods, scale); err != nil {
			return 0, 0, unmanaged, err
		}
		maxUnavailable, err := spec.MaxUnavailable.ScaledValue(int(expected), true)
		if err != nil {
			return 0, 0, unmanaged, err
		}
		return expected, max(expected-int32(maxUnavailable), 0), unmanaged, nil
	case spec.MinAvailable != nil && !spec.MinAvailable.IsString:
		return int32(len(pods)), spec.MinAvailable.IntVal, nil, nil
	case spec.MinAvailable != nil:
		if expected, unmanaged, err = expectedScale(pods, scale); err != nil {
			return 0, 0, unmanaged, err
		}
		minAvailable, err := spec.MinAvailable.ScaledValue(int(expected), true)
		if err != nil {
			return 0, 0, unmanaged, err
		}
		return expected, int32(minAvailable), unmanaged, nil
	}
	return 0, 0, nil, nil // neither bound: nothing desired, nothing expected
}

// expectedScale sums the replicas of the pods' controllers, each counted
// once (keyed by the UID of the object whose scale counts, so the
// ReplicaSets of one Deployment count it once); pods without a controller
// are returned as unmanaged.
func expectedScale(pods []*core.Pod, scale ScaleFunc) (int32, []string, error) {
	looked := map[meta.UID]bool{}
	scales := map[meta.UID]int32{}
	var unmanaged []string
	for _, pod := range pods {
		ref := meta.ControllerOf(&pod.ObjectMeta)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if looked[ref.UID] {
			continue
		}
		s, found, err := scale(pod.Namespace, ref)
		if err != nil {
			return 0, unmanaged, err
		}
		if !found {
			return 0, unmanaged, fmt.Errorf("%w for pod %q", ErrNoController, pod.Name)
		}
		looked[ref.UID] = true
		scales[s.UID] = s.Replicas
	}
	var total int32
	for _, n := range scales {
		total += n
	}
	return total, unmanaged, nil
}

// disruptedPods keeps the entries of old that name a live pod (not being
// deleted) and have not expired, and returns the earliest expiry of those
// kept (zero when none).
func disruptedPods(old map[string]meta.Time, pods []*core.Pod, now time.Time) (map[string]meta.Time, time.Time) {
	out := map[string]meta.Time{}
	var recheck time.Time
	if len(old) == 0 {
		return out, recheck
	}
	for _, pod := range pods {
		at, ok := old[pod.Name]
		if !ok || pod.DeletionTimestamp != nil {
			continue
		}
		expires := at.Add(DeletionTimeout)
		if expires.Before(now) {
			continue // never deleted: counted again
		}
		if recheck.IsZero() || expires.Before(recheck) {
			recheck = expires
		}
		out[pod.Name] = at
	}
	return out, recheck
}

// countHealthy counts the Ready pods that are neither being deleted nor
// about to be (in disrupted and not expired).
func countHealthy(pods []*core.Pod, disrupted map[string]meta.Time, now time.Time) int32 {
	var n int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[pod.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if core.IsPodReady(pod) {
			n++
		}
	}
	return n
}
