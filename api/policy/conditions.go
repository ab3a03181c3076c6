package policy

import "github.com/orkit/orkit/api/meta"

// SetDisruptionAllowedCondition sets pdb's DisruptionAllowed condition
// from status.disruptionsAllowed: True with SufficientPods above zero,
// else False with InsufficientPods, observed at status.observedGeneration.
// The transition time is now when the status changes, else kept. It is
// what both the disruption controller and the eviction handler (which
// decrements disruptionsAllowed) call after changing the count.
func SetDisruptionAllowedCondition(pdb *PodDisruptionBudget, now meta.Time) {
	c := meta.Condition{Type: DisruptionAllowedCondition, Status: meta.ConditionFalse,
		Reason: InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = meta.ConditionTrue, SufficientPodsReason
	}
	SetCondition(&pdb.Status.Conditions, c, now)
}

// SetSyncFailedCondition records that the budget's status could not be
// computed: DisruptionAllowed False with reason SyncFailed and message.
func SetSyncFailedCondition(pdb *PodDisruptionBudget, message string, now meta.Time) {
	SetCondition(&pdb.Status.Conditions, meta.Condition{Type: DisruptionAllowedCondition, Status: meta.ConditionFalse,
		Reason: SyncFailedReason, Message: message, ObservedGeneration: pdb.Status.ObservedGeneration}, now)
}

// DisruptionAllowedUpToDate reports whether pdb's DisruptionAllowed
// condition agrees with its status (count and observed generation).
func DisruptionAllowedUpToDate(pdb *PodDisruptionBudget) bool {
	c := FindCondition(pdb.Status.Conditions, DisruptionAllowedCondition)
	if c == nil || c.ObservedGeneration != pdb.Status.ObservedGeneration {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return c.Status == meta.ConditionTrue && c.Reason == SufficientPodsReason
	}
	return c.Status == meta.ConditionFalse && c.Reason == InsufficientPodsReason
}

// FindCondition returns the condition of type t in cs, or nil.
func FindCondition(cs []meta.Condition, t string) *meta.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// SetCondition adds c to *cs or replaces the condition of its type,
// keeping the old transition time unless the status changed (a zero
// c.LastTransitionTime is filled with now).
func SetCondition(cs *[]meta.Condition, c meta.Condition, now meta.Time) {
	old := FindCondition(*cs, c.Type)
	if old == nil {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		*cs = append(*cs, c)
		return
	}
	if old.Status != c.Status {
		old.LastTransitionTime = now
		if !c.LastTransitionTime.IsZero() {
			old.LastTransitionTime = c.LastTransitionTime
		}
	}
	old.Status, old.Reason, old.Message, old.ObservedGeneration = c.Status, c.Reason, c.Message, c.ObservedGeneration
}
