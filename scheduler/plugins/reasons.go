package plugins

// Failure reasons, worded as kube-scheduler words them, so the
// "0/N nodes are available: ..." summary reads the same.
const (
	ReasonNodeName             = "node(s) didn't match the requested node name"
	ReasonUnschedulable        = "node(s) were unschedulable"
	ReasonNodeAffinity         = "node(s) didn't match Pod's node affinity/selector"
	ReasonNodePorts            = "node(s) didn't have free ports for the requested pod ports"
	ReasonAffinityRules        = "node(s) didn't match pod affinity rules"
	ReasonAntiAffinityRules    = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
	ReasonTopologySpread       = "node(s) didn't match pod topology spread constraints"
	ReasonTopologySpreadLabel  = "node(s) didn't match pod topology spread constraints (missing required label)"
	ReasonTooManyPods          = "Too many pods"
	ReasonInvalidAffinity      = "pod has an invalid affinity term"
)

// Plugin names.
const (
	NameNodeResourcesFit   = "NodeResourcesFit"
	NameLeastAllocated     = "NodeResourcesLeastAllocated"
	NameBalancedAllocation = "NodeResourcesBalancedAllocation"
	NameNodeName           = "NodeName"
	NameNodeUnschedulable  = "NodeUnschedulable"
	NameNodeAffinity       = "NodeAffinity"
	NameTaintToleration    = "TaintToleration"
	NameNodePorts          = "NodePorts"
	NameImageLocality      = "ImageLocality"
	NameInterPodAffinity   = "InterPodAffinity"
	NamePodTopologySpread  = "PodTopologySpread"
	NameSelectorSpread     = "SelectorSpread"
)
