// Package job is the Job controller: it runs a batch/v1 Job's pods until
// enough of them succeed, as kube-controller-manager's job controller
// does.
//
//	Job or pod event ──▶ queue ──▶ Reconcile(job)
//	    track:   terminated pods ──▶ status.uncountedTerminatedPods ──▶ finalizer removed ──▶ succeeded/failed
//	    decide:  backoffLimit (failed pods; container restarts with OnFailure), activeDeadlineSeconds,
//	             completions (NonIndexed count, or one success per index when Indexed), suspend
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
// Job is suspended). Indexed Jobs' pods get the completion index as an
// annotation and a label (batch.kubernetes.io/job-completion-index), in
// JOB_COMPLETION_INDEX, and as their hostname suffix (<job>-<index>).
//
// The controller records SuccessfulCreate, FailedCreate, SuccessfulDelete,
// Completed, BackoffLimitExceeded, DeadlineExceeded, Suspended and Resumed
// Events. Its clock (Config.Clock) drives deadlines, backoff and TTLs, so
// tests can move time.
package job
