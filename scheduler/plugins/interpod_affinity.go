package plugins

import (
	"context"
	"maps"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/scheduler/framework"
)

// InterPodAffinity is the predicate for required pod affinity and
// anti-affinity (the pod's own terms, and existing pods' anti-affinity
// against it), and the priority for preferred terms. Terms are counted
// per topology domain (topologyKey=value) in PreFilter and PreScore, so
// Filter and Score are map look-ups.
type InterPodAffinity struct{}

var (
	_ framework.Predicate           = InterPodAffinity{}
	_ framework.PreFilter           = InterPodAffinity{}
	_ framework.PreFilterExtensions = InterPodAffinity{}
	_ framework.Priority            = InterPodAffinity{}
	_ framework.PreScore            = InterPodAffinity{}
	_ framework.ScoreNormalizer     = InterPodAffinity{}
)

// Name implements framework.Plugin.
func (InterPodAffinity) Name() string { return NameInterPodAffinity }

// Domain is one topology domain: a node label key and value.
type Domain struct{ Key, Value string }

// DomainCounts counts matching pods per topology domain. A domain whose
// count drops to zero is removed, so an empty map means "no pod matches
// anywhere".
type DomainCounts map[Domain]int64

func (c DomainCounts) add(d Domain, delta int64) {
	if n := c[d] + delta; n != 0 {
		c[d] = n
	} else {
		delete(c, d)
	}
}

const (
	affinityKey      framework.StateKey = "PreFilter" + NameInterPodAffinity
	affinityScoreKey framework.StateKey = "PreScore" + NameInterPodAffinity
)

// affinityState is what PreFilter counts for one pod.
type affinityState struct {
	pod          *framework.PodInfo // resolved: namespaceSelectors turned into names
	nsLabels     labels.Set         // labels of the pod's namespace
	existingAnti DomainCounts       // existing pods' required anti-affinity matching the pod
	affinity     DomainCounts       // pods matching all the pod's required affinity terms
	anti         DomainCounts       // pods matching the pod's required anti-affinity terms
}

// Clone implements framework.StateData: the counts are copied, since
// preemption's AddPod and RemovePod change them.
func (s *affinityState) Clone() framework.StateData {
	c := *s
	c.existingAnti, c.affinity, c.anti = maps.Clone(s.existingAnti), maps.Clone(s.affinity), maps.Clone(s.anti)
	return &c
}

// add counts ep, running on node, delta times (+1 added, -1 removed) in
// every count it takes part in.
func (s *affinityState) add(ep *framework.PodInfo, node *core.Node, delta int64) {
	if node == nil || ep.Pod == s.pod.Pod {
		return
	}
	s.existingAnti = addExistingAnti(s.existingAnti, ep, node.Labels, s.pod.Pod, s.nsLabels, delta)
	addRequired(s.affinity, s.anti, s.pod, ep.Pod, node.Labels, delta)
}

// PreFilter counts, over the snapshot, the domains that the pod's
// required terms and the existing pods' anti-affinity terms touch; Skip
// when there is nothing to check.
func (InterPodAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	pi := state.PodInfoFor(pod).Resolved(state.Namespaces())
	if pi.ParseErr != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonInvalidAffinity+": "+pi.ParseErr.Error())
	}
	s := &affinityState{pod: pi, nsLabels: namespaceLabels(state, pod), affinity: DomainCounts{}, anti: DomainCounts{}}
	if snap := state.Snapshot(); snap != nil {
		for _, ni := range snap.HavePodsWithRequiredAntiAffinityList() {
			for _, ep := range ni.PodsWithRequiredAntiAffinity {
				s.existingAnti = addExistingAnti(s.existingAnti, ep, ni.Node().Labels, pod, s.nsLabels, 1)
			}
		}
		if len(pi.RequiredAffinity)+len(pi.RequiredAntiAffinity) > 0 {
			for _, ni := range snap.List() {
				for _, ep := range ni.Pods {
					addRequired(s.affinity, s.anti, pi, ep.Pod, ni.Node().Labels, 1)
				}
			}
		}
	}
	state.Write(affinityKey, s)
	if len(s.existingAnti) == 0 && len(pi.RequiredAffinity)+len(pi.RequiredAntiAffinity) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// namespaceLabels returns the labels of pod's namespace, which existing
