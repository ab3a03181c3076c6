package plugins

import (
	"context"
	"fmt"
	"maps"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/scheduler/framework"
)

// PodTopologySpread is the predicate for topologySpreadConstraints with
// whenUnsatisfiable DoNotSchedule (placing the pod must keep the skew —
// matching pods in this domain minus the fewest in any domain — within
// maxSkew) and the priority for ScheduleAnyway ones (fewer matching pods
// in the node's domains score higher). Pods are counted in PreFilter over
// the nodes that pass the pod's node affinity and carry every topology key
// of its constraints.
type PodTopologySpread struct{}

var (
	_ framework.Predicate           = PodTopologySpread{}
	_ framework.PreFilter           = PodTopologySpread{}
	_ framework.PreFilterExtensions = PodTopologySpread{}
	_ framework.Priority            = PodTopologySpread{}
	_ framework.PreScore            = PodTopologySpread{}
	_ framework.ScoreNormalizer     = PodTopologySpread{}
)

// Name implements framework.Plugin.
func (PodTopologySpread) Name() string { return NamePodTopologySpread }

// Constraint is a parsed TopologySpreadConstraint.
type Constraint struct {
	MaxSkew     int64
	TopologyKey string
	Selector    labels.Selector
	MinDomains  int64
}

// SpreadCounts is what PreFilter counted for a pod's constraints.
type SpreadCounts struct {
	Constraints []Constraint
	// Counts[i] maps the domains of Constraints[i] to matching pods.
	Counts []map[string]int64
	// SelfMatch[i] is 1 when the pod matches its own Constraints[i].
	SelfMatch []int64
}

// Clone implements framework.StateData: the counts are copied, since
// preemption's AddPod and RemovePod change them.
func (s *SpreadCounts) Clone() framework.StateData {
	if s == nil {
		return s
	}
	c := *s
	c.Counts = make([]map[string]int64, len(s.Counts))
	for i, m := range s.Counts {
		c.Counts[i] = maps.Clone(m)
	}
	return &c
}

// covers reports whether node n is one of the nodes pod's counts cover:
// it passes the pod's node affinity and carries every constraint's key.
func (s *SpreadCounts) covers(pod *core.Pod, n *core.Node) bool {
	return n != nil && PodMatchesNodeAffinity(pod, n) && hasAllKeys(n, s.Constraints)
}

// add counts p, running on node n (which s covers), delta times for every
// constraint whose selector matches it.
func (s *SpreadCounts) add(pod, p *core.Pod, n *core.Node, delta int64) {
	if p.Namespace != pod.Namespace || framework.IsTerminating(p) {
		return
	}
	for i := range s.Constraints {
		if s.Constraints[i].Selector.Matches(labels.Set(p.Labels)) {
			s.Counts[i][n.Labels[s.Constraints[i].TopologyKey]] += delta
		}
	}
}

const (
	spreadKey      framework.StateKey = "PreFilter" + NamePodTopologySpread
	spreadScoreKey framework.StateKey = "PreScore" + NamePodTopologySpread
)

// ParseConstraints parses the pod's constraints with the given
// whenUnsatisfiable. A nil selector selects nothing.
func ParseConstraints(pod *core.Pod, when string) ([]Constraint, error) {
	var out []Constraint
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != when {
			continue
		}
		sel, err := labels.SelectorFromLabelSelector(c.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("topology spread constraint %q: %w", c.TopologyKey, err)
		}
		pc := Constraint{MaxSkew: int64(c.MaxSkew), TopologyKey: c.TopologyKey, Selector: sel, MinDomains: 1}
		if c.MinDomains != nil {
			pc.MinDomains = int64(*c.MinDomains)
		}
		out = append(out, pc)
	}
	return out, nil
}

