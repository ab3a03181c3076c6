package job

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
)

// failureVerdict is what a Job's pod failure policy says of a failed pod.
type failureVerdict struct {
	// count: the failure counts towards backoffLimit (and the index's
	// backoffLimitPerIndex); false for an Ignore rule.
	count bool
	// action is the matching rule's action, "" when no rule matched.
	action batch.PodFailurePolicyAction
	// failJob is the Failed condition's message of a FailJob rule.
	failJob string
}

// matchFailurePolicy applies j's pod failure policy to the failed pod p,
// as kube's job controller does: the first rule whose exit codes (of a
// terminated container or init container, never 0) or pod conditions
// match decides; without a match, or without a policy, the failure counts.
func matchFailurePolicy(j *batch.Job, p *core.Pod) failureVerdict {
	pfp := j.Spec.PodFailurePolicy
	if pfp == nil {
		return failureVerdict{count: true}
	}
	for i, r := range pfp.Rules {
		var what string
		switch {
		case r.OnExitCodes != nil:
			cs := matchExitCodes(&p.Status, r.OnExitCodes)
			if cs == nil {
				continue
			}
			what = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d", cs.Name, p.Namespace, p.Name, cs.State.Terminated.ExitCode)
		case len(r.OnPodConditions) > 0:
			c := matchConditions(&p.Status, r.OnPodConditions)
			if c == nil {
				continue
			}
			what = fmt.Sprintf("Pod %s/%s has condition %s", p.Namespace, p.Name, c.Type)
		default:
			continue
		}
		switch r.Action {
		case batch.PodFailurePolicyActionIgnore:
			return failureVerdict{action: r.Action}
		case batch.PodFailurePolicyActionFailIndex, batch.PodFailurePolicyActionCount:
			return failureVerdict{count: true, action: r.Action}
		case batch.PodFailurePolicyActionFailJob:
			return failureVerdict{count: true, action: r.Action,
				failJob: fmt.Sprintf("%s matching %s rule at index %d", what, r.Action, i)}
		}
		// An unknown action: skip the rule, as clients are told to.
	}
	return failureVerdict{count: true}
}

// matchExitCodes returns the first terminated container (then init
// container) of st whose non-zero exit code satisfies req.
func matchExitCodes(st *core.PodStatus, req *batch.PodFailurePolicyOnExitCodesRequirement) *core.ContainerStatus {
	for _, list := range [][]core.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == batch.PodFailurePolicyOnExitCodesOpIn && in) || (req.Operator == batch.PodFailurePolicyOnExitCodesOpNotIn && !in) {
				return cs
			}
		}
	}
	return nil
}

// matchConditions returns the first condition of st that a pattern
// matches (type and status).
func matchConditions(st *core.PodStatus, pats []batch.PodFailurePolicyOnPodConditionsPattern) *core.PodCondition {
	for i := range st.Conditions {
		for _, pat := range pats {
			if st.Conditions[i].Type == pat.Type && st.Conditions[i].Status == pat.Status {
				return &st.Conditions[i]
			}
		}
	}
	return nil
}

// indexFailed reports whether the failed pod p of a Job with
// backoffLimitPerIndex fails its index: a FailIndex rule matched, or the
// counted failure is beyond the index's backoffLimitPerIndex.
func indexFailed(j *batch.Job, p *core.Pod, v failureVerdict) bool {
	if v.action == batch.PodFailurePolicyActionFailIndex {
		return true
	}
	return v.count && failureCount(p, batch.JobIndexFailureCountAnnotation) >= *j.Spec.BackoffLimitPerIndex
}

// failureCount reads a failure-count annotation of p (0 when absent or
// malformed).
func failureCount(p *core.Pod, key string) int32 {
	n, err := strconv.ParseInt(p.Annotations[key], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// nextFailureCounts returns the failure-count annotations of the pod that
// replaces the failed pod prev of the same index (zeros without one).
func nextFailureCounts(j *batch.Job, prev *core.Pod) (counted, ignored int32) {
	if prev == nil {
		return 0, 0
	}
	counted = failureCount(prev, batch.JobIndexFailureCountAnnotation)
	ignored = failureCount(prev, batch.JobIndexIgnoredFailureCountAnnotation)
	if matchFailurePolicy(j, prev).count {
		counted++
	} else {
		ignored++
	}
	return counted, ignored
}

// matchSuccessPolicy returns the SuccessCriteriaMet message when a rule of
// j's success policy is met by the succeeded indexes.
func matchSuccessPolicy(j *batch.Job, succeeded indexSet) (string, bool) {
	sp := j.Spec.SuccessPolicy
	if sp == nil || !batch.IsIndexed(j) {
		return "", false
	}
	n := int32(completions(j))
	for i, r := range sp.Rules {
		var met bool
		switch {
		case r.SucceededIndexes != nil:
			ivs, err := batch.ParseIndexes(*r.SucceededIndexes, n)
			if err != nil {
				continue
			}
			var want, got int32
			for _, iv := range ivs {
				for x := iv.First; x <= iv.Last; x++ {
					want++
					if succeeded[int(x)] {
						got++
					}
				}
			}
			if r.SucceededCount != nil {
				want = *r.SucceededCount
			}
			met = len(ivs) > 0 && got >= want
		case r.SucceededCount != nil:
			met = int32(succeeded.len()) >= *r.SucceededCount
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}
