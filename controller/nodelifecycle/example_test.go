package nodelifecycle_test

import (
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/nodelifecycle"
)

// EvictionTime says when a pod must leave a tainted node.
func ExampleEvictionTime() {
	added := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ta := meta.NewTime(added)
	taints := []core.Taint{{Key: core.TaintNodeUnreachable, Effect: core.TaintEffectNoExecute, TimeAdded: &ta}}
	thirty := int64(30)
	plain := &core.Pod{}
	patient := &core.Pod{Spec: core.PodSpec{Tolerations: []core.Toleration{
		{Key: core.TaintNodeUnreachable, Operator: core.TolerationOpExists, TolerationSeconds: &thirty}}}}
	forever := &core.Pod{Spec: core.PodSpec{Tolerations: []core.Toleration{{Operator: core.TolerationOpExists}}}}
	for _, p := range []*core.Pod{plain, patient, forever} {
		at, ok := nodelifecycle.EvictionTime(p, taints, nodelifecycle.DefaultTolerationSeconds, added)
		if !ok {
			fmt.Println("never")
			continue
		}
		fmt.Println(at.Sub(added))
	}
	// Output:
	// 5m0s
	// 30s
	// never
}
