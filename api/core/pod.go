package core

import "github.com/orkit/orkit/api/meta"

// Pod is a group of containers that run together on one node.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PodSpec   `json:"spec,omitempty"`
	Status          PodStatus `json:"status,omitempty"`
}

// PodList is a list of pods.
type PodList = meta.List[Pod]

// PodTemplateSpec is the pod a controller stamps out (Deployments,
// ReplicaSets, StatefulSets, DaemonSets, Jobs).
type PodTemplateSpec struct {
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PodSpec `json:"spec,omitempty"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

// The restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy says how a pod's resolv.conf is built.
type DNSPolicy string

// The DNS policies.
const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PreemptionPolicy says whether a pod may preempt lower-priority pods.
type PreemptionPolicy string

// The preemption policies.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// PodSpec is the desired state of a pod.
type PodSpec struct {
	// Volumes are the pod's volumes, mounted by name into containers.
	Volumes []Volume `json:"volumes,omitempty"`
	// InitContainers run to completion, in order, before the app containers start; those
	// with restartPolicy Always are sidecars that keep running.
	InitContainers []Container `json:"initContainers,omitempty"`
	// Containers are the app containers; at least one is required.
	Containers []Container `json:"containers"`
	// EphemeralContainers are debugging containers (kubectl debug) added
	// to a running pod through the pods/ephemeralcontainers subresource
	// only; they are never restarted nor removed.
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty"`
	// RestartPolicy applies to every container; defaults to Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationGracePeriodSeconds is how long the kubelet waits between SIGTERM and
	// SIGKILL; defaults to 30.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// ActiveDeadlineSeconds bounds how long the pod may be active before it is failed.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// DNSPolicy selects how resolv.conf is built; defaults to ClusterFirst.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty"`
	// NodeSelector lists labels a node must carry for the pod to be scheduled there.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// ServiceAccountName is the identity the pod runs as.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// DeprecatedServiceAccount is the old name of ServiceAccountName;
	// defaulting keeps the two equal.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty"`
	// AutomountServiceAccountToken, when false, stops the token volume from being added.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
	// NodeName is the node the pod is bound to; set through the binding subresource by the
	// scheduler (or directly, bypassing it).
	NodeName string `json:"nodeName,omitempty"`
	// HostNetwork runs the pod in the node's network namespace.
	HostNetwork bool `json:"hostNetwork,omitempty"`
	// HostPID shares the node's PID namespace.
	HostPID bool `json:"hostPID,omitempty"`
	// HostIPC shares the node's IPC namespace.
	HostIPC bool `json:"hostIPC,omitempty"`
	// ShareProcessNamespace puts all containers of the pod in one PID namespace.
	ShareProcessNamespace *bool `json:"shareProcessNamespace,omitempty"`
	// SecurityContext holds pod-level security settings; defaults to an empty one.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty"`
	// ImagePullSecrets name Secrets holding registry credentials.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Hostname overrides the pod's hostname (else its name).
	Hostname string `json:"hostname,omitempty"`
	// Subdomain, with a headless Service of that name, gives the pod a DNS name.
	Subdomain string `json:"subdomain,omitempty"`
	// Affinity holds node affinity and pod (anti-)affinity.
	Affinity *Affinity `json:"affinity,omitempty"`
	// SchedulerName selects the scheduler; defaults to default-scheduler.
	SchedulerName string `json:"schedulerName,omitempty"`
	// Tolerations let the pod run on nodes with matching taints.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// HostAliases are added to the pod's /etc/hosts.
	HostAliases []HostAlias `json:"hostAliases,omitempty"`
	// PriorityClassName names the pod's PriorityClass; admission resolves it into Priority.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// Priority is the resolved priority; higher schedules first and may preempt.
	Priority *int32 `json:"priority,omitempty"`
	// DNSConfig adjusts resolv.conf (required with dnsPolicy None).
	DNSConfig *PodDNSConfig `json:"dnsConfig,omitempty"`
	// ReadinessGates are extra conditions that must be True for the pod to be Ready.
	ReadinessGates []PodReadinessGate `json:"readinessGates,omitempty"`
	// RuntimeClassName selects a container runtime handler.
	RuntimeClassName *string `json:"runtimeClassName,omitempty"`
	// EnableServiceLinks injects Docker-link style environment variables for Services;
	// defaults to true.
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty"`
	// PreemptionPolicy says whether the pod may preempt others.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty"`
	// Overhead is the runtime's per-pod resource cost, added to the pod's requests.
	Overhead ResourceList `json:"overhead,omitempty"`
	// TopologySpreadConstraints spread matching pods across topology domains.
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// SetHostnameAsFQDN makes the hostname the fully qualified name.
	SetHostnameAsFQDN *bool `json:"setHostnameAsFQDN,omitempty"`
	// OS names the operating system the pod needs.
	OS *PodOS `json:"os,omitempty"`
	// HostUsers, when false, runs the pod in a user namespace.
	HostUsers *bool `json:"hostUsers,omitempty"`
	// SchedulingGates hold the pod back from scheduling until all are removed.
	SchedulingGates []PodSchedulingGate `json:"schedulingGates,omitempty"`
	// ResourceClaims (dynamic resource allocation) are carried unchanged.
	ResourceClaims []meta.RawJSON `json:"resourceClaims,omitempty"`
	// Resources are pod-level requests and limits.
	Resources *ResourceRequirements `json:"resources,omitempty"`
}

