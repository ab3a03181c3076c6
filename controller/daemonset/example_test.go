package daemonset_test

import (
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/daemonset"
)

// ShouldRun decides which nodes get a daemon pod.
func ExampleShouldRun() {
	ds := &apps.DaemonSet{Spec: apps.DaemonSetSpec{Template: core.PodTemplateSpec{
		Spec: core.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}}}}
	ssd := &core.Node{ObjectMeta: meta.ObjectMeta{Name: "a", Labels: map[string]string{"disk": "ssd"}}}
	hdd := &core.Node{ObjectMeta: meta.ObjectMeta{Name: "b", Labels: map[string]string{"disk": "hdd"}}}
	tainted := &core.Node{ObjectMeta: meta.ObjectMeta{Name: "c", Labels: map[string]string{"disk": "ssd"}},
		Spec: core.NodeSpec{Taints: []core.Taint{{Key: "dedicated", Effect: core.TaintEffectNoSchedule}}}}
	unreachable := &core.Node{ObjectMeta: meta.ObjectMeta{Name: "d", Labels: map[string]string{"disk": "ssd"}},
		Spec: core.NodeSpec{Taints: []core.Taint{{Key: core.TaintNodeUnreachable, Effect: core.TaintEffectNoExecute}}}}
	for _, n := range []*core.Node{ssd, hdd, tainted, unreachable} {
		fmt.Println(n.Name, daemonset.ShouldRun(ds, n))
	}
	// Output:
	// a true
	// b false
	// c false
	// d true
}
