package disruption

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
)

var now = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// pod makes a pod controlled by owner (no owner when ""), Ready or not.
func pod(name, owner string, ready bool) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}}}
	if owner != "" {
		yes := true
		p.OwnerReferences = []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: meta.UID(owner), Controller: &yes}}
	}
	p.Status.Phase = core.PodRunning
	st := meta.ConditionFalse
	if ready {
		st = meta.ConditionTrue
	}
	p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: st}}
	return p
}

func deleting(p *core.Pod) *core.Pod {
	t := meta.NewTime(now)
	p.DeletionTimestamp = &t
	return p
}

func budget(minAvailable, maxUnavailable *meta.IntOrString) *policy.PodDisruptionBudget {
	return &policy.PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Generation: 3},
		Spec: policy.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
}

func ios(v meta.IntOrString) *meta.IntOrString { return &v }

// scales answers the replicas of ReplicaSets by name (UID = name); the
// ReplicaSets "rs-a" and "rs-b" both belong to Deployment "dep" (4).
func scales(ns string, ref *meta.OwnerReference) (Scale, bool, error) {
	switch ref.Name {
	case "rs3":
		return Scale{UID: "rs3", Replicas: 3}, true, nil
	case "rs-a", "rs-b":
		return Scale{UID: "dep", Replicas: 4}, true, nil
	case "broken":
		return Scale{}, false, errors.New("lister down")
	}
	return Scale{}, false, nil
}

