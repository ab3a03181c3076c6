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
	// Selector is the labelSelector with the matchLabelKeys requirements
	// (key in the pod's own value) added.
	Selector   labels.Selector
	MinDomains int64
	// HonorNodeAffinity: only nodes matching the pod's nodeSelector and
	// required node affinity count (nodeAffinityPolicy Honor, the default).
	HonorNodeAffinity bool
	// HonorTaints: only nodes whose NoSchedule and NoExecute taints the
	// pod tolerates count (nodeTaintsPolicy Honor; the default is Ignore).
	HonorTaints bool
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

// includes fills inc (len(s.Constraints)) with whether node n counts for
// each constraint, as kube-scheduler decides it: n must carry every
// constraint's key, then each constraint's node inclusion policies apply.
// It reports whether n counts for any.
func (s *SpreadCounts) includes(pod *core.Pod, n *core.Node, inc []bool) bool {
	if n == nil || !hasAllKeys(n, s.Constraints) {
		return false
	}
	var affOK, taintOK, any bool
	affDone, taintDone := false, false
	for i, c := range s.Constraints {
		inc[i] = true
		if c.HonorNodeAffinity {
			if !affDone {
				affOK, affDone = core.PodMatchesNodeAffinity(pod, n), true
			}
			inc[i] = affOK
		}
		if c.HonorTaints && inc[i] {
			if !taintDone {
				_, untolerated := UntoleratedTaint(n.Spec.Taints, pod.Spec.Tolerations)
				taintOK, taintDone = !untolerated, true
			}
			inc[i] = taintOK
		}
		any = any || inc[i]
	}
	return any
}

// add counts p, running on node n, delta times for every constraint that
// n counts for (inc, from includes) and whose selector matches p.
func (s *SpreadCounts) add(pod, p *core.Pod, n *core.Node, inc []bool, delta int64) {
	if p.Namespace != pod.Namespace || framework.IsTerminating(p) {
		return
	}
	for i := range s.Constraints {
		if inc[i] && s.Constraints[i].Selector.Matches(labels.Set(p.Labels)) {
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
		sel, err := spreadSelector(pod, c)
		if err != nil {
			return nil, fmt.Errorf("topology spread constraint %q: %w", c.TopologyKey, err)
		}
		pc := Constraint{MaxSkew: int64(c.MaxSkew), TopologyKey: c.TopologyKey, Selector: sel, MinDomains: 1,
			HonorNodeAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy != core.NodeInclusionPolicyIgnore,
			HonorTaints:       c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == core.NodeInclusionPolicyHonor}
		if c.MinDomains != nil {
			pc.MinDomains = int64(*c.MinDomains)
		}
		out = append(out, pc)
	}
	return out, nil
}

// spreadSelector is c's labelSelector plus, for each matchLabelKeys key
// the pod carries, the requirement "key in (the pod's value)". A nil
// labelSelector selects nothing.
func spreadSelector(pod *core.Pod, c *core.TopologySpreadConstraint) (labels.Selector, error) {
	sel, err := labels.SelectorFromLabelSelector(c.LabelSelector)
	if err != nil || c.LabelSelector == nil || len(c.MatchLabelKeys) == 0 {
		return sel, err
	}
	reqs := sel.Requirements()
	for _, k := range c.MatchLabelKeys {
		v, ok := pod.Labels[k]
		if !ok {
			continue
		}
		r, err := labels.NewRequirement(k, labels.In, []string{v})
		if err != nil {
			return nil, fmt.Errorf("matchLabelKeys %q: %w", k, err)
		}
		reqs = append(reqs, r)
	}
	return labels.NewSelector(reqs...), nil
}

// CountSpread counts, for each constraint, the pods in pod's namespace
// matching its selector per domain, over the nodes that count for it
// (every constraint's key, then its node inclusion policies). Domains of
// counted nodes with no pods are present with 0.
func CountSpread(pod *core.Pod, cs []Constraint, nodes []*framework.NodeInfo) *SpreadCounts {
	s := &SpreadCounts{Constraints: cs, Counts: make([]map[string]int64, len(cs)), SelfMatch: make([]int64, len(cs))}
	for i := range cs {
		s.Counts[i] = map[string]int64{}
		if cs[i].Selector.Matches(labels.Set(pod.Labels)) {
			s.SelfMatch[i] = 1
		}
	}
	inc := make([]bool, len(cs))
	for _, ni := range nodes {
		n := ni.Node()
		if !s.includes(pod, n, inc) {
			continue
		}
		for i := range cs {
			if inc[i] {
				s.Counts[i][n.Labels[cs[i].TopologyKey]] += 0 // a domain with no pods is present with 0
			}
		}
		for _, p := range ni.Pods {
			s.add(pod, p.Pod, n, inc, 1)
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
	if s == nil {
		return nil
	}
	if inc := make([]bool, len(s.Constraints)); s.includes(pod, ni.Node(), inc) {
		s.add(pod, p.Pod, ni.Node(), inc, delta)
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
