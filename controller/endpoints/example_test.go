package endpoints_test

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/endpoints"
)

// A named targetPort is resolved from each pod's container ports; ready
// pods are addresses, the others notReadyAddresses.
func ExampleSubsets() {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web"}, Spec: core.ServiceSpec{
		Ports: []core.ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}}}}
	mk := func(name, ip string, ready meta.ConditionStatus) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name},
			Spec:   core.PodSpec{Containers: []core.Container{{Name: "c", Ports: []core.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
			Status: core.PodStatus{Phase: core.PodRunning, PodIP: ip, Conditions: []core.PodCondition{{Type: core.PodReady, Status: ready}}}}
	}
	for _, s := range endpoints.Subsets(svc, []*core.Pod{mk("a", "10.0.0.1", "True"), mk("b", "10.0.0.2", "False")}) {
		fmt.Println(s.Ports[0].Port, s.Addresses[0].IP, s.NotReadyAddresses[0].IP)
	}
	// Output: 8080 10.0.0.1 10.0.0.2
}