// CountSpread counts, for each constraint, the pods in pod's namespace
// matching its selector per domain, over the nodes that match the pod's
// node affinity and have every constraint's key. Domains with no pods
// are present with 0.
func CountSpread(pod *core.Pod, cs []Constraint, nodes []*framework.NodeInfo) *SpreadCounts {
	s := &SpreadCounts{Constraints: cs, Counts: make([]map[string]int64, len(cs)), SelfMatch: make([]int64, len(cs))}
	for i := range cs {
		s.Counts[i] = map[string]int64{}
		if cs[i].Selector.Matches(labels.Set(pod.Labels)) {
			s.SelfMatch[i] = 1
		}
	}
	for _, ni := range nodes {
		n := ni.Node()
		if !s.covers(pod, n) {
			continue
		}
		for i := range cs {
			v := n.Labels[cs[i].TopologyKey]
			s.Counts[i][v] += 0 // a domain with no pods is present with 0
		}
		for _, p := range ni.Pods {
			s.add(pod, p.Pod, n, 1)
		}
	}
	return s
}

// AddPod implements framework.PreFilterExtensions.
func (PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, pod *core.Pod, add *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return updateSpread(state, pod, add, ni, 1)
}

// RemovePod implements framework.PreFilterExtensions.
func (PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, pod *core.Pod, rm *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return updateSpread(state, pod, rm, ni, -1)
}

func updateSpread(state *framework.CycleState, pod *core.Pod, p *framework.PodInfo, ni *framework.NodeInfo, delta int64) *framework.Status {
	s, err := framework.ReadAs[*SpreadCounts](state, spreadKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s != nil && s.covers(pod, ni.Node()) {
		s.add(pod, p.Pod, ni.Node(), delta)
	}
	return nil
}

func hasAllKeys(n *core.Node, cs []Constraint) bool {
	for i := range cs {
		if _, ok := n.Labels[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// PreFilter counts the DoNotSchedule constraints; Skip when there are none.
func (PodTopologySpread) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	cs, err := ParseConstraints(pod, core.DoNotSchedule)
	if err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if len(cs) == 0 {
		state.Write(spreadKey, (*SpreadCounts)(nil))
		return framework.NewStatus(framework.Skip)
	}
	var nodes []*framework.NodeInfo
	if snap := state.Snapshot(); snap != nil {
		nodes = snap.List()
	}
	state.Write(spreadKey, CountSpread(pod, cs, nodes))
	return nil
}

// Filter implements framework.Predicate.
func (PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadAs[*SpreadCounts](state, spreadKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	return SpreadFits(s, ni.Node())
}

// SpreadFits is the DoNotSchedule decision for node: it must carry every
// key, and for each constraint the pods in its domain plus this one minus
// the minimum over domains (0 when there are fewer than minDomains) must
// not exceed maxSkew.
func SpreadFits(s *SpreadCounts, node *core.Node) *framework.Status {
	if s == nil || len(s.Constraints) == 0 {
		return nil
	}
	if node == nil || !hasAllKeys(node, s.Constraints) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonTopologySpreadLabel)
	}
	for i, c := range s.Constraints {
		counts := s.Counts[i]
		minMatch := int64(-1)
		for _, v := range counts {
			if minMatch < 0 || v < minMatch {
				minMatch = v
			}
		}
		if minMatch < 0 || int64(len(counts)) < c.MinDomains {
			minMatch = 0
		}
		if counts[node.Labels[c.TopologyKey]]+s.SelfMatch[i]-minMatch > c.MaxSkew {
			return framework.NewStatus(framework.Unschedulable, ReasonTopologySpread)
		}
	}
	return nil
}

// PreScore counts the ScheduleAnyway constraints; Skip when there are none.
func (PodTopologySpread) PreScore(_ context.Context, state *framework.CycleState, pod *core.Pod, _ []*framework.NodeInfo) *framework.Status {
	cs, err := ParseConstraints(pod, core.ScheduleAnyway)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	var nodes []*framework.NodeInfo
	if snap := state.Snapshot(); snap != nil {
		nodes = snap.List()
	}
	state.Write(spreadScoreKey, CountSpread(pod, cs, nodes))
	return nil
}

// Score implements framework.Priority: the matching pods in the node's
// domains (fewer is better after normalization).
func (PodTopologySpread) Score(_ context.Context, state *framework.CycleState, _ *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	s, err := framework.ReadAs[*SpreadCounts](state, spreadScoreKey)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	var sum int64
	for i, c := range s.Constraints {
		sum += s.Counts[i][ni.Node().Labels[c.TopologyKey]]
	}
	return sum, nil
}

// NormalizeScore maps the most crowded domain to 0 and the emptiest to 100.
func (PodTopologySpread) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	MinMaxNormalize(scores, true)
	return nil
}