// pods' terms with a namespaceSelector are matched against.
func namespaceLabels(state *framework.CycleState, pod *core.Pod) labels.Set {
	if ns := state.Namespaces(); ns != nil {
		return ns.Labels(pod.Namespace)
	}
	return nil
}

// addExistingAnti adds delta to c (allocated when nil) for each of ep's
// required anti-affinity terms that selects pod (whose namespace has
// nsLabels), in the domain of ep's node (labels nodeLabels).
func addExistingAnti(c DomainCounts, ep *framework.PodInfo, nodeLabels map[string]string, pod *core.Pod, nsLabels labels.Set, delta int64) DomainCounts {
	for i := range ep.RequiredAntiAffinity {
		t := &ep.RequiredAntiAffinity[i]
		if v, ok := nodeLabels[t.TopologyKey]; ok && t.Matches(pod, nsLabels) {
			if c == nil {
				c = DomainCounts{}
			}
			c.add(Domain{t.TopologyKey, v}, delta)
		}
	}
	return c
}

// addRequired adds delta to aff and anti for existing pod ep on a node
// with nodeLabels, by the required terms of pi (resolved).
func addRequired(aff, anti DomainCounts, pi *framework.PodInfo, ep *core.Pod, nodeLabels map[string]string, delta int64) {
	if matchesAll(pi.RequiredAffinity, ep) {
		for _, t := range pi.RequiredAffinity {
			if v, ok := nodeLabels[t.TopologyKey]; ok {
				aff.add(Domain{t.TopologyKey, v}, delta)
			}
		}
	}
	for i := range pi.RequiredAntiAffinity {
		t := &pi.RequiredAntiAffinity[i]
		if v, ok := nodeLabels[t.TopologyKey]; ok && t.Matches(ep, nil) {
			anti.add(Domain{t.TopologyKey, v}, delta)
		}
	}
}

// matchesAll reports whether pod matches every one of terms, which are
// resolved (their namespaceSelectors turned into names).
func matchesAll(terms []framework.AffinityTerm, pod *core.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// Filter implements framework.Predicate.
func (p InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadAs[*affinityState](state, affinityKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	return AffinityFits(s.pod, s.existingAnti, s.affinity, s.anti, ni.Node())
}

// AddPod implements framework.PreFilterExtensions.
func (InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *core.Pod, add *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return updateAffinity(state, add, ni, 1)
}

// RemovePod implements framework.PreFilterExtensions.
func (InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *core.Pod, rm *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return updateAffinity(state, rm, ni, -1)
}

func updateAffinity(state *framework.CycleState, ep *framework.PodInfo, ni *framework.NodeInfo, delta int64) *framework.Status {
	s, err := framework.ReadAs[*affinityState](state, affinityKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.add(ep, ni.Node(), delta)
	return nil
}

// AffinityFits is InterPodAffinity's decision for node given the counts
// PreFilter made: existing pods' anti-affinity first, then the pod's
// affinity (a pod whose terms match itself may start a group when no pod
// matches anywhere), then its anti-affinity.
func AffinityFits(pi *framework.PodInfo, existingAnti, aff, anti DomainCounts, node *core.Node) *framework.Status {
	if node == nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonAffinityRules)
	}
	for d := range existingAnti {
		if node.Labels[d.Key] == d.Value && existingAnti[d] > 0 {
			if _, ok := node.Labels[d.Key]; ok {
				return framework.NewStatus(framework.Unschedulable, ReasonExistingAntiAffinity)
			}
		}
	}
	if len(pi.RequiredAffinity) > 0 {
		ok := true
		for _, t := range pi.RequiredAffinity {
			v, has := node.Labels[t.TopologyKey]
			if !has || aff[Domain{t.TopologyKey, v}] <= 0 {
				ok = false
				break
			}
		}
		if !ok && !(len(aff) == 0 && matchesAll(pi.RequiredAffinity, pi.Pod) && hasKeys(node, pi.RequiredAffinity)) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonAffinityRules)
		}
	}
	for _, t := range pi.RequiredAntiAffinity {
		if v, has := node.Labels[t.TopologyKey]; has && anti[Domain{t.TopologyKey, v}] > 0 {
			return framework.NewStatus(framework.Unschedulable, ReasonAntiAffinityRules)
		}
	}
	return nil
}

