package framework

import (
	"context"
	"time"

	"github.com/orkit/orkit/api/core"
)

// Plugin is anything the framework runs: it has a name, unique within a
// profile, that statuses, events and weights refer to.
type Plugin interface {
	Name() string
}

// Predicate decides whether pod can run on one node. Filter is called
// concurrently for different nodes of one cycle and must not modify its
// arguments. It returns nil when the pod fits, Unschedulable or
// UnschedulableAndUnresolvable with the reason a user reads ("Insufficient
// cpu") when not, and Error when it could not decide.
type Predicate interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *core.Pod, node *NodeInfo) *Status
}

// Priority ranks a node that passed every predicate: a higher score is
// better. Unless the plugin is also a ScoreNormalizer, scores must lie in
// [MinNodeScore, MaxNodeScore]. Score is called concurrently for
// different nodes and must not modify its arguments.
type Priority interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *core.Pod, node *NodeInfo) (int64, *Status)
}

// The range of a normalized node score.
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
)

// NodeScore is one node's score from one priority.
type NodeScore struct {
	Name  string
	Score int64
}

// ScoreNormalizer is an optional ability of a Priority: after every
// feasible node is scored, NormalizeScore rewrites scores in place into
// [MinNodeScore, MaxNodeScore].
type ScoreNormalizer interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *core.Pod, scores []NodeScore) *Status
}

// PreFilter is an optional ability of any plugin: called once per cycle
// before filtering, it computes what Filter then reads from state (the
// pod's requests, spread counts). A rejection fails the pod on every node
// without calling filters; Skip says the plugin's Filter has nothing to
// check for this pod and is not called in this cycle.
type PreFilter interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *core.Pod) *Status
}

// PreFilterExtensions is an optional ability of a PreFilter whose state
// counts pods cluster-wide (inter-pod affinity, topology spread).
// Preemption evaluates "what if these pods were gone" on a copy of the
// cycle state and calls RemovePod and AddPod as it takes pods off a node
// and puts them back, so Filter sees counts that match the node it is
// given. Both are called only for plugins whose PreFilter did not Skip.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule *core.Pod, podToAdd *PodInfo, node *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *core.Pod, podToRemove *PodInfo, node *NodeInfo) *Status
}

// PreScore is an optional ability of a Priority: called once per cycle
// with the feasible nodes before scoring; Skip means the priority has
// nothing to say for this pod and its Score calls are skipped.
type PreScore interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *core.Pod, nodes []*NodeInfo) *Status
}

// NodeToStatus maps node names to why each rejected the pod.
type NodeToStatus map[string]*Status

// PostFilter runs when no node passed the predicates (preemption). It may
// return the node the pod is nominated to once victims are gone; a
// Success status with a node means "retry, this node will fit".
type PostFilter interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *core.Pod, filtered NodeToStatus) (nominatedNode string, s *Status)
}

// Reserve is told when a node is chosen for pod (before binding) and,
// through Unreserve, when that choice is abandoned (a later plugin or the
// binding failed). Unreserve must be idempotent and cannot fail.
type Reserve interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *core.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *core.Pod, nodeName string)
}

// Permit approves, rejects or holds a pod before it is bound. Wait with a
// timeout holds the binding until Framework.Allow or Reject is called for
// the pod or the timeout passes (which rejects it).
type Permit interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *core.Pod, nodeName string) (*Status, time.Duration)
}

// PreBind is an optional ability of any plugin: called by the binding
// worker after Permit and before the Binder, it does what must hold
// before the pod is bound (VolumeBinding asks for the pod's volumes on
// the node and waits until they are bound). It may block until ctx ends;
// any status but Success (or Skip) fails the binding: the pod is
// unreserved and retried, never bound.
type PreBind interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, pod *core.Pod, nodeName string) *Status
}

// Binder records the placement. Skip passes to the next binder; the
// scheduler's default binder posts a Binding to the API server.
type Binder interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *core.Pod, nodeName string) *Status
}
