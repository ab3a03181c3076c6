package protobuf

// Field numbers in this file are data taken from k8s.io/api batch/v1
// generated.proto; the JSON names are the Go types' json tags.

// batchMessages covers batch/v1 Jobs and CronJobs.
func batchMessages() map[string]fields {
	return map[string]fields{
		"batch.Job": {1: objectMeta(), 2: msg("spec", "batch.JobSpec"), 3: msg("status", "batch.JobStatus")},
		"batch.JobSpec": {
			1: i32p("parallelism"), 2: i32p("completions"), 3: i64p("activeDeadlineSeconds"), 7: i32p("backoffLimit"),
			4: labelSelector("selector"), 5: blnp("manualSelector"), 6: msg("template", "core.PodTemplateSpec"),
			8: i32p("ttlSecondsAfterFinished"), 9: strp("completionMode"), 10: blnp("suspend"),
			14: strp("podReplacementPolicy"), 11: msg("podFailurePolicy", "batch.PodFailurePolicy"),
			16: msg("successPolicy", "batch.SuccessPolicy"), 12: i32p("backoffLimitPerIndex"), 13: i32p("maxFailedIndexes"),
		},
		"batch.PodFailurePolicy": {1: required(msgs("rules", "batch.PodFailurePolicyRule"))},
		"batch.PodFailurePolicyRule": {
			1: strp("action"), 2: msg("onExitCodes", "batch.PodFailurePolicyOnExitCodesRequirement"),
			3: msgs("onPodConditions", "batch.PodFailurePolicyOnPodConditionsPattern"),
		},
		"batch.PodFailurePolicyOnExitCodesRequirement": {1: strp("containerName"), 2: strp("operator"), 3: required(i32s("values"))},
		"batch.PodFailurePolicyOnPodConditionsPattern": {1: strp("type"), 2: strp("status")},
		"batch.SuccessPolicy":                          {1: required(msgs("rules", "batch.SuccessPolicyRule"))},
		"batch.SuccessPolicyRule":                      {1: strp("succeededIndexes"), 2: i32p("succeededCount")},
		"batch.JobStatus": {
			1: msgs("conditions", "batch.JobCondition"), 2: timeField("startTime"), 3: timeField("completionTime"),
			4: i32("active"), 5: i32("succeeded"), 6: i32("failed"), 11: i32p("terminating"),
			7: str("completedIndexes"), 8: msg("uncountedTerminatedPods", "batch.UncountedTerminatedPods"),
			9: i32p("ready"), 10: strp("failedIndexes"),
		},
		"batch.UncountedTerminatedPods": {1: strs("succeeded"), 2: strs("failed")},
		"batch.JobCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastProbeTime"), 4: timeField("lastTransitionTime"),
			5: str("reason"), 6: str("message"),
		},
		"batch.JobTemplateSpec": {1: objectMeta(), 2: msg("spec", "batch.JobSpec")},
		"batch.CronJob":         {1: objectMeta(), 2: msg("spec", "batch.CronJobSpec"), 3: msg("status", "batch.CronJobStatus")},
		"batch.CronJobSpec": {
			1: strp("schedule"), 8: strp("timeZone"), 2: i64p("startingDeadlineSeconds"), 3: str("concurrencyPolicy"),
			4: blnp("suspend"), 5: msg("jobTemplate", "batch.JobTemplateSpec"), 6: i32p("successfulJobsHistoryLimit"),
			7: i32p("failedJobsHistoryLimit"),
		},
		"batch.CronJobStatus": {
			1: msgs("active", "core.ObjectReference"), 4: timeField("lastScheduleTime"), 5: timeField("lastSuccessfulTime"),
		},
	}
}
