package deployment

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
)

func replicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func rsReplicas(rs *apps.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

// IsRollingUpdate reports whether d rolls out with RollingUpdate.
func IsRollingUpdate(d *apps.Deployment) bool {
	return d.Spec.Strategy.Type == apps.RollingUpdateDeploymentStrategyType || d.Spec.Strategy.Type == ""
}

// ResolveFenceposts returns d's maxSurge (rounded up) and maxUnavailable
// (rounded down) as numbers of pods; both zero would deadlock a rollout,
// so maxUnavailable is then 1.
func ResolveFenceposts(d *apps.Deployment) (surge, unavailable int32) {
	desired := int(replicasOf(d.Spec.Replicas))
	ms, mu := meta.FromString("25%"), meta.FromString("25%")
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			ms = *ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			mu = *ru.MaxUnavailable
		}
	}
	s, err1 := ms.ScaledValue(desired, true)
	u, err2 := mu.ScaledValue(desired, false)
	if err1 != nil {
		s = 0
	}
	if err2 != nil {
		u = 0
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(max(s, 0)), int32(max(u, 0))
}

// MaxSurge returns how many pods above replicas d may run during a
// rolling update (0 for Recreate).
func MaxSurge(d *apps.Deployment) int32 {
	if !IsRollingUpdate(d) {
		return 0
	}
	s, _ := ResolveFenceposts(d)
	return s
}

// MaxUnavailable returns how many of d's replicas may be unavailable
// (0 for Recreate or no replicas; never more than replicas).
func MaxUnavailable(d *apps.Deployment) int32 {
	want := replicasOf(d.Spec.Replicas)
	if !IsRollingUpdate(d) || want == 0 {
		return 0
	}
	_, u := ResolveFenceposts(d)
	return min(u, want)
}

// podCount is an upper bound on the pods rs runs: its spec, or its
// status while its pods are still going away.
func podCount(rs *apps.ReplicaSet) int32 { return max(rsReplicas(rs), rs.Status.Replicas) }

// availableCount is a lower bound on rs's available pods: its status,
// but never more than its spec (a scale-down the status does not show
// yet is counted as done).
func availableCount(rs *apps.ReplicaSet) int32 {
	return min(rs.Status.AvailableReplicas, rsReplicas(rs))
}

func sum(rss []*apps.ReplicaSet, f func(*apps.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(rs)
		}
	}
	return n
}

// NewRSNewReplicas returns how many replicas the new ReplicaSet should
// have now: for a rolling update as many as maxSurge allows on top of
// what all ReplicaSets run, up to replicas; for Recreate, replicas.
func NewRSNewReplicas(d *apps.Deployment, all []*apps.ReplicaSet, newRS *apps.ReplicaSet) int32 {
	want := replicasOf(d.Spec.Replicas)
	if !IsRollingUpdate(d) {
		return want
	}
	current := sum(all, podCount)
	maxTotal := want + MaxSurge(d)
	if current >= maxTotal {
		return rsReplicas(newRS)
	}
	up := min(maxTotal-current, want-rsReplicas(newRS))
	return rsReplicas(newRS) + max(up, 0)
}

// Revision returns the revision annotation of an object (0 when absent,
// malformed or negative).
func Revision(m *meta.ObjectMeta) int64 {
	v, err := strconv.ParseInt(m.Annotations[apps.RevisionAnnotation], 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// MaxRevision returns the highest revision of rss.
func MaxRevision(rss []*apps.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		m = max(m, Revision(&rs.ObjectMeta))
	}
	return m
}

// DeploymentComplete reports whether every replica of d is updated and
// available and no old one is left.
func DeploymentComplete(d *apps.Deployment, st *apps.DeploymentStatus) bool {
	want := replicasOf(d.Spec.Replicas)
	return st.UpdatedReplicas == want && st.Replicas == want && st.AvailableReplicas == want &&
		st.ObservedGeneration >= d.Generation
}

// DeploymentProgressing reports whether st shows progress over d's
// current status: more updated, ready or available replicas, or fewer old
// ones.
func DeploymentProgressing(d *apps.Deployment, st *apps.DeploymentStatus) bool {
	old := d.Status
	oldOld := old.Replicas - old.UpdatedReplicas
	newOld := st.Replicas - st.UpdatedReplicas
	return st.UpdatedReplicas > old.UpdatedReplicas || newOld < oldOld ||
		st.ReadyReplicas > old.ReadyReplicas || st.AvailableReplicas > old.AvailableReplicas
}

// DeploymentTimedOut reports whether d's Progressing condition has not
// been updated within its progress deadline.
func DeploymentTimedOut(d *apps.Deployment, st *apps.DeploymentStatus, now time.Time) bool {
	if d.Spec.ProgressDeadlineSeconds == nil || *d.Spec.ProgressDeadlineSeconds == math.MaxInt32 {
		return false
	}
	c := GetCondition(st, apps.DeploymentProgressing)
	if c == nil || c.Reason == apps.NewRSAvailableReason {
		return false
	}
	if c.Reason == apps.TimedOutReason {
		return true
	}
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return c.LastUpdateTime.Add(deadline).Before(now)
}

// GetCondition returns st's condition of type t, or nil.
func GetCondition(st *apps.DeploymentStatus, t apps.DeploymentConditionType) *apps.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// SetCondition sets c in st, keeping the transition time when the status
// does not change, and the whole old condition when nothing but the
// update time would change.
func SetCondition(st *apps.DeploymentStatus, c apps.DeploymentCondition) {
	if old := GetCondition(st, c.Type); old != nil {
		if old.Status == c.Status && old.Reason == c.Reason {
			return
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
	}
	RemoveCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

// RemoveCondition drops st's condition of type t.
func RemoveCondition(st *apps.DeploymentStatus, t apps.DeploymentConditionType) {
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c apps.DeploymentCondition) bool { return c.Type == t })
}

// NewCondition returns a condition stamped at now.
func NewCondition(t apps.DeploymentConditionType, s meta.ConditionStatus, reason, msg string, now time.Time) apps.DeploymentCondition {
	ts := meta.NewTime(now.Truncate(time.Second))
	return apps.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg, LastUpdateTime: ts, LastTransitionTime: ts}
}

// byCreation sorts ReplicaSets oldest first (name breaks ties).
func byCreation(a, b *apps.ReplicaSet) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmpString(a.Name, b.Name)
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
