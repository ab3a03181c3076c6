package core

// Well-known labels that nodes and other objects carry.
const (
	LabelHostname             = "kubernetes.io/hostname"
	LabelOSStable             = "kubernetes.io/os"
	LabelArchStable           = "kubernetes.io/arch"
	LabelTopologyZone         = "topology.kubernetes.io/zone"
	LabelTopologyRegion       = "topology.kubernetes.io/region"
	LabelInstanceTypeStable   = "node.kubernetes.io/instance-type"
	LabelNodeExcludeBalancers = "node.kubernetes.io/exclude-from-external-load-balancers"
	// LabelMetadataName is set on every namespace to its own name.
	LabelMetadataName = "kubernetes.io/metadata.name"
	// LabelServiceName is set on EndpointSlices to their Service's name.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelNodeRolePrefix starts the labels naming node roles
	// ("node-role.kubernetes.io/control-plane").
	LabelNodeRolePrefix = "node-role.kubernetes.io/"
	// LabelPodTemplateHash is set by the Deployment controller on its
	// ReplicaSets and pods.
	LabelPodTemplateHash = "pod-template-hash"
)

// Taint keys the node lifecycle controller and the kubelet set.
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	TaintNodeOutOfService       = "node.kubernetes.io/out-of-service"
	TaintNodeControlPlane       = "node-role.kubernetes.io/control-plane"
	TaintExternalCloudProvider  = "node.cloudprovider.kubernetes.io/uninitialized"
	TaintNodeShutdown           = "node.cloudprovider.kubernetes.io/shutdown"
)

// Well-known annotations.
const (
	// AnnotationServiceAccountName names the ServiceAccount a
	// service-account-token Secret belongs to.
	AnnotationServiceAccountName = "kubernetes.io/service-account.name"
	// AnnotationServiceAccountUID is the UID of that ServiceAccount.
	AnnotationServiceAccountUID = "kubernetes.io/service-account.uid"
	// AnnotationLastAppliedConfig is written by kubectl apply.
	AnnotationLastAppliedConfig = "kubectl.kubernetes.io/last-applied-configuration"
	// AnnotationMirrorPod marks a static pod's mirror in the API.
	AnnotationMirrorPod = "kubernetes.io/config.mirror"
	// AnnotationPodDeletionCost ranks pods for deletion on scale-down (lower first).
	AnnotationPodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"
	// AnnotationEndpointsLastChangeTriggerTime is set by the Endpoints controller.
	AnnotationEndpointsLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
)

// Well-known names and defaults.
const (
	// NamespaceDefault is the namespace of objects that name none.
	NamespaceDefault = "default"
	// NamespaceSystem holds the cluster's own components.
	NamespaceSystem = "kube-system"
	// NamespacePublic is readable by everyone.
	NamespacePublic = "kube-public"
	// NamespaceNodeLease holds the nodes' heartbeat Leases.
	NamespaceNodeLease = "kube-node-lease"
	// NamespaceAll, as a namespace, means every namespace.
	NamespaceAll = ""

	// DefaultSchedulerName is the scheduler pods name when they name none.
	DefaultSchedulerName = "default-scheduler"
	// DefaultTerminationGracePeriodSeconds is a pod's grace period when it names none.
	DefaultTerminationGracePeriodSeconds int64 = 30
	// TerminationMessagePathDefault is where a container writes its termination message.
	TerminationMessagePathDefault = "/dev/termination-log"
	// DefaultServiceAccountName is the ServiceAccount every namespace has.
	DefaultServiceAccountName = "default"
	// ServiceAccountTokenMountPath is where the token volume is mounted.
	ServiceAccountTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// DefaultClientIPServiceAffinitySeconds is the ClientIP affinity timeout (3 hours).
	DefaultClientIPServiceAffinitySeconds int32 = 10800
	// MaxClientIPServiceAffinitySeconds is the largest ClientIP affinity timeout (1 day).
	MaxClientIPServiceAffinitySeconds int32 = 86400
	// MaxSecretSize is the most data a Secret or ConfigMap may hold (1 MiB).
	MaxSecretSize = 1 * 1024 * 1024
	// ClusterIPNone makes a Service headless.
	ClusterIPNone = "None"
	// DefaultPriorityWhenNoDefaultClassExists is the priority of a pod with no class.
	DefaultPriorityWhenNoDefaultClassExists int32 = 0
)
