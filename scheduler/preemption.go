package scheduler

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// PreemptionName is the name of the preemption PostFilter.
const PreemptionName = "DefaultPreemption"

// Evictor carries out a preemption: it deletes victims and records the
// preemptor's nominated node. The scheduler's implementation writes
// through the API server; simulations and tests supply their own.
type Evictor interface {
	Evict(ctx context.Context, victim, preemptor *core.Pod) error
	Nominate(ctx context.Context, pod *core.Pod, node string) error
}

// Preemption is the PostFilter that, when no node fits a pod, finds one
// node where deleting the smallest set of lower-priority pods makes it
// fit, deletes them and nominates the node for the pod. Victims are
// chosen by removing every lower-priority pod, checking the pod fits, then
// re-adding the most important ones while it still fits. Among candidate
// nodes the one whose most important victim has the lowest priority wins,
// then fewest victims, then lowest priority sum.
//
// The predicates are those of the profile (set by the scheduler when it
// builds the profile); the pod-affinity and spread counts are the cycle's
// and are not recounted per candidate. Safe for concurrent use.
type Preemption struct {
	evictor     Evictor
	fwk         *framework.Framework
	parallelism int
}

var _ framework.PostFilter = (*Preemption)(nil)

// NewPreemption returns a Preemption that evicts through ev. Bind it to
// its profile's framework with SetFramework before use (the scheduler
// does this for the preemption it adds).
func NewPreemption(ev Evictor, parallelism int) *Preemption {
	return &Preemption{evictor: ev, parallelism: max(1, parallelism)}
}

// SetFramework sets the framework whose predicates decide fit.
func (p *Preemption) SetFramework(f *framework.Framework) { p.fwk = f }

// Name implements framework.Plugin.
func (p *Preemption) Name() string { return PreemptionName }

// Candidate is a node and the pods to evict there.
type Candidate struct {
	Node    string
	Victims []*core.Pod
}

// PostFilter implements framework.PostFilter.
func (p *Preemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *core.Pod, filtered framework.NodeToStatus) (string, *framework.Status) {
	snap := state.Snapshot()
	if p.fwk == nil || snap == nil {
		return "", framework.NewStatus(framework.Error, "preemption is not bound to a framework")
	}
	if reason := p.ineligible(pod, snap); reason != "" {
		return "", framework.NewStatus(framework.Unschedulable, reason)
	}
	c, ok := p.FindCandidate(ctx, state, pod, snap, filtered)
	if !ok {
		return "", framework.NewStatus(framework.Unschedulable, fmt.Sprintf(
			"0/%d nodes are available: %d No preemption victims found for incoming pod.", snap.NumNodes(), snap.NumNodes()))
	}
	for _, v := range c.Victims {
		if err := p.evictor.Evict(ctx, v, pod); err != nil {
			return "", framework.AsStatus(fmt.Errorf("preempt %s on %s: %w", framework.PodKey(v), c.Node, err))
		}
	}
	if err := p.evictor.Nominate(ctx, pod, c.Node); err != nil {
		return "", framework.AsStatus(err)
	}
	return c.Node, nil
}

// ineligible returns why pod may not preempt: its policy says never, or
// it already preempted on its nominated node and victims are still
// terminating there.
func (p *Preemption) ineligible(pod *core.Pod, snap *framework.Snapshot) string {
	if pp := pod.Spec.PreemptionPolicy; pp != nil && *pp == core.PreemptNever {
		return "not eligible due to preemptionPolicy=Never."
	}
	nom := pod.Status.NominatedNodeName
	if nom == "" {
		return ""
	}
	ni, err := snap.Get(nom)
	if err != nil {
		return ""
	}
	prio := framework.PodPriority(pod)
	for _, pi := range ni.Pods {
		if framework.IsTerminating(pi.Pod) && framework.PodPriority(pi.Pod) < prio {
			return "not eligible due to a terminating pod on the nominated node."
		}
	}
	return ""
}

// FindCandidate evaluates, in parallel, every node that rejected pod with
// a resolvable status and returns the best candidate.
func (p *Preemption) FindCandidate(ctx context.Context, state *framework.CycleState, pod *core.Pod, snap *framework.Snapshot, filtered framework.NodeToStatus) (Candidate, bool) {
	var nodes []*framework.NodeInfo
	for _, ni := range snap.List() {
		if s, ok := filtered[ni.Name()]; ok && s.Code() == framework.Unschedulable {
			nodes = append(nodes, ni)
		}
	}
	var mu sync.Mutex
	var cands []Candidate
	framework.Parallelize(ctx, p.parallelism, len(nodes), func(i int) {
		if v, ok := p.SelectVictims(ctx, state, pod, nodes[i]); ok {
			mu.Lock()
			cands = append(cands, Candidate{Node: nodes[i].Name(), Victims: v})
			mu.Unlock()
		}
	})
	if len(cands) == 0 {
		return Candidate{}, false
	}
	sort.Slice(cands, func(i, j int) bool { return betterCandidate(cands[i], cands[j]) })
	return cands[0], true
}

