package plugins

import "github.com/orkit/orkit/scheduler/framework"

// DefaultPredicates returns the built-in predicates in the order
// kube-scheduler runs them (cheap and decisive first).
func DefaultPredicates() []framework.Predicate {
	return []framework.Predicate{
		NodeUnschedulable{}, NodeName{}, TaintToleration{}, NodeAffinity{},
		NodePorts{}, Fit{}, PodTopologySpread{}, InterPodAffinity{},
	}
}

// DefaultPriorities returns the built-in priorities with kube-scheduler's
// weights.
func DefaultPriorities() []framework.WeightedPriority {
	return []framework.WeightedPriority{
		{Priority: TaintToleration{}, Weight: 3},
		{Priority: NodeAffinity{}, Weight: 2},
		{Priority: PodTopologySpread{}, Weight: 2},
		{Priority: InterPodAffinity{}, Weight: 2},
		{Priority: LeastAllocated{}, Weight: 1},
		{Priority: BalancedAllocation{}, Weight: 1},
		{Priority: ImageLocality{}, Weight: 1},
		{Priority: SelectorSpread{}, Weight: 1},
	}
}

// DefaultProfile returns a profile named schedulerName ("" for the
// default scheduler) with every built-in predicate and priority. Add a
// PostFilter (the scheduler's preemption) and custom plugins to it.
func DefaultProfile(schedulerName string) framework.Profile {
	return framework.Profile{
		SchedulerName: schedulerName,
		Predicates:    DefaultPredicates(),
		Priorities:    DefaultPriorities(),
	}
}
