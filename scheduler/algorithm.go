package scheduler

import (
	"context"
	"math/rand/v2"
	"sync/atomic"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// Adaptive search bounds (Kubernetes' rule).
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// NumFeasibleNodesToFind returns how many feasible nodes a cycle looks for
// among numNodes before it stops filtering: all of them below 100 nodes;
// else percentage% (when 0, 50% at 100 nodes falling by 1% per 125 nodes
// to a 5% floor), never fewer than 100.
func NumFeasibleNodesToFind(percentage int32, numNodes int) int {
	if numNodes < minFeasibleNodesToFind || percentage >= 100 {
		return numNodes
	}
	adaptive := int(percentage)
	if adaptive <= 0 {
		adaptive = 50 - numNodes/125
		if adaptive < minFeasibleNodesPercentageToFind {
			adaptive = minFeasibleNodesPercentageToFind
		}
	}
	n := numNodes * adaptive / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// ScheduleResult is where a cycle put a pod.
type ScheduleResult struct {
	Node string
	// Evaluated is how many nodes were filtered; Feasible how many passed.
	Evaluated, Feasible int
}

// Nominator tells the algorithm which pods are nominated to a node
// (preemptors waiting for their victims to go), so lower-priority pods
// do not take the room they freed.
type Nominator interface {
	// NominatedPods returns the pods nominated to node.
	NominatedPods(node string) []*framework.PodInfo
	// Count returns how many pods are nominated anywhere; the algorithm
	// skips the per-node look-ups when it is 0.
	Count() int
}

// algorithm is one cycle's decision: filter then score. It keeps the
// round-robin start index, so successive pods look at different nodes
// first. Not safe for concurrent use: one per scheduling loop.
type algorithm struct {
	parallelism int
	extenders   []*Extender
	nominator   Nominator
	namespaces  framework.Namespaces // for affinity namespaceSelectors; may be nil
	nextStart   int
	rng         *rand.Rand
	statusBuf   []*framework.Status   // reused by findNodesThatFit
	feasibleBuf []*framework.NodeInfo // reused by findNodesThatFit; valid for one cycle
}

func newAlgorithm(parallelism int, ext []*Extender, nom Nominator) *algorithm {
	return &algorithm{parallelism: max(1, parallelism), extenders: ext, nominator: nom,
		rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// schedule picks a node for pod in snap. A *FitError says no node fits.
func (a *algorithm) schedule(ctx context.Context, fwk *framework.Framework, state *framework.CycleState, pod *core.Pod, snap *framework.Snapshot) (ScheduleResult, error) {
	if snap.NumNodes() == 0 {
		return ScheduleResult{}, ErrNoNodes
	}
	state.SetSnapshot(snap)
	state.SetNamespaces(a.namespaces)
	if s := fwk.RunPreFilter(ctx, state, pod); !s.IsSuccess() {
		if s.Code() == framework.Error {
			return ScheduleResult{}, s.Err()
		}
		return ScheduleResult{}, &FitError{Pod: framework.PodKey(pod), NumNodes: snap.NumNodes(), PreFilter: s, Statuses: allRejected(snap, s)}
	}
	feasible, statuses, err := a.findNodesThatFit(ctx, fwk, state, pod, snap)
	if err != nil {
		return ScheduleResult{}, err
	}
	evaluated := len(feasible) + len(statuses)
	if feasible, statuses, err = a.extenderFilter(ctx, pod, feasible, statuses); err != nil {
		return ScheduleResult{}, err
	}
	if len(feasible) == 0 {
		return ScheduleResult{}, &FitError{Pod: framework.PodKey(pod), NumNodes: snap.NumNodes(), Statuses: statuses}
	}
	if len(feasible) == 1 {
		return ScheduleResult{Node: feasible[0].Name(), Evaluated: evaluated, Feasible: 1}, nil
	}
	node, err := a.prioritize(ctx, fwk, state, pod, feasible)
	if err != nil {
		return ScheduleResult{}, err
	}
	return ScheduleResult{Node: node, Evaluated: evaluated, Feasible: len(feasible)}, nil
}

func allRejected(snap *framework.Snapshot, s *framework.Status) framework.NodeToStatus {
	out := make(framework.NodeToStatus, snap.NumNodes())
	for _, ni := range snap.List() {
		out[ni.Name()] = s
	}
	return out
}

// findNodesThatFit filters nodes in parallel from the round-robin start
// until enough feasible nodes are found; it returns them (in a buffer
// reused by the next cycle) and the statuses of the nodes that rejected
// the pod (nil when none did).
func (a *algorithm) findNodesThatFit(ctx context.Context, fwk *framework.Framework, state *framework.CycleState, pod *core.Pod, snap *framework.Snapshot) ([]*framework.NodeInfo, framework.NodeToStatus, error) {
	nodes := snap.List()
	n := len(nodes)
	want := NumFeasibleNodesToFind(fwk.PercentageOfNodesToScore(), n)
	if cap(a.feasibleBuf) < want {
		a.feasibleBuf = make([]*framework.NodeInfo, want)
	}
	feasible := a.feasibleBuf[:want]
	clear(feasible)
	if cap(a.statusBuf) < n {
		a.statusBuf = make([]*framework.Status, n)
	}
	statuses := a.statusBuf[:n]
	clear(statuses)
	var found, processed, rejected atomic.Int64
	var firstErr atomic.Pointer[framework.Status]
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := a.nextStart
	chunk := max(8, want/(a.parallelism*4))
	nominated := a.nominator != nil && a.nominator.Count() > 0
	framework.ParallelizeChunks(fctx, a.parallelism, n, chunk, func(lo, hi int) {
		var local [64]*framework.NodeInfo
		fits := local[:0]
		for i := lo; i < hi; i++ {
			idx := (start + i) % n
			ni := nodes[idx]
			target := ni
			if nominated {
				target = a.withNominated(ni, pod)
			}
			s := fwk.RunFilter(fctx, state, pod, target)
			if s.IsSuccess() {
				fits = append(fits, ni)
				continue
			}
			if s.Code() == framework.Error {
				firstErr.CompareAndSwap(nil, s)
			}
			statuses[idx] = s
		}
		processed.Add(int64(hi - lo))
		rejected.Add(int64(hi - lo - len(fits)))
		k := int(found.Add(int64(len(fits))))
		first := k - len(fits)
		for j, ni := range fits {
			if first+j < want {
				feasible[first+j] = ni
			}
		}
		if k >= want {
			cancel()
		}
	})
	if s := firstErr.Load(); s != nil {
		return nil, nil, s.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	a.nextStart = (start + int(processed.Load())) % n
	feasible = feasible[:min(int(found.Load()), want)]
	if rejected.Load() == 0 {
		return compact(feasible), nil, nil
	}
	return compact(feasible), collect(nodes, statuses), nil
}

// compact drops nil slots left by workers cancelled between counting a
// node and storing it (cannot happen below want, kept for safety).
func compact(s []*framework.NodeInfo) []*framework.NodeInfo {
	out := s[:0]
	for _, ni := range s {
		if ni != nil {
			out = append(out, ni)
		}
	}
	return out
}

func collect(nodes []*framework.NodeInfo, statuses []*framework.Status) framework.NodeToStatus {
	out := framework.NodeToStatus{}
	for i, s := range statuses {
		if s != nil {
			out[nodes[i].Name()] = s
		}
	}
	return out
}

// withNominated returns ni with the pods nominated to it that outrank pod
// added, so pod is filtered as if they were there.
func (a *algorithm) withNominated(ni *framework.NodeInfo, pod *core.Pod) *framework.NodeInfo {
	if a.nominator == nil {
		return ni
	}
	noms := a.nominator.NominatedPods(ni.Name())
	if len(noms) == 0 {
		return ni
	}
	var c *framework.NodeInfo
	prio := framework.PodPriority(pod)
	for _, np := range noms {
		if np.Pod.UID == pod.UID || framework.PodPriority(np.Pod) < prio {
			continue
		}
		if c == nil {
			c = ni.Clone()
		}
		c.AddPod(np)
	}
	if c == nil {
		return ni
	}
	return c
}

// prioritize scores the feasible nodes and picks the best, breaking ties
// at random (reservoir sampling).
func (a *algorithm) prioritize(ctx context.Context, fwk *framework.Framework, state *framework.CycleState, pod *core.Pod, feasible []*framework.NodeInfo) (string, error) {
	var totals []int64
	if fwk.HasScores() {
		if s := fwk.RunPreScore(ctx, state, pod, feasible); !s.IsSuccess() {
			return "", s.Err()
		}
		var s *framework.Status
		if totals, s = fwk.RunScore(ctx, state, pod, feasible, a.parallelism); !s.IsSuccess() {
			return "", s.Err()
		}
	} else {
		totals = make([]int64, len(feasible))
	}
	if err := a.extenderPrioritize(ctx, pod, feasible, totals); err != nil {
		return "", err
	}
	best, ties := 0, 1
	for i := 1; i < len(totals); i++ {
		switch {
		case totals[i] > totals[best]:
			best, ties = i, 1
		case totals[i] == totals[best]:
			ties++
			if a.rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return feasible[best].Name(), nil
}