func betterCandidate(a, b Candidate) bool {
	ha, hb := highest(a.Victims), highest(b.Victims)
	if ha != hb {
		return ha < hb
	}
	if len(a.Victims) != len(b.Victims) {
		return len(a.Victims) < len(b.Victims)
	}
	sa, sb := prioritySum(a.Victims), prioritySum(b.Victims)
	if sa != sb {
		return sa < sb
	}
	return a.Node < b.Node
}

func highest(pods []*core.Pod) int32 {
	h := int32(-1 << 31)
	for _, p := range pods {
		h = max(h, framework.PodPriority(p))
	}
	return h
}

func prioritySum(pods []*core.Pod) int64 {
	var s int64
	for _, p := range pods {
		s += int64(framework.PodPriority(p))
	}
	return s
}

// SelectVictims returns the smallest set of lower-priority pods on ni
// (greedy: most important re-added first) whose removal lets pod pass
// the predicates, or false when removing all of them is not enough. It
// works on copies of ni and of state, telling the predicates that count
// pods cluster-wide (inter-pod affinity, topology spread) about each pod
// it removes and re-adds, so their counts match the node being tried.
func (p *Preemption) SelectVictims(ctx context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) ([]*core.Pod, bool) {
	prio := framework.PodPriority(pod)
	c, st := ni.Clone(), state.Clone()
	remove := func(pi *framework.PodInfo) bool {
		_ = c.RemovePod(pi.Pod)
		return p.fwk.RunPreFilterExtensionRemovePod(ctx, st, pod, pi, c).IsSuccess()
	}
	var lower []*framework.PodInfo
	for _, pi := range ni.Pods {
		if framework.PodPriority(pi.Pod) < prio && !framework.IsTerminating(pi.Pod) {
			lower = append(lower, pi)
			if !remove(pi) {
				return nil, false
			}
		}
	}
	if len(lower) == 0 || !p.fwk.RunFilter(ctx, st, pod, c).IsSuccess() {
		return nil, false
	}
	sort.SliceStable(lower, func(i, j int) bool {
		return framework.PodPriority(lower[i].Pod) > framework.PodPriority(lower[j].Pod)
	})
	var victims []*core.Pod
	for _, pi := range lower {
		c.AddPod(pi)
		if !p.fwk.RunPreFilterExtensionAddPod(ctx, st, pod, pi, c).IsSuccess() {
			return nil, false
		}
		if p.fwk.RunFilter(ctx, st, pod, c).IsSuccess() {
			continue // reprieved
		}
		if !remove(pi) {
			return nil, false
		}
		victims = append(victims, pi.Pod)
	}
	return victims, true
}

// nominator remembers which pods are nominated to which node until they
// are bound or deleted. Safe for concurrent use.
type nominator struct {
	mu     sync.RWMutex
	byNode map[string][]*framework.PodInfo
	byPod  map[string]string
}

func newNominator() *nominator {
	return &nominator{byNode: map[string][]*framework.PodInfo{}, byPod: map[string]string{}}
}

var _ Nominator = (*nominator)(nil)

// NominatedPods implements Nominator.
func (n *nominator) NominatedPods(node string) []*framework.PodInfo {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if len(n.byNode) == 0 {
		return nil
	}
	return n.byNode[node]
}

func (n *nominator) add(pi *framework.PodInfo, node string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.removeLocked(pi.Pod)
	n.byPod[podKey(pi.Pod)] = node
	n.byNode[node] = append(n.byNode[node], pi)
}

// Count implements Nominator.
func (n *nominator) Count() int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.byPod)
}

func (n *nominator) nodeOf(pod *core.Pod) string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.byPod[podKey(pod)]
}

func (n *nominator) remove(pod *core.Pod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.removeLocked(pod)
}

func (n *nominator) removeLocked(pod *core.Pod) {
	key := podKey(pod)
	node, ok := n.byPod[key]
	if !ok {
		return
	}
	delete(n.byPod, key)
	list := n.byNode[node]
	out := make([]*framework.PodInfo, 0, len(list))
	for _, pi := range list {
		if podKey(pi.Pod) != key {
			out = append(out, pi)
		}
	}
	if len(out) == 0 {
		delete(n.byNode, node)
		return
	}
	n.byNode[node] = out
}
