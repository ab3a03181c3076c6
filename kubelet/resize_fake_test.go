package kubelet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

func rlist(cpu, mem string) core.ResourceList {
	rl := core.ResourceList{}
	if cpu != "" {
		rl[core.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		rl[core.ResourceMemory] = resource.MustParse(mem)
	}
	return rl
}

// resized reports whether the pod's status shows its spec's resources
// applied to every container, for its current generation.
func resized(p *core.Pod) bool {
	if p.Status.ObservedGeneration < p.Generation || len(p.Status.ContainerStatuses) != len(p.Spec.Containers) {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == core.PodResizePending || c.Type == core.PodResizeInProgress {
			return false
		}
	}
	for i, cs := range p.Status.ContainerStatuses {
		if cs.Resources == nil || !sameRequirements(*cs.Resources, p.Spec.Containers[i].Resources) || !cs.Ready {
			return false
		}
	}
	return true
}

func runtimeResources(t *testing.T, rt *fake.Runtime, cs core.ContainerStatus) cri.LinuxContainerResources {
	t.Helper()
	st, err := rt.ContainerStatus(context.Background(), strings.TrimPrefix(cs.ContainerID, "cri://"))
	require.NoError(t, err)
	require.NotNil(t, st.Resources)
	return *st.Resources
}

func resizeTo(t *testing.T, tc *testCluster, name string, mutate func(p *core.Pod)) (*core.Pod, error) {
	t.Helper()
	p, err := pods(tc.admin, "default").Get(context.Background(), name)
	require.NoError(t, err)
	mutate(p)
	return pods(tc.admin, "default").UpdateSubresource(context.Background(), p, "resize")
}

func TestFakeInPlaceResize(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-rs", func(c *Config) {
		c.Capacity = core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourceMemory: resource.MustParse("4Gi"),
			core.ResourcePods: resource.MustParse("10")}
	})
	ctx := context.Background()
	p := simplePod("rs", "node-rs")
	p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rlist("100m", "64Mi"), Limits: rlist("200m", "128Mi")}
	restart := p.Spec.Containers[0]
	restart.Name = "restarts"
	restart.ResizePolicy = []core.ContainerResizePolicy{{ResourceName: core.ResourceMemory, RestartPolicy: core.ResizeRestartContainer}}
	p.Spec.Containers = append(p.Spec.Containers, restart)
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "rs", 10*time.Second, "Running with its resources", resized)
	assert.Equal(t, int64(1), got.Generation)
	app := got.Status.ContainerStatuses[0]
	assert.True(t, rlist("100m", "64Mi").Equal(app.AllocatedResources), "allocatedResources: %v", app.AllocatedResources)
	assert.Equal(t, int64(20000), runtimeResources(t, rt, app).CPUQuota)

	// cpu and memory up in place: no restart, the runtime's limits follow.
	_, err = resizeTo(t, tc, "rs", func(p *core.Pod) {
		p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rlist("200m", "64Mi"), Limits: rlist("400m", "256Mi")}
	})
	require.NoError(t, err)
	got = waitPod(t, tc.admin, "default", "rs", 10*time.Second, "resized", resized)
	assert.Equal(t, int64(2), got.Generation)
	app = got.Status.ContainerStatuses[0]
	assert.Equal(t, int32(0), app.RestartCount)
	assert.True(t, rlist("200m", "64Mi").Equal(app.AllocatedResources))
	have := runtimeResources(t, rt, app)
	assert.Equal(t, int64(40000), have.CPUQuota)
	assert.Equal(t, int64(256<<20), have.MemoryLimitInBytes)

	// Memory of the container whose policy says RestartContainer: restarted.
	_, err = resizeTo(t, tc, "rs", func(p *core.Pod) {
		p.Spec.Containers[1].Resources.Limits = rlist("200m", "192Mi")
	})
	require.NoError(t, err)
	got = waitPod(t, tc.admin, "default", "rs", 10*time.Second, "restarted to resize", func(p *core.Pod) bool {
		return resized(p) && p.Status.ContainerStatuses[1].RestartCount == 1
	})
	assert.Equal(t, int64(192<<20), runtimeResources(t, rt, got.Status.ContainerStatuses[1]).MemoryLimitInBytes)
	assert.Equal(t, int32(0), got.Status.ContainerStatuses[0].RestartCount)

	// More cpu than the node has: pending as Infeasible, nothing applied.
	_, err = resizeTo(t, tc, "rs", func(p *core.Pod) {
		p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rlist("8", "64Mi"), Limits: rlist("8", "256Mi")}
	})
	require.NoError(t, err)
	got = waitPod(t, tc.admin, "default", "rs", 10*time.Second, "PodResizePending", func(p *core.Pod) bool {
		_, c := core.GetPodCondition(&p.Status, core.PodResizePending)
		return p.Status.ObservedGeneration == p.Generation && c != nil && c.Reason == core.PodReasonInfeasible
	})
	app = got.Status.ContainerStatuses[0]
	assert.True(t, rlist("200m", "64Mi").Equal(app.AllocatedResources), "the old allocation stays")
	assert.True(t, rlist("400m", "256Mi").Equal(app.Resources.Limits))
	assert.Equal(t, int64(40000), runtimeResources(t, rt, app).CPUQuota)

	// Back within the node: granted, the condition goes.
	_, err = resizeTo(t, tc, "rs", func(p *core.Pod) {
		p.Spec.Containers[0].Resources = core.ResourceRequirements{Requests: rlist("300m", "64Mi"), Limits: rlist("500m", "256Mi")}
	})
	require.NoError(t, err)
	got = waitPod(t, tc.admin, "default", "rs", 10*time.Second, "resized", resized)
	assert.Equal(t, int64(50000), runtimeResources(t, rt, got.Status.ContainerStatuses[0]).CPUQuota)
}

