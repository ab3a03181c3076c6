package batch

// GroupName is the API group of every kind in this package.
const GroupName = "batch"

// Version is the API version of every kind in this package.
const Version = "v1"

// Labels the API server generates on a Job's pod template (and so on its
// pods) when the Job does not set manualSelector, and that the Job
// controller adds to the pods of Indexed Jobs.
const (
	// ControllerUIDLabel is valued with the Job's UID; the generated
	// selector matches it.
	ControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// JobNameLabel is valued with the Job's name.
	JobNameLabel = "batch.kubernetes.io/job-name"
	// LegacyControllerUIDLabel is the unprefixed ControllerUIDLabel,
	// still set for old clients.
	LegacyControllerUIDLabel = "controller-uid"
	// LegacyJobNameLabel is the unprefixed JobNameLabel.
	LegacyJobNameLabel = "job-name"
	// JobCompletionIndexAnnotation labels and annotates each pod of an
	// Indexed Job with its completion index.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	// JobTrackingFinalizer is put on a Job's pods so that a terminated pod
	// is counted in the Job's status before it can disappear.
	JobTrackingFinalizer = "batch.kubernetes.io/job-tracking"
	// JobIndexFailureCountAnnotation is, on a pod of a Job with
	// backoffLimitPerIndex, how many pods of its index failed before it.
	JobIndexFailureCountAnnotation = "batch.kubernetes.io/job-index-failure-count"
	// JobIndexIgnoredFailureCountAnnotation is how many failures of its
	// index an Ignore rule of the pod failure policy did not count.
	JobIndexIgnoredFailureCountAnnotation = "batch.kubernetes.io/job-index-ignored-failure-count"
	// CronJobScheduledTimestampAnnotation records on a Job the time its
	// CronJob scheduled it (RFC 3339, in the CronJob's time zone).
	CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
)

// JobCompletionIndexEnv is the environment variable the Job controller
// sets in every container of an Indexed Job's pods to the pod's index.
const JobCompletionIndexEnv = "JOB_COMPLETION_INDEX"

// MaxCronJobNameLength is the longest name a CronJob may have: its Jobs
// add an 11-character suffix to it, and must stay DNS-1035 labels.
const MaxCronJobNameLength = 52
