package deployment_test

import (
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/deployment"
)

// maxSurge rounds up and maxUnavailable rounds down; both zero would
// never make progress, so one pod may then be unavailable.
func ExampleResolveFenceposts() {
	ten := int32(10)
	surge, unavailable := meta.FromString("25%"), meta.FromString("25%")
	d := &apps.Deployment{Spec: apps.DeploymentSpec{Replicas: &ten, Strategy: apps.DeploymentStrategy{
		Type: apps.RollingUpdateDeploymentStrategyType, RollingUpdate: &apps.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}}}
	fmt.Println(deployment.ResolveFenceposts(d))
	zero := meta.FromInt(0)
	d.Spec.Strategy.RollingUpdate = &apps.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &zero}
	fmt.Println(deployment.ResolveFenceposts(d))
	// Output:
	// 3 2
	// 0 1
}

// The ReplicaSet of a Deployment's template is named after the
// template's hash and selects it with the pod-template-hash label.
func ExampleNewReplicaSet() {
	three := int32(3)
	l := map[string]string{"app": "web"}
	d := &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}, Spec: apps.DeploymentSpec{
		Replicas: &three, Selector: &meta.LabelSelector{MatchLabels: l}}}
	d.Spec.Template.Labels = l
	rs := deployment.NewReplicaSet(d)
	hash := rs.Labels[apps.DefaultDeploymentUniqueLabelKey]
	fmt.Println(rs.Name == "web-"+hash, rs.Spec.Selector.MatchLabels[apps.DefaultDeploymentUniqueLabelKey] == hash)
	// Output: true true
}
