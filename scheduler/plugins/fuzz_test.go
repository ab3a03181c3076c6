package plugins

import (
	"encoding/json"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// FuzzPodConstraints decodes arbitrary pod specs and runs every parser
// the plugins apply to them (affinity terms, spread constraints, node
// selector terms) and the predicates themselves: none may panic.
func FuzzPodConstraints(f *testing.F) {
	f.Add([]byte(`{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone","labelSelector":{"matchLabels":{"app":"x"}}}]}}}`))
	f.Add([]byte(`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gen","operator":"Gt","values":["x"]}]}]}}}}`))
	f.Add([]byte(`{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}]}`))
	f.Add([]byte(`{"tolerations":[{"operator":"Exists"}],"nodeSelector":{"a":"b"}}`))
	nodes := []*core.Node{
		node("a", rl("1", "1Gi", "10"), map[string]string{"zone": "a", "gen": "3"}),
		node("b", rl("1", "1Gi", "10"), map[string]string{"zone": "b"}),
	}
	nodes[1].Spec.Taints = []core.Taint{{Key: "k", Effect: core.TaintEffectNoSchedule}}
	f.Fuzz(func(t *testing.T, spec []byte) {
		p := pod("p", nil)
		if err := json.Unmarshal(spec, &p.Spec); err != nil {
			return
		}
		snap := framework.NewSnapshot(nodes, []*core.Pod{onNode(labelled(pod("x", nil), "app", "x"), "a")})
		for _, ni := range snap.List() {
			for _, pl := range DefaultPredicates() {
				s := runFilter(pl, p, ni, snap)
				if s.Code() == framework.Error {
					t.Fatalf("%s: %v", pl.Name(), s)
				}
			}
		}
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		for _, w := range DefaultPriorities() {
			if ps, ok := w.Priority.(framework.PreScore); ok && !ps.PreScore(ctx, state, p, snap.List()).IsSuccess() {
				continue
			}
			for _, ni := range snap.List() {
				_, _ = w.Score(ctx, state, p, ni)
			}
		}
	})
}
