// Package plugins holds the scheduler's built-in predicates and
// priorities, each a small type implementing framework.Predicate and/or
// framework.Priority (plus PreFilter or PreScore where it precomputes per
// cycle). Every decision is a pure function of the pod and the NodeInfo
// (or the snapshot for cluster-wide counts), tested table-driven with the
// exact reasons Kubernetes prints.
//
// Predicates: NodeResourcesFit, NodeName, NodeUnschedulable, NodeAffinity
// (nodeSelector and required node affinity), TaintToleration, NodePorts,
// InterPodAffinity (required), PodTopologySpread (DoNotSchedule).
//
// Priorities: LeastAllocated, BalancedAllocation, NodeAffinity
// (preferred), TaintToleration (PreferNoSchedule), ImageLocality,
// InterPodAffinity (preferred), PodTopologySpread (ScheduleAnyway) and
// SelectorSpread (a controller's pods across nodes).
//
// Plugins hold no mutable state of their own: everything per pod lives in
// the framework.CycleState, so one value serves every profile and every
// cycle concurrently. DefaultProfile wires them with Kubernetes' weights.
package plugins
