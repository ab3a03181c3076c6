package disruption_test

import (
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/controller/disruption"
)

// ExampleComputeStatus computes the status of a budget of maxUnavailable
// 1 over a ReplicaSet of 3 with two Ready pods: one replica is already
// missing, so no eviction is allowed.
func ExampleComputeStatus() {
	yes := true
	one := meta.FromInt(1)
	pdb := &policy.PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Generation: 1},
		Spec: policy.PodDisruptionBudgetSpec{MaxUnavailable: &one,
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	var pods []*core.Pod
	for _, name := range []string{"web-a", "web-b"} {
		pods = append(pods, &core.Pod{
			ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"},
				OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: &yes}}},
			Status: core.PodStatus{Phase: core.PodRunning, Conditions: []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}},
		})
	}
	replicaSets := func(ns string, ref *meta.OwnerReference) (disruption.Scale, bool, error) {
		return disruption.Scale{UID: ref.UID, Replicas: 3}, ref.Kind == "ReplicaSet", nil
	}
	res, err := disruption.ComputeStatus(pdb, pods, replicaSets, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	st := res.Status
	fmt.Printf("expected %d, desired %d, healthy %d, allowed %d, %s\n",
		st.ExpectedPods, st.DesiredHealthy, st.CurrentHealthy, st.DisruptionsAllowed, st.Conditions[0].Reason)
	// Output:
	// expected 3, desired 2, healthy 2, allowed 0, InsufficientPods
}
