package job

import (
	"slices"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// state is what one reconcile observes of a Job and its pods, and what it
// decided: the input of manage and of the new status.
type state struct {
	active []*core.Pod // neither terminal nor being deleted
	// held are pods being deleted but not yet terminal that still occupy
	// their slot: with podReplacementPolicy Failed a pod is replaced only
	// once it has failed.
	held        []*core.Pod
	ready       int32
	terminating int32
	// counted are the status counts after folding in the pods that left
	// uncountedTerminatedPods; uncounted are the pods recorded but not yet
	// counted.
	countedSucceeded, countedFailed int32
	uncounted                       batch.UncountedTerminatedPods
	// toUnfinalize are the pods whose tracking finalizer goes once the
	// status recording them is written.
	toUnfinalize []*core.Pod
	succeededIdx indexSet // Indexed Jobs: the indexes that succeeded
	// failedIdx are the failed indexes of a Job with backoffLimitPerIndex;
	// lastFailed is, per index, its failed pod with the most failures
	// recorded (the one a replacement pod takes its counts from).
	failedIdx  indexSet
	lastFailed map[int]*core.Pod
	// failJob is the message of the first FailJob rule of the pod failure
	// policy a failed pod matched.
	failJob     string
	restarts    int32 // container restarts of active pods
	lastFailure time.Time
	// finishing is the Complete or Failed condition decided this round or
	// an earlier one; final says every pod is accounted for and none is
	// still terminating, so it can be written as such (else the interim
	// SuccessCriteriaMet/FailureTarget), as Kubernetes does since 1.31.
	finishing *batch.JobCondition
	final     bool
}

// succeeded and failed are the totals, counted or not.
func (s *state) succeeded() int32 { return s.countedSucceeded + int32(len(s.uncounted.Succeeded)) }
func (s *state) failed() int32    { return s.countedFailed + int32(len(s.uncounted.Failed)) }

// newState tracks j's pods and decides whether j is finishing.
func newState(j *batch.Job, pods []*core.Pod, now time.Time) *state {
	s := &state{countedSucceeded: j.Status.Succeeded, countedFailed: j.Status.Failed}
	s.foldUncounted(j, pods)
	recorded := map[meta.UID]bool{}
	for _, u := range slices.Concat(s.uncounted.Succeeded, s.uncounted.Failed) {
		recorded[u] = true
	}
	if batch.IsIndexed(j) {
		s.succeededIdx = parseIndexes(j.Status.CompletedIndexes, completions(j))
	}
	if batch.HasBackoffLimitPerIndex(j) {
		s.failedIdx = indexSet{}
		if f := j.Status.FailedIndexes; f != nil {
			s.failedIdx = parseIndexes(*f, completions(j))
		}
	}
	for _, p := range pods {
		s.observe(j, p, recorded)
	}
	s.decide(j, now, recorded)
	return s
}

// foldUncounted counts the recorded pods whose finalizer is gone (or
// that are gone) and keeps the others recorded.
func (s *state) foldUncounted(j *batch.Job, pods []*core.Pod) {
	tracked := map[meta.UID]bool{}
	for _, p := range pods {
		if p.HasFinalizer(batch.JobTrackingFinalizer) {
			tracked[p.UID] = true
		}
	}
	if u := j.Status.UncountedTerminatedPods; u != nil {
		for _, uid := range u.Succeeded {
			if tracked[uid] {
				s.uncounted.Succeeded = append(s.uncounted.Succeeded, uid)
			} else {
				s.countedSucceeded++
			}
		}
		for _, uid := range u.Failed {
			if tracked[uid] {
				s.uncounted.Failed = append(s.uncounted.Failed, uid)
			} else {
				s.countedFailed++
			}
		}
	}
}

// observe classifies one pod.
func (s *state) observe(j *batch.Job, p *core.Pod, recorded map[meta.UID]bool) {
	deleting := p.DeletionTimestamp != nil
	ok := p.Status.Phase == core.PodSucceeded
	failed := p.Status.Phase == core.PodFailed || (deleting && !ok)
	tracked := p.HasFinalizer(batch.JobTrackingFinalizer)
	if deleting && !core.IsPodTerminal(p) {
		s.terminating++
		if r := j.Spec.PodReplacementPolicy; r != nil && *r == batch.Failed && !batch.IsSuspended(j) {
			s.held = append(s.held, p)
			return
		}
	}
	switch {
	case !ok && !failed:
		s.active = append(s.active, p)
		if core.IsPodReady(p) {
			s.ready++
		}
		for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
			s.restarts += cs.RestartCount
		}
		return
	case failed && deleting && !core.IsPodTerminal(p) && batch.IsSuspended(j):
		// Deleted by a suspension: not a failure.
		if tracked {
			s.toUnfinalize = append(s.toUnfinalize, p)
		}
		return
	}
	if ok && batch.IsIndexed(j) {
		if i, valid := podIndex(p, completions(j)); valid {
			s.succeededIdx.add(i)
		}
	}
	verdict := failureVerdict{count: true}
	if failed {
		if t := podFinishTime(p); t.After(s.lastFailure) {
			s.lastFailure = t
		}
		verdict = s.observeFailure(j, p, tracked)
	}
	if !tracked {
		return
	}
	s.toUnfinalize = append(s.toUnfinalize, p)
	switch {
	case recorded[p.UID]:
	case ok:
		s.uncounted.Succeeded = append(s.uncounted.Succeeded, p.UID)
	case verdict.count:
		s.uncounted.Failed = append(s.uncounted.Failed, p.UID)
	}
	// A failure an Ignore rule matched is never counted: its finalizer
	// goes without a record.
}

