package nodelifecycle

import (
	"time"

	"github.com/orkit/orkit/api/core"
)

// EvictionTime returns when pod must leave a node with the given taints:
// never (ok false) when the node has no NoExecute taint or the pod
// tolerates every one of them without a time limit; otherwise the
// earliest moment one of them stops being tolerated — the taint's
// timeAdded (now when unset) plus the smallest tolerationSeconds of the
// pod's matching tolerations. A pod with no matching toleration gets
// defaultToleration for the not-ready and unreachable taints (what
// Kubernetes' DefaultTolerationSeconds admission gives every pod) and
// must leave at once for any other NoExecute taint. A negative
// tolerationSeconds counts as zero. It is a pure function.
func EvictionTime(pod *core.Pod, taints []core.Taint, defaultToleration time.Duration, now time.Time) (time.Time, bool) {
	var at time.Time
	found := false
	for i := range taints {
		t := &taints[i]
		if t.Effect != core.TaintEffectNoExecute {
			continue
		}
		added := now
		if t.TimeAdded != nil && !t.TimeAdded.IsZero() {
			added = t.TimeAdded.Time
		}
		d, limited := toleratedFor(pod.Spec.Tolerations, t, defaultToleration)
		if !limited {
			continue
		}
		if when := added.Add(d); !found || when.Before(at) {
			at, found = when, true
		}
	}
	return at, found
}

// toleratedFor returns how long tolerations tolerate taint; limited is
// false when some matching toleration has no time limit.
func toleratedFor(tolerations []core.Toleration, taint *core.Taint, def time.Duration) (d time.Duration, limited bool) {
	matched := false
	for i := range tolerations {
		tol := &tolerations[i]
		if !tol.ToleratesTaint(taint) {
			continue
		}
		if tol.TolerationSeconds == nil {
			return 0, false
		}
		s := time.Duration(max(*tol.TolerationSeconds, 0)) * time.Second
		if !matched || s < d {
			d = s
		}
		matched = true
	}
	if !matched {
		if taint.Key == core.TaintNodeNotReady || taint.Key == core.TaintNodeUnreachable {
			return def, true
		}
		return 0, true
	}
	return d, true
}
