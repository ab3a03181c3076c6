package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/resource"
)

func TestValidatePodResize(t *testing.T) {
	q := resource.MustParse
	tests := []struct {
		name   string
		mutate func(p *Pod)
		want   []string // substrings, one per error
	}{
		{name: "cpu up", mutate: func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests[ResourceCPU] = q("200m")
			p.Spec.Containers[0].Resources.Limits[ResourceCPU] = q("2")
		}},
		{name: "memory request and limit added", mutate: func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests[ResourceMemory] = q("64Mi")
			p.Spec.Containers[0].Resources.Limits[ResourceMemory] = q("128Mi")
		}},
		{name: "resize policy changed", mutate: func(p *Pod) {
			p.Spec.Containers[0].ResizePolicy = []ContainerResizePolicy{{ResourceName: ResourceMemory, RestartPolicy: ResizeRestartContainer}}
		}},
		{name: "ephemeral storage", mutate: func(p *Pod) {
			p.Spec.Containers[0].Resources.Requests[ResourceEphemeralStorage] = q("1Gi")
		}, want: []string{"only cpu and memory resources are mutable"}},
		{name: "limit removed", mutate: func(p *Pod) {
			delete(p.Spec.Containers[0].Resources.Limits, ResourceCPU)
		}, want: []string{"spec.containers[0].resources.limits[cpu]: Forbidden: resource limits cannot be removed"}},
		{name: "request removed", mutate: func(p *Pod) {
			delete(p.Spec.Containers[0].Resources.Requests, ResourceCPU)
		}, want: []string{"resource requests cannot be removed"}},
		{name: "init container removed", mutate: func(p *Pod) {
			p.Spec.InitContainers = nil
			p.Spec.Containers[0].Resources.Requests[ResourceCPU] = q("1")
			p.Spec.Containers[0].Resources.Requests[ResourceMemory] = q("1Gi")
			p.Spec.Containers[0].Resources.Limits[ResourceMemory] = q("1Gi")
		}, want: []string{"containers may not be added or removed on resize"}},
		{name: "renamed", mutate: func(p *Pod) {
			p.Spec.Containers[0].Name = "other"
			p.Spec.Containers[0].Resources.Requests[ResourceCPU] = q("200m")
		}, want: []string{"spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize"}},
		{name: "init container", mutate: func(p *Pod) {
			p.Spec.InitContainers[0].Resources.Requests = ResourceList{ResourceCPU: q("10m")}
		}, want: []string{"resources for non-sidecar init containers are immutable"}},
		{name: "pod-level resources", mutate: func(p *Pod) {
			p.Spec.Resources = &ResourceRequirements{Limits: ResourceList{ResourceCPU: q("2")}}
		}, want: []string{"pod-level resources may not be resized"}},
		{name: "terminal pod", mutate: func(p *Pod) {
			p.Status.Phase = PodSucceeded
		}, want: []string{"pod resize may not be done on terminal pods"}},
		{name: "restart policy with Never", mutate: func(p *Pod) {
			p.Spec.RestartPolicy = RestartPolicyNever
			p.Spec.Containers[0].ResizePolicy = []ContainerResizePolicy{{ResourceName: ResourceCPU, RestartPolicy: ResizeRestartContainer}}
		}, want: []string{"must be 'NotRequired' when `restartPolicy` is 'Never'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPod()
			n := validPod()
			n.ResourceVersion, old.ResourceVersion = "1", "1"
			tt.mutate(n)
			if n.Status.Phase != "" {
				old.Status.Phase = n.Status.Phase
			}
			if n.Spec.RestartPolicy != old.Spec.RestartPolicy {
				old.Spec.RestartPolicy = n.Spec.RestartPolicy
			}
			got := errStrings(ValidatePodResize(n, old))
			assert.Len(t, got, len(tt.want), "errors: %q", got)
			for i, w := range tt.want {
				if i < len(got) {
					assert.Contains(t, got[i], w)
				}
			}
		})
	}
}

func TestValidatePodResizeQoS(t *testing.T) {
	old := validPod()
	old.Spec.InitContainers = nil
	n := validPod()
	n.Spec.InitContainers = nil
	c := &n.Spec.Containers[0].Resources
	c.Requests[ResourceCPU] = resource.MustParse("1")
	c.Requests[ResourceMemory] = resource.MustParse("1Gi")
	c.Limits[ResourceMemory] = resource.MustParse("1Gi")
	got := strings.Join(errStrings(ValidatePodResize(n, old)), "\n")
	assert.Contains(t, got, "Pod QOS Class may not change as a result of resizing")
}

func TestResizePolicyOnInitContainers(t *testing.T) {
	always := ContainerRestartPolicyAlways
	policy := []ContainerResizePolicy{{ResourceName: ResourceCPU, RestartPolicy: ResizeRestartContainer}}
	sidecar := validPod()
	sidecar.Spec.RestartPolicy = RestartPolicyNever
	sidecar.Spec.InitContainers[0].RestartPolicy = &always
	sidecar.Spec.InitContainers[0].ResizePolicy = policy
	assert.Empty(t, errStrings(ValidatePod(sidecar)), "a sidecar may restart to resize, whatever the pod's policy")

	plain := validPod()
	plain.Spec.InitContainers[0].ResizePolicy = policy
	assert.Equal(t, []string{`spec.initContainers[0].resizePolicy: Invalid value: "": must not be set for init containers`},
		errStrings(ValidatePod(plain)))
}
