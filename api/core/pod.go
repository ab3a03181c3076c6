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
	Volumes                       []Volume          `json:"volumes,omitempty"`
	InitContainers                []Container       `json:"initContainers,omitempty"`
	Containers                    []Container       `json:"containers"`
	EphemeralContainers           []meta.RawJSON    `json:"ephemeralContainers,omitempty"`
	RestartPolicy                 RestartPolicy     `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty"`
	ActiveDeadlineSeconds         *int64            `json:"activeDeadlineSeconds,omitempty"`
	DNSPolicy                     DNSPolicy         `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty"`
	ServiceAccountName            string            `json:"serviceAccountName,omitempty"`
	// DeprecatedServiceAccount is the old name of ServiceAccountName;
	// defaulting keeps the two equal.
	DeprecatedServiceAccount     string                     `json:"serviceAccount,omitempty"`
	AutomountServiceAccountToken *bool                      `json:"automountServiceAccountToken,omitempty"`
	NodeName                     string                     `json:"nodeName,omitempty"`
	HostNetwork                  bool                       `json:"hostNetwork,omitempty"`
	HostPID                      bool                       `json:"hostPID,omitempty"`
	HostIPC                      bool                       `json:"hostIPC,omitempty"`
	ShareProcessNamespace        *bool                      `json:"shareProcessNamespace,omitempty"`
	SecurityContext              *PodSecurityContext        `json:"securityContext,omitempty"`
	ImagePullSecrets             []LocalObjectReference     `json:"imagePullSecrets,omitempty"`
	Hostname                     string                     `json:"hostname,omitempty"`
	Subdomain                    string                     `json:"subdomain,omitempty"`
	Affinity                     *Affinity                  `json:"affinity,omitempty"`
	SchedulerName                string                     `json:"schedulerName,omitempty"`
	Tolerations                  []Toleration               `json:"tolerations,omitempty"`
	HostAliases                  []HostAlias                `json:"hostAliases,omitempty"`
	PriorityClassName            string                     `json:"priorityClassName,omitempty"`
	Priority                     *int32                     `json:"priority,omitempty"`
	DNSConfig                    *PodDNSConfig              `json:"dnsConfig,omitempty"`
	ReadinessGates               []PodReadinessGate         `json:"readinessGates,omitempty"`
	RuntimeClassName             *string                    `json:"runtimeClassName,omitempty"`
	EnableServiceLinks           *bool                      `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy             *PreemptionPolicy          `json:"preemptionPolicy,omitempty"`
	Overhead                     ResourceList               `json:"overhead,omitempty"`
	TopologySpreadConstraints    []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	SetHostnameAsFQDN            *bool                      `json:"setHostnameAsFQDN,omitempty"`
	OS                           *PodOS                     `json:"os,omitempty"`
	HostUsers                    *bool                      `json:"hostUsers,omitempty"`
	SchedulingGates              []PodSchedulingGate        `json:"schedulingGates,omitempty"`
	ResourceClaims               []meta.RawJSON             `json:"resourceClaims,omitempty"`
	Resources                    *ResourceRequirements      `json:"resources,omitempty"`
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
)

// Reasons of pod conditions.
const (
	PodReasonUnschedulable   = "Unschedulable"
	PodReasonSchedulingGated = "SchedulingGated"
	PodReasonPodCompleted    = "PodCompleted"
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
	ObservedGeneration         int64             `json:"observedGeneration,omitempty"`
	Phase                      PodPhase          `json:"phase,omitempty"`
	Conditions                 []PodCondition    `json:"conditions,omitempty"`
	Message                    string            `json:"message,omitempty"`
	Reason                     string            `json:"reason,omitempty"`
	NominatedNodeName          string            `json:"nominatedNodeName,omitempty"`
	HostIP                     string            `json:"hostIP,omitempty"`
	HostIPs                    []HostIP          `json:"hostIPs,omitempty"`
	PodIP                      string            `json:"podIP,omitempty"`
	PodIPs                     []PodIP           `json:"podIPs,omitempty"`
	StartTime                  *meta.Time        `json:"startTime,omitempty"`
	InitContainerStatuses      []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses          []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass                   PodQOSClass       `json:"qosClass,omitempty"`
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	Resize                     string            `json:"resize,omitempty"`
	ResourceClaimStatuses      []meta.RawJSON    `json:"resourceClaimStatuses,omitempty"`
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
	Name                     string                `json:"name"`
	State                    ContainerState        `json:"state,omitempty"`
	LastTerminationState     ContainerState        `json:"lastState,omitempty"`
	Ready                    bool                  `json:"ready"`
	RestartCount             int32                 `json:"restartCount"`
	Image                    string                `json:"image"`
	ImageID                  string                `json:"imageID"`
	ContainerID              string                `json:"containerID,omitempty"`
	Started                  *bool                 `json:"started,omitempty"`
	AllocatedResources       ResourceList          `json:"allocatedResources,omitempty"`
	Resources                *ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts             []VolumeMountStatus   `json:"volumeMounts,omitempty"`
	User                     meta.RawJSON          `json:"user,omitempty"`
	AllocatedResourcesStatus []meta.RawJSON        `json:"allocatedResourcesStatus,omitempty"`
	StopSignal               *string               `json:"stopSignal,omitempty"`
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
