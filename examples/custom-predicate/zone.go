package main

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// The labels the plugins read.
const (
	// ZoneLabel is the well-known node label naming a node's zone.
	ZoneLabel = "topology.kubernetes.io/zone"
	// PinLabel on a pod names the only zone it may run in.
	PinLabel = "zone-pinned"
	// AppLabel groups the pods ZoneSpread spreads.
	AppLabel = "app"
)

// ZoneSpreadWeight is ZoneSpread's weight in Profile: high enough that
// spreading over zones wins over the built-in priorities (weights 1-3).
const ZoneSpreadWeight = 5

// Profile returns the scheduler profile of this example: the built-in
// default profile for schedulerName ("" for the default scheduler) plus
// ZonePinned and ZoneSpread.
func Profile(schedulerName string) framework.Profile {
	p := plugins.DefaultProfile(schedulerName)
	p.Predicates = append(p.Predicates, ZonePinned{})
	p.Priorities = append(p.Priorities, framework.WeightedPriority{Priority: ZoneSpread{}, Weight: ZoneSpreadWeight})
	return p
}

// ZonePinned is a predicate: a pod labelled zone-pinned=<zone> fits only
// nodes labelled topology.kubernetes.io/zone=<zone>; other pods fit
// anywhere. It is stateless and safe for concurrent use.
type ZonePinned struct{}

var _ framework.Predicate = ZonePinned{}

// Name implements framework.Plugin.
func (ZonePinned) Name() string { return "ZonePinned" }

// Filter implements framework.Predicate. A node in another zone can never
// become right for the pod, so the rejection is unresolvable (preemption
// will not try to make room there).
func (ZonePinned) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	want := pod.Labels[PinLabel]
	if want == "" || ni.Node().Labels[ZoneLabel] == want {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) not in zone %q", want))
}

// ZoneSpread is a priority: among the feasible nodes, those in a zone
// with fewer pods of the same app (same namespace, same "app" label)
// score higher, so an app's replicas spread evenly over zones. Nodes
// without a zone label score lowest. Pods without an "app" label are not
// scored by it.
//
// PreScore counts the app's pods per zone once per cycle over the whole
// cluster snapshot and leaves the counts in the CycleState; Score reads
// them for each node; NormalizeScore turns "fewest pods" into 100. It is
// stateless and safe for concurrent use.
type ZoneSpread struct{}

var (
	_ framework.Priority        = ZoneSpread{}
	_ framework.PreScore        = ZoneSpread{}
	_ framework.ScoreNormalizer = ZoneSpread{}
)

// zoneCountsKey is where PreScore leaves its counts in the CycleState.
const zoneCountsKey framework.StateKey = "ZoneSpread/counts"

// zoneCounts is the number of the app's pods per zone; max is the
// largest count, given to nodes without a zone.
type zoneCounts struct {
	byZone map[string]int64
	max    int64
}

// Clone implements framework.StateData; the counts are never changed
// after PreScore, so sharing them is safe.
func (z *zoneCounts) Clone() framework.StateData { return z }

// Name implements framework.Plugin.
func (ZoneSpread) Name() string { return "ZoneSpread" }

// PreScore counts the pods of pod's app per zone. It reads every node of
// the cycle's snapshot (not only the feasible ones: a zone is crowded
// whether or not this pod fits there); without a snapshot it counts the
// feasible nodes. It skips pods without an "app" label.
func (ZoneSpread) PreScore(_ context.Context, state *framework.CycleState, pod *core.Pod, feasible []*framework.NodeInfo) *framework.Status {
	app := pod.Labels[AppLabel]
	if app == "" {
		return framework.NewStatus(framework.Skip)
	}
	nodes := feasible
	if snap := state.Snapshot(); snap != nil {
		nodes = snap.List()
	}
	counts := &zoneCounts{byZone: map[string]int64{}}
	for _, ni := range nodes {
		zone := ni.Node().Labels[ZoneLabel]
		if zone == "" {
			continue
		}
		n := counts.byZone[zone] + countApp(ni, pod.Namespace, app)
		counts.byZone[zone] = n
		counts.max = max(counts.max, n)
	}
	state.Write(zoneCountsKey, counts)
	return nil
}

// countApp counts the pods on ni, not terminating, of app in namespace.
func countApp(ni *framework.NodeInfo, namespace, app string) int64 {
	var n int64
	for _, pi := range ni.Pods {
		p := pi.Pod
		if p.Namespace == namespace && p.Labels[AppLabel] == app && !framework.IsTerminating(p) {
			n++
		}
	}
	return n
}

// Score implements framework.Priority: the raw score is the number of
// the app's pods in the node's zone (lower is better; NormalizeScore
// reverses it).
func (ZoneSpread) Score(_ context.Context, state *framework.CycleState, _ *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	counts, err := framework.ReadAs[*zoneCounts](state, zoneCountsKey)
	if err != nil {
		return 0, framework.AsStatus(fmt.Errorf("ZoneSpread: %w", err))
	}
	zone := ni.Node().Labels[ZoneLabel]
	if zone == "" {
		return counts.max + 1, nil // least preferred
	}
	return counts.byZone[zone], nil
}

// NormalizeScore implements framework.ScoreNormalizer: the emptiest zone
// scores 100, the most crowded 0.
func (ZoneSpread) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(scores, true)
	return nil
}
