package replicaset

import (
	"slices"
	"time"

	"github.com/orkit/orkit/api/core"
)

// phaseRank orders phases by how much a pod has achieved: a pending pod
// is cheaper to delete than an unknown one, an unknown one than a running
// one.
func phaseRank(p core.PodPhase) int {
	switch p {
	case core.PodPending, "":
		return 0
	case core.PodUnknown:
		return 1
	case core.PodRunning:
		return 2
	}
	return 3
}

// readySince returns when pod became ready (zero when it is not).
func readySince(pod *core.Pod) (time.Time, bool) {
	_, c := core.GetPodCondition(&pod.Status, core.PodReady)
	if c == nil || c.Status != "True" {
		return time.Time{}, false
	}
	return c.LastTransitionTime.Time, true
}

func restarts(pod *core.Pod) int32 {
	var n int32
	for _, c := range pod.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}

// DeleteFirst reports whether a should be deleted before b when a
// ReplicaSet scales down, Kubernetes' ranking: unscheduled before
// scheduled, pending before unknown before running, not ready before
// ready, ready for less time before ready for longer, more restarts
// before fewer, newer before older.
func DeleteFirst(a, b *core.Pod) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if pa, pb := phaseRank(a.Status.Phase), phaseRank(b.Status.Phase); pa != pb {
		return pa < pb
	}
	ta, ra := readySince(a)
	tb, rb := readySince(b)
	if ra != rb {
		return !ra
	}
	if ra && !ta.Equal(tb) {
		return ta.After(tb)
	}
	if na, nb := restarts(a), restarts(b); na != nb {
		return na > nb
	}
	ca, cb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ca.Equal(cb) {
		return ca.After(cb)
	}
	return a.Name > b.Name // stable
}

// PodsToDelete returns the n pods of pods to delete first (all of them
// when n >= len(pods)); pods is not modified.
func PodsToDelete(pods []*core.Pod, n int) []*core.Pod {
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b *core.Pod) int {
		switch {
		case DeleteFirst(a, b):
			return -1
		case DeleteFirst(b, a):
			return 1
		}
		return 0
	})
	return sorted[:min(max(n, 0), len(sorted))]
}

// SlowStartBatches returns the sizes of the batches in which n creations
// are made: 1, 2, 4, … each at most burst (0: no cap), adding up to n.
// A failed batch stops the rest, so a broken template costs one request,
// not n.
func SlowStartBatches(n, burst int) []int {
	var out []int
	for size := 1; n > 0; size *= 2 {
		b := min(size, n)
		if burst > 0 {
			b = min(b, burst)
		}
		out = append(out, b)
		n -= b
	}
	return out
}