// HostAlias adds entries to a pod's /etc/hosts.
type HostAlias struct {
	IP        string   `json:"ip"`
	Hostnames []string `json:"hostnames,omitempty"`
}

// PodDNSConfig adjusts a pod's resolv.conf.
type PodDNSConfig struct {
	Nameservers []string             `json:"nameservers,omitempty"`
	Searches    []string             `json:"searches,omitempty"`
	Options     []PodDNSConfigOption `json:"options,omitempty"`
}

// PodDNSConfigOption is one resolver option ("ndots:2").
type PodDNSConfigOption struct {
	Name  string  `json:"name,omitempty"`
	Value *string `json:"value,omitempty"`
}

// PodReadinessGate adds a condition that must be True for the pod to be ready.
type PodReadinessGate struct {
	ConditionType PodConditionType `json:"conditionType"`
}

// PodOS names the operating system a pod needs.
type PodOS struct {
	Name string `json:"name"`
}

// PodSchedulingGate holds a pod back from scheduling while present.
type PodSchedulingGate struct {
	Name string `json:"name"`
}

// PodPhase is the coarse state of a pod.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod condition types.
const (
	PodScheduled              PodConditionType = "PodScheduled"
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
	PodInitialized            PodConditionType = "Initialized"
	ContainersReady           PodConditionType = "ContainersReady"
	PodReady                  PodConditionType = "Ready"
	DisruptionTarget          PodConditionType = "DisruptionTarget"
	// PodResizePending: the kubelet cannot grant an in-place resize yet
	// (reason Deferred) or at all on this node (Infeasible).
	PodResizePending PodConditionType = "PodResizePending"
	// PodResizeInProgress: the kubelet granted a resize and is applying it.
	PodResizeInProgress PodConditionType = "PodResizeInProgress"
)

// Reasons of the PodResizePending condition.
const (
	PodReasonInfeasible = "Infeasible"
	PodReasonDeferred   = "Deferred"
)

// Reasons of pod conditions.
const (
	PodReasonUnschedulable   = "Unschedulable"
	PodReasonSchedulingGated = "SchedulingGated"
	PodReasonPodCompleted    = "PodCompleted"
	// PodReasonPreemptionByScheduler is the DisruptionTarget reason the
	// scheduler sets on a victim before it deletes it.
	PodReasonPreemptionByScheduler = "PreemptionByScheduler"
)

// PodQOSClass is a pod's quality-of-service class, derived from its
// containers' requests and limits.
type PodQOSClass string

