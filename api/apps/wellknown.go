package apps

// GroupName is the API group of every kind in this package.
const GroupName = "apps"

// Version is the API version of every kind in this package.
const Version = "v1"

// Labels the workload controllers put on the objects they create.
const (
	// DefaultDeploymentUniqueLabelKey is added to a Deployment's ReplicaSets
	// and their pods, valued with the hash of the pod template, so that
	// ReplicaSets of one Deployment never select each other's pods.
	DefaultDeploymentUniqueLabelKey = "pod-template-hash"
	// ControllerRevisionHashLabelKey labels StatefulSet and DaemonSet pods
	// and ControllerRevisions with the revision's hash.
	ControllerRevisionHashLabelKey = "controller-revision-hash"
	// DefaultDaemonSetUniqueLabelKey is ControllerRevisionHashLabelKey.
	DefaultDaemonSetUniqueLabelKey = ControllerRevisionHashLabelKey
	// StatefulSetRevisionLabel is ControllerRevisionHashLabelKey.
	StatefulSetRevisionLabel = ControllerRevisionHashLabelKey
	// StatefulSetPodNameLabel labels each StatefulSet pod with its own name.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel labels each StatefulSet pod with its ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"
)

// Annotations the Deployment controller keeps on Deployments and
// ReplicaSets.
const (
	// RevisionAnnotation is the revision number of a ReplicaSet, mirrored
	// on its Deployment.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists the earlier revisions a ReplicaSet had
	// (comma-separated) when its template was rolled back to.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the Deployment's replicas when the
	// ReplicaSet was last scaled.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is replicas + maxSurge at that time.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// ChangeCauseAnnotation records the command that caused a rollout.
	ChangeCauseAnnotation = "kubernetes.io/change-cause"
	// DeprecatedRollbackTo is the annotation a rollback request used to set.
	DeprecatedRollbackTo = "deprecated.deployment.rollback.to"
	// DeprecatedTemplateGeneration labels DaemonSet pods with the template
	// generation that created them.
	DeprecatedTemplateGeneration = "deprecated.daemonset.template.generation"
)

// Reasons the Deployment controller writes into its conditions.
const (
	// ReplicaSetUpdatedReason: the new ReplicaSet is progressing.
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	// NewReplicaSetReason: a new ReplicaSet was created.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// FoundNewReplicaSetReason: an existing ReplicaSet matches the template.
	FoundNewReplicaSetReason = "FoundNewReplicaSet"
	// NewRSAvailableReason: the rollout completed.
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// TimedOutReason: progressDeadlineSeconds passed without progress.
	TimedOutReason = "ProgressDeadlineExceeded"
	// PausedDeployReason and ResumedDeployReason track spec.paused.
	PausedDeployReason  = "DeploymentPaused"
	ResumedDeployReason = "DeploymentResumed"
	// MinimumReplicasAvailable and MinimumReplicasUnavailable set the
	// Available condition.
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	// FailedRSCreateReason: creating the new ReplicaSet failed.
	FailedRSCreateReason = "ReplicaSetCreateError"
)
