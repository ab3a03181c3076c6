package policy_test

import (
	"fmt"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
)

func ExampleValidatePodDisruptionBudget() {
	two, one := meta.FromInt(2), meta.FromInt(1)
	pdb := &policy.PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: policy.PodDisruptionBudgetSpec{MinAvailable: &two, MaxUnavailable: &one,
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	for _, err := range policy.ValidatePodDisruptionBudget(pdb) {
		fmt.Println(err)
	}
	// Output:
	// spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:2, MaxUnavailable:1}: minAvailable and maxUnavailable cannot be both set
}
