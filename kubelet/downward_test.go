package kubelet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
)

func TestResourceField(t *testing.T) {
	app := core.Container{Name: "app", Resources: core.ResourceRequirements{
		Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: resource.MustParse("32Mi"),
			"hugepages-2Mi": resource.MustParse("4Mi")},
		Limits: core.ResourceList{core.ResourceCPU: resource.MustParse("1250m"), core.ResourceMemory: resource.MustParse("64Mi"),
			"hugepages-2Mi": resource.MustParse("4Mi")},
	}}
	bare := core.Container{Name: "bare"}
	initC := core.Container{Name: "init", Resources: core.ResourceRequirements{
		Limits: core.ResourceList{core.ResourceMemory: resource.MustParse("1G")}}}
	pod := &core.Pod{Spec: core.PodSpec{Containers: []core.Container{app, bare}, InitContainers: []core.Container{initC}}}
	alloc := core.ResourceList{core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("8Gi"),
		core.ResourceEphemeralStorage: resource.MustParse("100Gi")}
	cases := []struct {
		name, container, res, div string
		self                      *core.Container
		want                      string
		wantErr                   bool
	}{
		{name: "cpu limit rounds up to cores", self: &app, res: "limits.cpu", want: "2"},
		{name: "cpu request in millicores", self: &app, res: "requests.cpu", div: "1m", want: "250"},
		{name: "zero divisor is 1", self: &app, res: "requests.cpu", div: "0", want: "1"},
		{name: "memory limit in bytes", self: &app, res: "limits.memory", want: "67108864"},
		{name: "memory request in Mi", self: &app, res: "requests.memory", div: "1Mi", want: "32"},
		{name: "memory rounds up", self: &app, res: "requests.memory", div: "1G", want: "1"},
		{name: "hugepages limit", self: &app, res: "limits.hugepages-2Mi", div: "1Mi", want: "4"},
		{name: "named container wins over self", self: &bare, container: "app", res: "limits.cpu", div: "1m", want: "1250"},
		{name: "volume file names its container", container: "app", res: "requests.memory", want: "33554432"},
		{name: "init container", container: "init", res: "limits.memory", div: "1M", want: "1000"},
		{name: "no cpu limit is node allocatable", self: &bare, res: "limits.cpu", div: "1m", want: "2000"},
		{name: "no memory limit is node allocatable", container: "bare", res: "limits.memory", div: "1Gi", want: "8"},
		{name: "no ephemeral-storage limit is allocatable", self: &bare, res: "limits.ephemeral-storage", div: "1Gi", want: "100"},
		{name: "no request is zero", self: &bare, res: "requests.memory", want: "0"},
		{name: "no hugepages limit is zero", self: &bare, res: "limits.hugepages-1Gi", want: "0"},
		{name: "unknown container", container: "nope", res: "limits.cpu", wantErr: true},
		{name: "volume without container", res: "limits.cpu", wantErr: true},
		{name: "unknown resource", self: &app, res: "limits.nvidia.com/gpu", wantErr: true},
		{name: "no kind", self: &app, res: "cpu", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := &core.ResourceFieldSelector{ContainerName: tc.container, Resource: tc.res}
			if tc.div != "" {
				ref.Divisor = resource.MustParse(tc.div)
			}
			got, err := resourceField(pod, tc.self, ref, alloc)
			if tc.wantErr {
				assert.ErrorIs(t, err, ErrConfigRef)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCeilDiv(t *testing.T) {
	for _, tc := range []struct{ v, d, want int64 }{
		{0, 1, 0}, {1, 1, 1}, {1250, 1000, 2}, {2000, 1000, 2}, {1, 1000, 1}, {5, 0, 5}, {-3, 2, -1},
	} {
		assert.Equal(t, tc.want, ceilDiv(tc.v, tc.d), "%d/%d", tc.v, tc.d)
	}
}