func TestComputeStatus(t *testing.T) {
	ready := func(n int, owner string) []*core.Pod {
		var out []*core.Pod
		for i := range n {
			out = append(out, pod(string(rune('a'+i)), owner, true))
		}
		return out
	}
	recent := map[string]meta.Time{"a": meta.NewTime(now.Add(-30 * time.Second))}
	expired := map[string]meta.Time{"a": meta.NewTime(now.Add(-3 * time.Minute))}
	tests := []struct {
		name      string
		pdb       *policy.PodDisruptionBudget
		disrupted map[string]meta.Time
		pods      []*core.Pod
		// want: expected, desired, healthy, allowed
		want      [4]int32
		reason    string
		recheck   time.Duration
		unmanaged []string
		err       error
	}{
		{"minAvailable 2 of 3 ready", budget(ios(meta.FromInt(2)), nil), nil, ready(3, "rs3"),
			[4]int32{3, 2, 3, 1}, policy.SufficientPodsReason, 0, nil, nil},
		{"minAvailable 2 of 2 ready", budget(ios(meta.FromInt(2)), nil), nil, ready(2, "rs3"),
			[4]int32{2, 2, 2, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"minAvailable counts pods, not replicas, and unmanaged pods", budget(ios(meta.FromInt(1)), nil), nil, ready(2, ""),
			[4]int32{2, 1, 2, 1}, policy.SufficientPodsReason, 0, nil, nil},
		{"not ready pods are not healthy", budget(ios(meta.FromInt(1)), nil), nil,
			[]*core.Pod{pod("a", "rs3", false), pod("b", "rs3", true)},
			[4]int32{2, 1, 1, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"pods being deleted are not healthy", budget(ios(meta.FromInt(1)), nil), nil,
			[]*core.Pod{deleting(pod("a", "rs3", true)), pod("b", "rs3", true), pod("c", "rs3", true)},
			[4]int32{3, 1, 2, 1}, policy.SufficientPodsReason, 0, nil, nil},
		{"no pods: nothing allowed", budget(ios(meta.FromInt(0)), nil), nil, nil,
			[4]int32{0, 0, 0, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"maxUnavailable 1 of the ReplicaSet's 3", budget(nil, ios(meta.FromInt(1))), nil, ready(3, "rs3"),
			[4]int32{3, 2, 3, 1}, policy.SufficientPodsReason, 0, nil, nil},
		{"maxUnavailable counts a missing replica", budget(nil, ios(meta.FromInt(1))), nil, ready(2, "rs3"),
			[4]int32{3, 2, 2, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"maxUnavailable percentage rounds up", budget(nil, ios(meta.FromString("50%"))), nil, ready(3, "rs3"),
			[4]int32{3, 1, 3, 2}, policy.SufficientPodsReason, 0, nil, nil},
		{"minAvailable percentage rounds up", budget(ios(meta.FromString("50%")), nil), nil, ready(3, "rs3"),
			[4]int32{3, 2, 3, 1}, policy.SufficientPodsReason, 0, nil, nil},
		{"a Deployment's ReplicaSets count it once", budget(nil, ios(meta.FromInt(1))), nil,
			append(ready(2, "rs-a"), pod("z", "rs-b", true)),
			[4]int32{4, 3, 3, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"unmanaged pods are skipped by a replica count", budget(nil, ios(meta.FromInt(0))), nil,
			append(ready(3, "rs3"), pod("lone", "", true)),
			[4]int32{3, 3, 4, 1}, policy.SufficientPodsReason, 0, []string{"lone"}, nil},
		{"neither bound: expected 0, nothing allowed", budget(nil, nil), nil, ready(3, "rs3"),
			[4]int32{0, 0, 3, 0}, policy.InsufficientPodsReason, 0, nil, nil},
		{"a recent disruption is not healthy and is rechecked", budget(ios(meta.FromInt(1)), nil), recent, ready(3, "rs3"),
			[4]int32{3, 1, 2, 1}, policy.SufficientPodsReason, 90 * time.Second, nil, nil},
		{"an expired disruption counts again", budget(ios(meta.FromInt(1)), nil), expired, ready(3, "rs3"),
			[4]int32{3, 1, 3, 2}, policy.SufficientPodsReason, 0, nil, nil},
		{"unknown controller fails", budget(nil, ios(meta.FromInt(1))), nil, ready(1, "job"),
			[4]int32{}, "", 0, nil, ErrNoController},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.pdb.Status.DisruptedPods = tt.disrupted
			res, err := ComputeStatus(tt.pdb, tt.pods, scales, now)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			st := res.Status
			assert.Equal(t, tt.want, [4]int32{st.ExpectedPods, st.DesiredHealthy, st.CurrentHealthy, st.DisruptionsAllowed})
			assert.Equal(t, int64(3), st.ObservedGeneration)
			require.Len(t, st.Conditions, 1)
			assert.Equal(t, tt.reason, st.Conditions[0].Reason)
			assert.Equal(t, int64(3), st.Conditions[0].ObservedGeneration)
			assert.Equal(t, tt.recheck, res.Recheck)
			assert.Equal(t, tt.unmanaged, res.Unmanaged)
		})
	}
}

func TestComputeStatusDisruptedPods(t *testing.T) {
	pdb := budget(ios(meta.FromInt(1)), nil)
	pdb.Status.DisruptedPods = map[string]meta.Time{
		"kept":    meta.NewTime(now.Add(-time.Minute)),
		"expired": meta.NewTime(now.Add(-3 * time.Minute)),
		"gone":    meta.NewTime(now.Add(-time.Second)),
		"dying":   meta.NewTime(now.Add(-time.Second)),
	}
	pods := []*core.Pod{pod("kept", "rs3", true), pod("expired", "rs3", true), deleting(pod("dying", "rs3", true))}
	res, err := ComputeStatus(pdb, pods, scales, now)
	require.NoError(t, err)
	assert.Equal(t, map[string]meta.Time{"kept": meta.NewTime(now.Add(-time.Minute))}, res.Status.DisruptedPods)
	assert.Equal(t, time.Minute, res.Recheck)
	assert.Equal(t, int32(1), res.Status.CurrentHealthy) // "expired" only
	assert.Len(t, pdb.Status.DisruptedPods, 4, "the input is not modified")
}

func TestComputeStatusErrors(t *testing.T) {
	_, err := ComputeStatus(budget(nil, ios(meta.FromInt(1))), []*core.Pod{pod("a", "broken", true)}, scales, now)
	require.EqualError(t, err, "lister down")
	_, err = ComputeStatus(budget(nil, ios(meta.FromString("lots"))), []*core.Pod{pod("a", "rs3", true)}, scales, now)
	require.Error(t, err)
}

func TestConditionTransitions(t *testing.T) {
	pdb := budget(ios(meta.FromInt(1)), nil)
	pods := []*core.Pod{pod("a", "rs3", true), pod("b", "rs3", true)}
	res, err := ComputeStatus(pdb, pods, scales, now)
	require.NoError(t, err)
	c := res.Status.Conditions[0]
	assert.Equal(t, meta.ConditionTrue, c.Status)
	assert.Equal(t, now, c.LastTransitionTime.Time)

	// Same verdict later: the transition time stays.
	pdb.Status = res.Status
	res, err = ComputeStatus(pdb, pods, scales, now.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, now, res.Status.Conditions[0].LastTransitionTime.Time)
	assert.True(t, statusEqual(&pdb.Status, &res.Status))

	// A failure: SyncFailed, nothing allowed, counts kept.
	fs := FailSafeStatus(pdb, errors.New("found no controllers for pod \"a\""), now.Add(2*time.Minute))
	assert.Equal(t, int32(0), fs.DisruptionsAllowed)
	assert.Equal(t, int32(2), fs.CurrentHealthy)
	assert.Equal(t, policy.SyncFailedReason, fs.Conditions[0].Reason)
	assert.Equal(t, meta.ConditionFalse, fs.Conditions[0].Status)
	assert.Equal(t, `found no controllers for pod "a"`, fs.Conditions[0].Message)
	assert.Equal(t, now.Add(2*time.Minute), fs.Conditions[0].LastTransitionTime.Time)
	assert.Equal(t, meta.ConditionTrue, pdb.Status.Conditions[0].Status, "the input is not modified")
}
