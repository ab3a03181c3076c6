package apps_test

import (
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func ExampleDefaultDeployment() {
	d := &apps.Deployment{Spec: apps.DeploymentSpec{
		Template: core.PodTemplateSpec{Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "nginx"}}}},
	}}
	apps.DefaultDeployment(d)
	ru := d.Spec.Strategy.RollingUpdate
	fmt.Println(*d.Spec.Replicas, d.Spec.Strategy.Type, ru.MaxUnavailable, ru.MaxSurge,
		*d.Spec.RevisionHistoryLimit, *d.Spec.ProgressDeadlineSeconds)
	fmt.Println(d.Spec.Template.Spec.RestartPolicy, d.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	// Output:
	// 1 RollingUpdate 25% 25% 10 600
	// Always Always
}

func ExampleValidateDeployment() {
	d := &apps.Deployment{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: apps.DeploymentSpec{
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: core.PodTemplateSpec{
				ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"app": "api"}},
				Spec:       core.PodSpec{Containers: []core.Container{{Name: "web", Image: "nginx:1.25"}}},
			},
		},
	}
	apps.DefaultDeployment(d)
	for _, err := range apps.ValidateDeployment(d) {
		fmt.Println(err)
	}
	// Output:
	// spec.template.metadata.labels: Invalid value: map[app:api]: `selector` does not match template `labels`
}