func hasKeys(node *core.Node, terms []framework.AffinityTerm) bool {
	for _, t := range terms {
		if _, ok := node.Labels[t.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// affinityScores maps domains to the summed preferred weights.
type affinityScores map[Domain]int64

// Clone implements framework.StateData; the value is immutable.
func (s affinityScores) Clone() framework.StateData { return s }

// PreScore sums, per domain, the weights of the pod's preferred terms
// matching existing pods and of existing pods' preferred terms matching
// the pod (anti-affinity subtracts). Skip when nothing applies.
func (InterPodAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *core.Pod, _ []*framework.NodeInfo) *framework.Status {
	snap := state.Snapshot()
	pi := state.PodInfoFor(pod).Resolved(state.Namespaces())
	hasOwn := len(pi.PreferredAffinity)+len(pi.PreferredAntiAffinity) > 0
	if snap == nil || (!hasOwn && len(snap.HavePodsWithAffinityList()) == 0) {
		return framework.NewStatus(framework.Skip)
	}
	nodes := snap.HavePodsWithAffinityList()
	if hasOwn {
		nodes = snap.List()
	}
	scores, nsLabels := affinityScores{}, namespaceLabels(state, pod)
	for _, ni := range nodes {
		for _, ep := range ni.Pods {
			addPreferred(scores, ni.Node(), pi, ep, nsLabels)
		}
	}
	state.Write(affinityScoreKey, scores)
	return nil
}

// addPreferred adds to scores the preferred terms of pi (resolved) that
// select ep and those of ep that select pi, whose namespace has nsLabels.
func addPreferred(scores affinityScores, node *core.Node, pi, ep *framework.PodInfo, nsLabels labels.Set) {
	add := func(terms []framework.WeightedAffinityTerm, target *core.Pod, targetNS labels.Set, sign int64) {
		for i := range terms {
			t := &terms[i]
			if v, ok := node.Labels[t.TopologyKey]; ok && t.Matches(target, targetNS) {
				scores[Domain{t.TopologyKey, v}] += sign * int64(t.Weight)
			}
		}
	}
	add(pi.PreferredAffinity, ep.Pod, nil, 1)
	add(pi.PreferredAntiAffinity, ep.Pod, nil, -1)
	add(ep.PreferredAffinity, pi.Pod, nsLabels, 1)
	add(ep.PreferredAntiAffinity, pi.Pod, nsLabels, -1)
}

// Score implements framework.Priority: the sum over the node's labels of
// the domain scores.
func (InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	scores, err := framework.ReadAs[affinityScores](state, affinityScoreKey)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	var sum int64
	for d, v := range scores {
		if ni.Node().Labels[d.Key] == d.Value {
			if _, ok := ni.Node().Labels[d.Key]; ok {
				sum += v
			}
		}
	}
	return sum, nil
}

// NormalizeScore maps the raw sums (which may be negative) onto 0..100.
func (InterPodAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	MinMaxNormalize(scores, false)
	return nil
}

// MinMaxNormalize maps the lowest raw score to 0 and the highest to 100
// (reversed with reverse); equal scores all become 0 (100 with reverse).
func MinMaxNormalize(scores []framework.NodeScore, reverse bool) {
	if len(scores) == 0 {
		return
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		v := int64(0)
		if hi > lo {
			v = (scores[i].Score - lo) * framework.MaxNodeScore / (hi - lo)
		}
		if reverse {
			v = framework.MaxNodeScore - v
		}
		scores[i].Score = v
	}
}
