package scheduling

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// GroupName is the API group of PriorityClass.
const GroupName = "scheduling.k8s.io"

// Version is the API version of PriorityClass.
const Version = "v1"

// Priorities and names Kubernetes reserves.
const (
	// HighestUserDefinablePriority is the largest value a user-defined
	// class may have.
	HighestUserDefinablePriority int32 = 1000000000
	// SystemCriticalPriority is the base of the system classes' values.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix starts every reserved class name.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical is the class of cluster-critical add-ons.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	// SystemNodeCritical is the class of node-critical pods.
	SystemNodeCritical = SystemPriorityClassPrefix + "node-critical"
	// DefaultPriorityWhenNoDefaultClassExists is the priority of pods
	// without a class when no class is the global default.
	DefaultPriorityWhenNoDefaultClassExists int32 = 0
)

// PriorityClass maps a class name to an integer priority that the
// scheduler uses to order and preempt pods. Cluster-scoped.
type PriorityClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Value is the priority; higher schedules first. Immutable.
	Value int32 `json:"value"`
	// GlobalDefault makes this the class of pods that name none; at most
	// one class should set it.
	GlobalDefault bool `json:"globalDefault,omitempty"`
	// Description is free text for people.
	Description string `json:"description,omitempty"`
	// PreemptionPolicy of pods in this class (default
	// PreemptLowerPriority). Immutable.
	PreemptionPolicy *core.PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}

// PriorityClassList is a list of PriorityClasses.
type PriorityClassList = meta.List[PriorityClass]

// SystemPriorityClasses returns new copies of the two classes every cluster
// has: system-node-critical and system-cluster-critical.
func SystemPriorityClasses() []*PriorityClass {
	mk := func(name string, value int32, desc string) *PriorityClass {
		p := core.PreemptLowerPriority
		return &PriorityClass{
			TypeMeta:         meta.TypeMeta{Kind: "PriorityClass", APIVersion: GroupName + "/" + Version},
			ObjectMeta:       meta.ObjectMeta{Name: name},
			Value:            value,
			Description:      desc,
			PreemptionPolicy: &p,
		}
	}
	return []*PriorityClass{
		mk(SystemNodeCritical, SystemCriticalPriority+1000, "Used for system critical pods that must not be moved from their current node."),
		mk(SystemClusterCritical, SystemCriticalPriority, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."),
	}
}

// DefaultPriorityClass sets PreemptionPolicy to PreemptLowerPriority when
// unset.
func DefaultPriorityClass(pc *PriorityClass) {
	if pc.PreemptionPolicy == nil {
		p := core.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}
