package scheduler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orkit/orkit/scheduler/framework"
)

// FitError says why no node fits a pod: how many nodes there were and
// each rejecting node's status. Error words it as kube-scheduler does:
// "0/5 nodes are available: 2 node(s) had untolerated taint {a: b}, 3
// Insufficient cpu." (reasons counted over nodes, sorted as strings), or
// "no nodes available to schedule pods" when there are none.
type FitError struct {
	Pod      string
	NumNodes int
	// Statuses maps node names to why they rejected the pod.
	Statuses framework.NodeToStatus
	// PreFilter is set when a PreFilter rejected the pod on every node.
	PreFilter *framework.Status
	// PostFilterMsg is what preemption said, appended to the summary.
	PostFilterMsg string
}

// Error implements error.
func (e *FitError) Error() string {
	if e.NumNodes == 0 && e.PreFilter == nil {
		return ErrNoNodes.Error()
	}
	msg := fmt.Sprintf("0/%d nodes are available:", e.NumNodes)
	if e.PreFilter != nil {
		msg += " " + e.PreFilter.Message() + "."
	} else if h := e.Histogram(); len(h) > 0 {
		msg += " " + strings.Join(h, ", ") + "."
	}
	if e.PostFilterMsg != "" {
		msg += " " + e.PostFilterMsg
	}
	return msg
}

// Histogram returns "count reason" for every reason, sorted as strings.
func (e *FitError) Histogram() []string {
	counts := map[string]int{}
	for _, s := range e.Statuses {
		for _, r := range s.Reasons() {
			counts[r]++
		}
	}
	out := make([]string, 0, len(counts))
	for r, n := range counts {
		out = append(out, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(out)
	return out
}

// Plugins returns the names of the plugins that rejected the pod.
func (e *FitError) Plugins() map[string]bool {
	out := map[string]bool{}
	if e.PreFilter != nil {
		out[e.PreFilter.Plugin()] = true
	}
	for _, s := range e.Statuses {
		if p := s.Plugin(); p != "" {
			out[p] = true
		}
	}
	return out
}