// The QoS classes.
const (
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	PodQOSBurstable  PodQOSClass = "Burstable"
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodStatus is the observed state of a pod, written by the kubelet (and
// the scheduler, for PodScheduled).
type PodStatus struct {
	// ObservedGeneration is the pod generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase is the coarse lifecycle state.
	Phase PodPhase `json:"phase,omitempty"`
	// Conditions are PodScheduled, Initialized, ContainersReady, Ready and others.
	Conditions []PodCondition `json:"conditions,omitempty"`
	// Message explains why the pod is in its state.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase word for the state ("Evicted").
	Reason string `json:"reason,omitempty"`
	// NominatedNodeName is where the scheduler expects the pod to go once preemption
	// victims are gone.
	NominatedNodeName string `json:"nominatedNodeName,omitempty"`
	// HostIP is the primary IP of the node running the pod.
	HostIP string `json:"hostIP,omitempty"`
	// HostIPs are the node's IPs, one per family, the first equal to HostIP.
	HostIPs []HostIP `json:"hostIPs,omitempty"`
	// PodIP is the pod's primary IP.
	PodIP string `json:"podIP,omitempty"`
	// PodIPs are the pod's IPs, one per family, the first equal to PodIP.
	PodIPs []PodIP `json:"podIPs,omitempty"`
	// StartTime is when the kubelet acknowledged the pod.
	StartTime *meta.Time `json:"startTime,omitempty"`
	// InitContainerStatuses are the init containers' states, in spec order.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// ContainerStatuses are the app containers' states.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// QOSClass is set at creation from the containers' resources (see ComputePodQOS).
	QOSClass PodQOSClass `json:"qosClass,omitempty"`
	// EphemeralContainerStatuses are the ephemeral containers' states.
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	// Resize is the state of an in-place resize.
	Resize string `json:"resize,omitempty"`
	// ResourceClaimStatuses are carried unchanged.
	ResourceClaimStatuses []meta.RawJSON `json:"resourceClaimStatuses,omitempty"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               PodConditionType     `json:"type"`
	ObservedGeneration int64                `json:"observedGeneration,omitempty"`
	Status             meta.ConditionStatus `json:"status"`
	LastProbeTime      meta.Time            `json:"lastProbeTime,omitzero"`
	LastTransitionTime meta.Time            `json:"lastTransitionTime,omitzero"`
	Reason             string               `json:"reason,omitempty"`
	Message            string               `json:"message,omitempty"`
}

// HostIP is one IP address of the pod's node.
type HostIP struct {
	IP string `json:"ip"`
}

// PodIP is one IP address of the pod.
type PodIP struct {
	IP string `json:"ip"`
}

// ContainerStatus is the observed state of one container.
type ContainerStatus struct {
	// Name is the container's name in the spec.
	Name string `json:"name"`
	// State is the current state.
	State ContainerState `json:"state,omitempty"`
	// LastTerminationState is the state of the previous run, if it terminated.
	LastTerminationState ContainerState `json:"lastState,omitempty"`
	// Ready reports whether the readiness probe passes.
	Ready bool `json:"ready"`
	// RestartCount counts restarts of the container.
	RestartCount int32 `json:"restartCount"`
	// Image is the image the container runs.
	Image string `json:"image"`
	// ImageID is the image's resolved ID (digest).
	ImageID string `json:"imageID"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty"`
	// Started reports whether the startup probe has passed.
	Started *bool `json:"started,omitempty"`
	// AllocatedResources are the resources the node allocated.
	AllocatedResources ResourceList `json:"allocatedResources,omitempty"`
	// Resources are the resources actually configured.
	Resources *ResourceRequirements `json:"resources,omitempty"`
	// VolumeMounts are the mounts as the runtime made them.
	VolumeMounts []VolumeMountStatus `json:"volumeMounts,omitempty"`
	// User is the identity the process runs as, carried unchanged.
	User meta.RawJSON `json:"user,omitempty"`
	// AllocatedResourcesStatus is carried unchanged.
	AllocatedResourcesStatus []meta.RawJSON `json:"allocatedResourcesStatus,omitempty"`
	// StopSignal is the signal that stops the container.
	StopSignal *string `json:"stopSignal,omitempty"`
}

// VolumeMountStatus is the observed state of one volume mount.
type VolumeMountStatus struct {
	Name              string  `json:"name"`
	MountPath         string  `json:"mountPath"`
	ReadOnly          bool    `json:"readOnly,omitempty"`
	RecursiveReadOnly *string `json:"recursiveReadOnly,omitempty"`
}

// ContainerState is the state of a container; at most one field is set,
// and none means waiting with no reason.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt meta.Time `json:"startedAt,omitzero"`
}

// ContainerStateTerminated is a container that has exited.
type ContainerStateTerminated struct {
	ExitCode    int32     `json:"exitCode"`
	Signal      int32     `json:"signal,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Message     string    `json:"message,omitempty"`
	StartedAt   meta.Time `json:"startedAt,omitzero"`
	FinishedAt  meta.Time `json:"finishedAt,omitzero"`
	ContainerID string    `json:"containerID,omitempty"`
}
