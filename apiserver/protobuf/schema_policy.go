package protobuf

// Field numbers in this file are data taken from k8s.io/api policy/v1
// generated.proto; the JSON names are the Go types' json tags. Eviction
// is in otherMessages.

// policyMessages covers policy/v1 PodDisruptionBudgets (kubectl create
// poddisruptionbudget sends protobuf).
func policyMessages() map[string]fields {
	return map[string]fields{
		"policy.PodDisruptionBudget": {
			1: objectMeta(), 2: msg("spec", "policy.PodDisruptionBudgetSpec"), 3: msg("status", "policy.PodDisruptionBudgetStatus"),
		},
		"policy.PodDisruptionBudgetSpec": {
			1: intOrString("minAvailable"), 2: labelSelector("selector"), 3: intOrString("maxUnavailable"),
			4: strp("unhealthyPodEvictionPolicy"),
		},
		"policy.PodDisruptionBudgetStatus": {
			1: i64("observedGeneration"), 2: mapMsg("disruptedPods", typeTime), 3: i32p("disruptionsAllowed"),
			4: i32p("currentHealthy"), 5: i32p("desiredHealthy"), 6: i32p("expectedPods"),
			7: msgs("conditions", "meta.Condition"),
		},
	}
}