// observeFailure applies the pod failure policy to the failed pod p: a
// FailJob rule fails the Job; with backoffLimitPerIndex the pod may fail
// its index (only while it is tracked: once counted, status.failedIndexes
// has it) and is remembered for its replacement's failure counts.
func (s *state) observeFailure(j *batch.Job, p *core.Pod, tracked bool) failureVerdict {
	v := matchFailurePolicy(j, p)
	if v.failJob != "" && s.failJob == "" {
		s.failJob = v.failJob
	}
	if !batch.HasBackoffLimitPerIndex(j) {
		return v
	}
	i, valid := podIndex(p, completions(j))
	if !valid {
		return v
	}
	if tracked && indexFailed(j, p, v) {
		s.failedIdx.add(i)
	}
	if prev := s.lastFailed[i]; prev == nil || totalFailures(p) > totalFailures(prev) {
		if s.lastFailed == nil {
			s.lastFailed = map[int]*core.Pod{}
		}
		s.lastFailed[i] = p
	}
	return v
}

// totalFailures is the failures of p's index before p, counted or not.
func totalFailures(p *core.Pod) int32 {
	return failureCount(p, batch.JobIndexFailureCountAnnotation) + failureCount(p, batch.JobIndexIgnoredFailureCountAnnotation)
}

// decide sets finishing: failure (backoff limit, deadline) first, then
// completion; a decision of an earlier round (an interim condition)
// stands.
func (s *state) decide(j *batch.Job, now time.Time, recorded map[meta.UID]bool) {
	for _, t := range []batch.JobConditionType{batch.JobFailureTarget, batch.JobSuccessCriteriaMet} {
		if c := batch.FindCondition(&j.Status, t); c != nil && c.Status == meta.ConditionTrue {
			final := batch.JobFailed
			if t == batch.JobSuccessCriteriaMet {
				final = batch.JobComplete
			}
			s.finishing = &batch.JobCondition{Type: final, Status: meta.ConditionTrue, Reason: c.Reason, Message: c.Message}
		}
	}
	if s.finishing == nil && s.failJob != "" {
		s.finishing = &batch.JobCondition{Type: batch.JobFailed, Status: meta.ConditionTrue,
			Reason: batch.JobReasonPodFailurePolicy, Message: s.failJob}
	}
	if s.finishing == nil {
		s.finishing = s.outcome(j, now)
	}
	if s.finishing != nil {
		s.releaseHeld(recorded)
	}
	s.final = s.finishing != nil && len(s.active) == 0 && s.terminating == 0 && len(s.toUnfinalize) == 0 &&
		len(s.uncounted.Succeeded)+len(s.uncounted.Failed) == 0
}

