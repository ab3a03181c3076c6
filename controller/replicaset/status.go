package replicaset

import (
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// IsActive reports whether pod counts towards a ReplicaSet's replicas:
// not terminal and not being deleted.
func IsActive(pod *core.Pod) bool {
	return pod.DeletionTimestamp == nil && !core.IsPodTerminal(pod)
}

// IsAvailable reports whether pod has been ready for at least
// minReadySeconds at now; when it is ready but not yet available, wait
// says how long until it is.
func IsAvailable(pod *core.Pod, minReadySeconds int32, now time.Time) (ok bool, wait time.Duration) {
	since, ready := readySince(pod)
	if !ready {
		return false, 0
	}
	if minReadySeconds <= 0 {
		return true, 0
	}
	at := since.Add(time.Duration(minReadySeconds) * time.Second)
	if !at.After(now) {
		return true, 0
	}
	return false, at.Sub(now)
}

// ComputeStatus returns rs's status for its active pods at now, and how
// long until a ready pod becomes available (0: none waits). manageErr,
// when not nil, sets the ReplicaFailure condition; a nil one clears it.
func ComputeStatus(rs *apps.ReplicaSet, pods []*core.Pod, manageErr error, now time.Time) (apps.ReplicaSetStatus, time.Duration) {
	st := apps.ReplicaSetStatus{Replicas: int32(len(pods)), ObservedGeneration: rs.Generation}
	tmpl := labels.SelectorFromSet(labels.Set(rs.Spec.Template.Labels))
	var next time.Duration
	for _, p := range pods {
		if tmpl.Matches(labels.Set(p.Labels)) {
			st.FullyLabeledReplicas++
		}
		if core.IsPodReady(p) {
			st.ReadyReplicas++
		}
		ok, wait := IsAvailable(p, rs.Spec.MinReadySeconds, now)
		if ok {
			st.AvailableReplicas++
		} else if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
	}
	st.Conditions = failureCondition(rs.Status.Conditions, manageErr, now)
	return st, next
}

// failureCondition keeps the other conditions and sets or removes
// ReplicaFailure.
func failureCondition(old []apps.ReplicaSetCondition, err error, now time.Time) []apps.ReplicaSetCondition {
	var out []apps.ReplicaSetCondition
	var prev *apps.ReplicaSetCondition
	for i := range old {
		if old[i].Type == apps.ReplicaSetReplicaFailure {
			prev = &old[i]
			continue
		}
		out = append(out, old[i])
	}
	if err == nil {
		return out
	}
	c := apps.ReplicaSetCondition{Type: apps.ReplicaSetReplicaFailure, Status: meta.ConditionTrue,
		Reason: "FailedCreate", Message: err.Error(), LastTransitionTime: meta.NewTime(now.Truncate(time.Second))}
	if prev != nil && prev.Status == c.Status {
		c.LastTransitionTime = prev.LastTransitionTime
	}
	return append(out, c)
}

// statusEqual compares two statuses, conditions by type, status and
// reason.
func statusEqual(a, b *apps.ReplicaSetStatus) bool {
	if a.Replicas != b.Replicas || a.FullyLabeledReplicas != b.FullyLabeledReplicas || a.ReadyReplicas != b.ReadyReplicas ||
		a.AvailableReplicas != b.AvailableReplicas || a.ObservedGeneration != b.ObservedGeneration ||
		len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message {
			return false
		}
	}
	return true
}
