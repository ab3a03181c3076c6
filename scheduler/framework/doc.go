// Package framework holds the scheduler's plugin contracts and the data
// they read: the Predicate and Priority interfaces and the optional
// extension points (PreFilter, PreScore, ScoreNormalizer, PostFilter,
// Reserve, Permit, Bind), the Status they return, the per-cycle
// CycleState, the NodeInfo aggregate of one node and the pods on it, the
// Snapshot of all NodeInfos a cycle reads, and the Framework that runs the
// plugins of one Profile.
//
// A plugin is a value with a Name and one verb; what else it can do is
// found by type assertion, as net/http finds a Flusher. A user's
// predicate is a few lines:
//
//	type gpuOnly struct{}
//
//	func (gpuOnly) Name() string { return "GPUOnly" }
//	func (gpuOnly) Filter(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) *framework.Status {
//		if n.Node().Labels["gpu"] != "true" {
//			return framework.NewStatus(framework.Unschedulable, "node(s) had no GPU")
//		}
//		return nil
//	}
//
// The package is pure: it reads api types only and never talks to a
// server. Snapshots and NodeInfos handed to plugins are read-only for the
// duration of the call; plugins must not keep them past the cycle.
package framework