// releaseHeld lets the held pods (being deleted, not yet terminal, with
// podReplacementPolicy Failed) of a finishing Job go, as kube's job
// controller does: their tracking finalizers are removed, and when the Job
// fails they count as failed. The Job still waits for them to terminate.
func (s *state) releaseHeld(recorded map[meta.UID]bool) {
	for _, p := range s.held {
		if !p.HasFinalizer(batch.JobTrackingFinalizer) {
			continue
		}
		s.toUnfinalize = append(s.toUnfinalize, p)
		if s.finishing.Type == batch.JobFailed && !recorded[p.UID] {
			s.uncounted.Failed = append(s.uncounted.Failed, p.UID)
		}
	}
}

// outcome returns the condition j ends with now, or nil.
func (s *state) outcome(j *batch.Job, now time.Time) *batch.JobCondition {
	fail := func(reason, msg string) *batch.JobCondition {
		return &batch.JobCondition{Type: batch.JobFailed, Status: meta.ConditionTrue, Reason: reason, Message: msg}
	}
	limit := int32(6)
	if j.Spec.BackoffLimit != nil {
		limit = *j.Spec.BackoffLimit
	}
	onFailure := j.Spec.Template.Spec.RestartPolicy == core.RestartPolicyOnFailure
	switch {
	case s.failed() > limit, onFailure && ((limit == 0 && s.restarts > 0) || (limit > 0 && s.restarts >= limit)):
		return fail(batch.JobReasonBackoffLimitExceeded, msgBackoffLimit)
	case pastDeadline(j, now):
		return fail(batch.JobReasonDeadlineExceeded, msgDeadline)
	}
	if batch.HasBackoffLimitPerIndex(j) {
		nf := s.failedIdx.len()
		switch {
		case j.Spec.MaxFailedIndexes != nil && nf > int(*j.Spec.MaxFailedIndexes):
			return fail(batch.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIndexes)
		case nf > 0 && nf+s.succeededIdx.len() >= completions(j):
			return fail(batch.JobReasonFailedIndexes, msgFailedIndexes)
		}
	}
	if msg, met := matchSuccessPolicy(j, s.succeededIdx); met {
		return &batch.JobCondition{Type: batch.JobComplete, Status: meta.ConditionTrue,
			Reason: batch.JobReasonSuccessPolicy, Message: msg}
	}
	var complete bool
	switch c := j.Spec.Completions; {
	case batch.IsIndexed(j) && c != nil:
		complete = s.succeededIdx.len() >= int(*c)
	case c == nil:
		complete = s.succeeded() > 0 && len(s.active) == 0
	default:
		complete = s.succeeded() >= *c
	}
	if !complete {
		return nil
	}
	return &batch.JobCondition{Type: batch.JobComplete, Status: meta.ConditionTrue,
		Reason: batch.JobReasonCompletionsReached, Message: msgCompleted}
}

// pastDeadline reports whether a running j has been active longer than
// activeDeadlineSeconds.
func pastDeadline(j *batch.Job, now time.Time) bool {
	if j.Spec.ActiveDeadlineSeconds == nil || j.Status.StartTime == nil || batch.IsSuspended(j) {
		return false
	}
	return !now.Before(j.Status.StartTime.Add(time.Duration(*j.Spec.ActiveDeadlineSeconds) * time.Second))
}

// deadlineIn returns how long until j's deadline, or 0 when it has none.
func (s *state) deadlineIn(j *batch.Job, now time.Time) time.Duration {
	if j.Spec.ActiveDeadlineSeconds == nil || batch.IsSuspended(j) || s.finishing != nil {
		return 0
	}
	start := now
	if j.Status.StartTime != nil {
		start = j.Status.StartTime.Time
	}
	return max(start.Add(time.Duration(*j.Spec.ActiveDeadlineSeconds)*time.Second).Sub(now), time.Millisecond)
}

// podFinishTime is when the last container of p finished, else when p
// was deleted, else its creation.
func podFinishTime(p *core.Pod) time.Time {
	var t time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	if t.IsZero() && p.DeletionTimestamp != nil {
		t = p.DeletionTimestamp.Time
	}
	if t.IsZero() {
		t = p.CreationTimestamp.Time
	}
	return t
}

func completions(j *batch.Job) int {
	if j.Spec.Completions == nil {
		return 0
	}
	return int(*j.Spec.Completions)
}