func TestResizeFits(t *testing.T) {
	k := &Kubelet{workers: map[meta.UID]*podWorker{}}
	k.cfg.Capacity = core.ResourceList{core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("1Gi")}
	pod := func(cpu string) *core.Pod {
		return &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c",
			Resources: core.ResourceRequirements{Requests: rlist(cpu, "")}}}}}
	}
	assert.Nil(t, k.resizeFits(pod("1500m")))
	p := k.resizeFits(pod("3"))
	require.NotNil(t, p)
	assert.Equal(t, core.PodReasonInfeasible, p.reason)
	assert.Contains(t, p.message, "cpu, requested: 3, capacity: 2")
}

func TestOOMScoreAdj(t *testing.T) {
	const gi = int64(1 << 30)
	pod := func(req, lim core.ResourceList) (*core.Pod, *core.Container) {
		p := &core.Pod{Spec: core.PodSpec{Containers: []core.Container{{Name: "c",
			Resources: core.ResourceRequirements{Requests: req, Limits: lim}}}}}
		return p, &p.Spec.Containers[0]
	}
	tests := []struct {
		name     string
		req, lim core.ResourceList
		want     int64
	}{
		{"BestEffort", nil, nil, 1000},
		{"Guaranteed", rlist("1", "1Gi"), rlist("1", "1Gi"), -997},
		{"Burstable, a tiny memory request", rlist("100m", "35Mi"), nil, 998},
		{"Burstable, no memory request", rlist("100m", ""), nil, 999},
		{"Burstable, a quarter of the node", rlist("", "4Gi"), rlist("", "8Gi"), 750},
		{"Burstable, all of the node", rlist("", "16Gi"), rlist("", "32Gi"), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, c := pod(tt.req, tt.lim)
			assert.Equal(t, tt.want, oomScoreAdj(p, c, 16*gi))
		})
	}
}

// TestAllocatedAs: the in-place comparison agrees with building the
// allocation and comparing it container by container.
func TestAllocatedAs(t *testing.T) {
	pod := func(init, main core.ResourceList) *core.Pod {
		p := &core.Pod{}
		p.Spec.InitContainers = []core.Container{{Name: "init", Resources: core.ResourceRequirements{Requests: init}}}
		p.Spec.Containers = []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: main, Limits: main}}}
		return p
	}
	base := pod(rlist("100m", ""), rlist("1", "1Gi"))
	alloc := requirementsOf(base)
	tests := []struct {
		name string
		pod  *core.Pod
		want bool
	}{
		{"same object", base, true},
		{"same values, other spellings", pod(rlist("0.1", ""), rlist("1000m", "1024Mi")), true},
		{"a container's request changed", pod(rlist("100m", ""), rlist("2", "1Gi")), false},
		{"an init container's request changed", pod(rlist("200m", ""), rlist("1", "1Gi")), false},
		{"a container added", func() *core.Pod {
			p := pod(rlist("100m", ""), rlist("1", "1Gi"))
			p.Spec.Containers = append(p.Spec.Containers, core.Container{Name: "extra"})
			return p
		}(), false},
		{"a container gone", func() *core.Pod {
			p := pod(rlist("100m", ""), rlist("1", "1Gi"))
			p.Spec.InitContainers = nil
			return p
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, allocatedAs(tt.pod, alloc))
		})
	}
}
