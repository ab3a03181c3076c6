package core_test

import (
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/scheme"
)

// The API server's sequence for a new pod: default, then validate.
func ExampleValidatePod() {
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: core.PodSpec{Containers: []core.Container{{
			Name:  "web",
			Image: "orkit.local/hello:v1",
			Resources: core.ResourceRequirements{Limits: core.ResourceList{
				core.ResourceCPU: resource.MustParse("500m"),
			}},
		}}},
	}
	core.DefaultPod(pod)
	fmt.Println(len(core.ValidatePod(pod)), "errors")

	pod.Spec.Containers[0].Name = "Web"
	pod.Spec.RestartPolicy = "Sometimes"
	for _, err := range core.ValidatePod(pod) {
		fmt.Println(err)
	}
	// Output:
	// 0 errors
	// spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
	// spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"
}

func ExampleDefaultPod() {
	pod := &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{
		Name: "web", Image: "nginx",
		Resources: core.ResourceRequirements{Limits: core.ResourceList{core.ResourceMemory: resource.MustParse("128Mi")}},
	}}}}
	core.DefaultPod(pod)
	c := pod.Spec.Containers[0]
	fmt.Println(pod.Spec.RestartPolicy, pod.Spec.DNSPolicy, *pod.Spec.TerminationGracePeriodSeconds, pod.Spec.SchedulerName)
	fmt.Println(c.ImagePullPolicy, c.TerminationMessagePath, c.Resources.Requests.Memory())
	// Output:
	// Always ClusterFirst 30 default-scheduler
	// Always /dev/termination-log 128Mi
}

func ExampleRegister() {
	s := scheme.New()
	core.Register(s)
	obj, typ, err := s.Decode([]byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},
		"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`))
	if err != nil {
		panic(err)
	}
	typ.Default(obj)
	out, _ := json.Marshal(obj.(*core.Service).Spec.Ports)
	fmt.Println(typ.Resource, typ.ShortNames, len(typ.Validate(obj)), string(out))
	// Output: services [svc] 0 [{"protocol":"TCP","port":80,"targetPort":80}]
}

func ExamplePodRequests() {
	pod := &core.Pod{Spec: core.PodSpec{
		InitContainers: []core.Container{{Name: "migrate", Resources: core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("1")}}}},
		Containers: []core.Container{
			{Name: "a", Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("250m")}}},
			{Name: "b", Resources: core.ResourceRequirements{Requests: core.ResourceList{
				core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: resource.MustParse("64Mi")}}},
		},
	}}
	req := core.PodRequests(pod)
	fmt.Println(req.Cpu(), req.Memory(), core.GetPodQOS(pod))
	// Output: 1 64Mi Burstable
}

func ExampleToleration_ToleratesTaint() {
	taint := core.Taint{Key: core.TaintNodeNotReady, Effect: core.TaintEffectNoExecute}
	tol := core.Toleration{Key: core.TaintNodeNotReady, Operator: core.TolerationOpExists, Effect: core.TaintEffectNoExecute}
	fmt.Println(tol.ToleratesTaint(&taint), taint.ToString())
	// Output: true node.kubernetes.io/not-ready:NoExecute
}
