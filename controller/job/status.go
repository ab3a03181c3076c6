package job

import (
	"slices"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/meta"
)

// status returns j's new status from s at now.
func (s *state) status(j *batch.Job, now time.Time) batch.JobStatus {
	t := meta.NewTime(now.Truncate(time.Second))
	st := batch.JobStatus{
		StartTime: j.Status.StartTime, CompletionTime: j.Status.CompletionTime,
		Active: int32(len(s.active)), Succeeded: s.countedSucceeded, Failed: s.countedFailed,
		Ready: ptr(s.ready), Terminating: ptr(s.terminating),
		UncountedTerminatedPods: &batch.UncountedTerminatedPods{Succeeded: s.uncounted.Succeeded, Failed: s.uncounted.Failed},
		Conditions:              slices.Clone(j.Status.Conditions),
	}
	if batch.IsIndexed(j) {
		st.CompletedIndexes = s.succeededIdx.String()
	}
	if s.failedIdx != nil {
		st.FailedIndexes = ptr(s.failedIdx.String())
	}
	suspended := batch.IsSuspended(j)
	if s.finishing == nil {
		was := batch.FindCondition(&j.Status, batch.JobSuspended)
		switch {
		case suspended:
			st.Conditions = setCondition(st.Conditions, batch.JobCondition{Type: batch.JobSuspended, Status: meta.ConditionTrue,
				Reason: batch.JobReasonSuspended, Message: "Job suspended"}, t)
		case was != nil && was.Status == meta.ConditionTrue:
			st.Conditions = setCondition(st.Conditions, batch.JobCondition{Type: batch.JobSuspended, Status: meta.ConditionFalse,
				Reason: batch.JobReasonResumed, Message: "Job resumed"}, t)
			st.StartTime = &t // a resumed Job's deadline counts from now
		}
	}
	if st.StartTime == nil && !suspended {
		st.StartTime = &t
	}
	if f := s.finishing; f != nil {
		interim := batch.JobFailureTarget
		if f.Type == batch.JobComplete {
			interim = batch.JobSuccessCriteriaMet
		}
		st.Conditions = setCondition(st.Conditions, batch.JobCondition{Type: interim, Status: meta.ConditionTrue,
			Reason: f.Reason, Message: f.Message}, t)
		if s.final {
			st.Conditions = setCondition(st.Conditions, *f, t)
			if f.Type == batch.JobComplete && st.CompletionTime == nil {
				st.CompletionTime = &t
			}
		}
	}
	return st
}

// setCondition sets c in conds, keeping the times of an unchanged one.
func setCondition(conds []batch.JobCondition, c batch.JobCondition, now meta.Time) []batch.JobCondition {
	c.LastProbeTime, c.LastTransitionTime = now, now
	for i := range conds {
		if conds[i].Type != c.Type {
			continue
		}
		if conds[i].Status == c.Status && conds[i].Reason == c.Reason && conds[i].Message == c.Message {
			return conds
		}
		conds[i] = c
		return conds
	}
	return append(conds, c)
}

// statusEqual compares what the controller writes, ignoring the order of
// uncounted UIDs.
func statusEqual(a, b *batch.JobStatus) bool {
	if a.Active != b.Active || a.Succeeded != b.Succeeded || a.Failed != b.Failed ||
		a.CompletedIndexes != b.CompletedIndexes || val(a.Ready) != val(b.Ready) ||
		val(a.Terminating) != val(b.Terminating) || !timeEqual(a.StartTime, b.StartTime) || !strEqual(a.FailedIndexes, b.FailedIndexes) ||
		!timeEqual(a.CompletionTime, b.CompletionTime) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	if (a.UncountedTerminatedPods == nil) != (b.UncountedTerminatedPods == nil) {
		return false
	}
	if a.UncountedTerminatedPods != nil && (!sameUIDs(a.UncountedTerminatedPods.Succeeded, b.UncountedTerminatedPods.Succeeded) ||
		!sameUIDs(a.UncountedTerminatedPods.Failed, b.UncountedTerminatedPods.Failed)) {
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

func sameUIDs(a, b []meta.UID) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func strEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func timeEqual(a, b *meta.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}

func val(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
