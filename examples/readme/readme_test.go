package readme_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// --- README: "Plug in a predicate" ---

// SameZone is a predicate: a pod labelled zone=<z> fits only nodes in zone z.
type SameZone struct{}

func (SameZone) Name() string { return "SameZone" }

func (SameZone) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, n *framework.NodeInfo) *framework.Status {
	want := pod.Labels["zone"]
	if want == "" || n.Node().Labels["topology.kubernetes.io/zone"] == want {
		return nil // fits
	}
	return framework.NewStatus(framework.Unschedulable, "node(s) in another zone")
}

func Example_predicate() {
	profile := plugins.DefaultProfile("default-scheduler")
	profile.Predicates = append(profile.Predicates, SameZone{})
	// scheduler.New(scheduler.Config{Client: c, Profiles: []framework.Profile{profile}}).Run(ctx)
	// places pods with it; the simulator runs the same framework in memory:
	sim, err := scheduler.NewSimulator([]framework.Profile{profile})
	if err != nil {
		panic(err)
	}
	nodes := []*core.Node{node("a", "zone-1"), node("b", "zone-2")}
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"zone": "zone-2"}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
	for _, p := range sim.Schedule(context.Background(), framework.NewSnapshot(nodes, nil), []*core.Pod{pod}) {
		fmt.Println(p.Pod.Name, "->", p.Node, p.Err)
	}
	// Output: web -> b <nil>
}

func node(name, zone string) *core.Node {
	capacity := core.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("8Gi"), "pods": resource.MustParse("110")}
	return &core.Node{
		ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
		Status: core.NodeStatus{Capacity: capacity, Allocatable: capacity,
			Conditions: []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue}}},
	}
}

// --- README: "Plug in an admission plugin" ---

// RequireTeam is a validating admission plugin: pods must carry a team label.
type RequireTeam struct{ admission.Handler }

func NewRequireTeam() *RequireTeam {
	return &RequireTeam{admission.Handler{PluginName: "RequireTeam", Operations: []admission.Operation{admission.Create}}}
}

func (p *RequireTeam) Validate(_ context.Context, a *admission.Attributes) error {
	if pod, ok := a.Object.(*core.Pod); ok && pod.Labels["team"] == "" {
		return errors.New(`pods must carry a "team" label`)
	}
	return nil
}

func Example_validator() {
	chain := &admission.Chain{Validators: []admission.Validator{NewRequireTeam()}}
	// With the control plane: see TestAdmissionInControlPlane.
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web"}}
	err := chain.Validate(context.Background(), &admission.Attributes{Operation: admission.Create, Object: pod})
	fmt.Println(err)
	// Output: admission plugin "RequireTeam" denied the request: pods must carry a "team" label
}
