// Package job is the Job controller: it runs a batch/v1 Job's pods until
// enough of them succeed, as kube-controller-manager's job controller
// does.
//
//	Job or pod event ──▶ queue ──▶ Reconcile(job)
//	    track:   terminated pods ──▶ status.uncountedTerminatedPods ──▶ finalizer removed ──▶ succeeded/failed
//	    decide:  podFailurePolicy FailJob, backoffLimit (failed pods; container restarts with OnFailure),
//	             activeDeadlineSeconds, failed indexes (backoffLimitPerIndex, maxFailedIndexes),
//	             successPolicy, completions (NonIndexed count, or one success per index when Indexed), suspend
//	    act:     create pods up to parallelism (after a failure backoff), delete extra or doomed pods
//	    status:  active, ready, succeeded, failed, terminating, completedIndexes, conditions
//	    finished: Complete or Failed once every pod is counted; ttlSecondsAfterFinished deletes the Job
//
// A Job controls the pods with its controller reference that its selector
// matches: it adopts matching orphans (adding the finalizer) and releases
// controlled pods it no longer matches. Pods carry the
// batch.kubernetes.io/job-tracking finalizer, so that a
// pod that ends is counted in the Job's status before it can disappear;
// the controller removes it once the pod is recorded in
// status.uncountedTerminatedPods, then folds those into the counts. A pod
// being deleted that did not succeed counts as failed (except while the
// Job is suspended, and except with podReplacementPolicy Failed, the
// default with a podFailurePolicy: then a pod being deleted counts once it
// has failed, and is replaced only then).
//
// A podFailurePolicy's first rule matching a failed pod (a non-zero exit
// code of a container or init container, or a pod condition such as
// DisruptionTarget) decides: FailJob fails the Job (reason
// PodFailurePolicy), Ignore leaves the failure uncounted, FailIndex fails
// the pod's index, Count counts it. With backoffLimitPerIndex an index
// whose counted failures reach the limit fails (status.failedIndexes) and
// runs no more; the others go on, and the Job fails with FailedIndexes
// once every index succeeded or failed, or at once with
// MaxFailedIndexesExceeded past maxFailedIndexes. Each pod carries its
// index's failure counts (batch.kubernetes.io/job-index-failure-count,
// job-index-ignored-failure-count). A met successPolicy rule completes an
// Indexed Job early (reason SuccessPolicy). A finishing Job deletes its
// active pods and removes the tracking finalizers of all its pods, and
// writes Complete or Failed once none is left terminating.
//
// Indexed Jobs' pods get the completion index as an
// annotation and a label (batch.kubernetes.io/job-completion-index), in
// JOB_COMPLETION_INDEX, and as their hostname suffix (<job>-<index>).
//
// The controller records SuccessfulCreate, FailedCreate, SuccessfulDelete,
// Completed, BackoffLimitExceeded, DeadlineExceeded, Suspended and Resumed
// Events. Its clock (Config.Clock) drives deadlines, backoff and TTLs, so
// tests can move time.
package job
