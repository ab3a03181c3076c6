package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

func ptrTo[T any](v T) *T { return &v }

func deviceClass(name string, exprs ...string) *dra.DeviceClass {
	c := &dra.DeviceClass{ObjectMeta: meta.ObjectMeta{Name: name}}
	for _, e := range exprs {
		c.Spec.Selectors = append(c.Spec.Selectors, dra.DeviceSelector{CEL: &dra.CELDeviceSelector{Expression: e}})
	}
	return c
}

// gpuSlice publishes n GPUs (model a100 for even, h100 for odd indexes,
// 40Gi each) on node.
func gpuSlice(node string, n int) *dra.ResourceSlice {
	s := &dra.ResourceSlice{ObjectMeta: meta.ObjectMeta{Name: node + "-gpus"}, Spec: dra.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: ptrTo(node), Pool: dra.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}}}
	for i := range n {
		model := "a100"
		if i%2 == 1 {
			model = "h100"
		}
		s.Spec.Devices = append(s.Spec.Devices, dra.Device{
			Name:       "gpu-" + string(rune('0'+i)),
			Attributes: map[dra.QualifiedName]dra.DeviceAttribute{"model": {StringValue: ptrTo(model)}},
			Capacity:   map[dra.QualifiedName]dra.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}},
		})
	}
	return s
}

func draClaim(name string, req dra.ExactDeviceRequest) *dra.ResourceClaim {
	c := &dra.ResourceClaim{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID("uid-" + name)},
		Spec: dra.ResourceClaimSpec{Devices: dra.DeviceClaim{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &req}}}}}
	dra.DefaultResourceClaim(c)
	return c
}

func TestDRAAllocator(t *testing.T) {
	classes := map[string]*dra.DeviceClass{
		"gpu":  deviceClass("gpu", `device.driver == "gpu.example.com"`),
		"big":  deviceClass("big", `device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`),
		"none": deviceClass("none", "false"),
		"40Gi": deviceClass("40Gi", `device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`),
	}
	n1 := node("n1", nil, nil)
	for name, tc := range map[string]struct {
		req     dra.ExactDeviceRequest
		inUse   []string
		slices  []*dra.ResourceSlice
		devices []string // allocated, "" entries none; nil means an error
	}{
		"one": {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, []string{"gpu-0"}},
		"two": {dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, []string{"gpu-0", "gpu-1"}},
		"all": {dra.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: dra.DeviceAllocationModeAll}, nil, []*dra.ResourceSlice{gpuSlice("n1", 3)}, []string{"gpu-0", "gpu-1", "gpu-2"}},
		"request selector": {dra.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: deviceClass("x", `device.attributes["gpu.example.com"].model == "h100"`).Spec.Selectors},
			nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, []string{"gpu-1"}},
		"in use":         {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, []string{"gpu-0"}, []*dra.ResourceSlice{gpuSlice("n1", 2)}, []string{"gpu-1"}},
		"all in use":     {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, []string{"gpu-0"}, []*dra.ResourceSlice{gpuSlice("n1", 1)}, nil},
		"admin access":   {dra.ExactDeviceRequest{DeviceClassName: "gpu", AdminAccess: ptrTo(true)}, []string{"gpu-0"}, []*dra.ResourceSlice{gpuSlice("n1", 1)}, []string{"gpu-0"}},
		"too few":        {dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 3}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, nil},
		"other node":     {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, nil, []*dra.ResourceSlice{gpuSlice("n2", 2)}, nil},
		"class excludes": {dra.ExactDeviceRequest{DeviceClassName: "none"}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, nil},
		"quantity":       {dra.ExactDeviceRequest{DeviceClassName: "big"}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, nil},
		"quantity fits":  {dra.ExactDeviceRequest{DeviceClassName: "40Gi"}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, []string{"gpu-0"}},
		"no class":       {dra.ExactDeviceRequest{DeviceClassName: "missing"}, nil, []*dra.ResourceSlice{gpuSlice("n1", 2)}, nil},
		"incomplete pool": {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, nil, func() []*dra.ResourceSlice {
			s := gpuSlice("n1", 2)
			s.Spec.Pool.ResourceSliceCount = 2
			return []*dra.ResourceSlice{s}
		}(), nil},
		"tainted": {dra.ExactDeviceRequest{DeviceClassName: "gpu"}, nil, func() []*dra.ResourceSlice {
			s := gpuSlice("n1", 2)
			s.Spec.Devices[0].Taints = []dra.DeviceTaint{{Key: "broken", Effect: dra.DeviceTaintEffectNoSchedule}}
			return []*dra.ResourceSlice{s}
		}(), []string{"gpu-1"}},
		"tolerated": {dra.ExactDeviceRequest{DeviceClassName: "gpu", Tolerations: []dra.DeviceToleration{{Key: "broken", Operator: dra.DeviceTolerationOpExists}}}, nil, func() []*dra.ResourceSlice {
			s := gpuSlice("n1", 1)
			s.Spec.Devices[0].Taints = []dra.DeviceTaint{{Key: "broken", Effect: dra.DeviceTaintEffectNoSchedule}}
			return []*dra.ResourceSlice{s}
		}(), []string{"gpu-0"}},
	} {
		t.Run(name, func(t *testing.T) {
			a := &DRAAllocator{Classes: classes, Slices: tc.slices, InUse: map[DeviceID]bool{}}
			for _, d := range tc.inUse {
				a.InUse[DeviceID{"gpu.example.com", "n1", d}] = true
			}
			res, err := a.Allocate([]*dra.ResourceClaim{draClaim("c", tc.req)}, n1)
			if tc.devices == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, r := range res[0].Devices.Results {
				got = append(got, r.Device)
				assert.Equal(t, "gpu", r.Request)
			}
			assert.Equal(t, tc.devices, got)
			assert.True(t, core.MatchNodeSelectorTerms(n1, res[0].NodeSelector.NodeSelectorTerms))
		})
	}
}

// TestDRAAllocatorTwoClaims: two claims of one pod never share a device;
// constraints are refused.
func TestDRAAllocatorTwoClaims(t *testing.T) {
	a := &DRAAllocator{Classes: map[string]*dra.DeviceClass{"gpu": deviceClass("gpu")}, Slices: []*dra.ResourceSlice{gpuSlice("n1", 2)}, InUse: map[DeviceID]bool{}}
	res, err := a.Allocate([]*dra.ResourceClaim{draClaim("a", dra.ExactDeviceRequest{DeviceClassName: "gpu"}), draClaim("b", dra.ExactDeviceRequest{DeviceClassName: "gpu"})}, node("n1", nil, nil))
	require.NoError(t, err)
	assert.NotEqual(t, res[0].Devices.Results[0].Device, res[1].Devices.Results[0].Device)
	_, err = a.Allocate([]*dra.ResourceClaim{draClaim("a", dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 3})}, node("n1", nil, nil))
	require.Error(t, err)
	c := draClaim("c", dra.ExactDeviceRequest{DeviceClassName: "gpu"})
	c.Spec.Devices.Constraints = []dra.DeviceConstraint{{MatchAttribute: ptrTo(dra.FullyQualifiedName("gpu.example.com/model"))}}
	_, err = a.Allocate([]*dra.ResourceClaim{c}, node("n1", nil, nil))
	require.ErrorContains(t, err, "constraints are not supported")
}

func claimingPod(name string, claims ...string) *core.Pod {
	p := pod(name, nil)
	for _, c := range claims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, meta.RawJSON(`{"name":"`+c+`","resourceClaimName":"`+c+`"}`))
	}
	return p
}

func TestDynamicResourcesFilter(t *testing.T) {
	allocated := draClaim("allocated", dra.ExactDeviceRequest{DeviceClassName: "gpu"})
	allocated.Status.Allocation = &dra.AllocationResult{NodeSelector: nodeSelectorFor(node("n2", nil, nil)),
		Devices: dra.DeviceAllocationResult{Results: []dra.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "n2", Device: "gpu-0"}}}}
	deleting := draClaim("deleting", dra.ExactDeviceRequest{DeviceClassName: "gpu"})
	deleting.DeletionTimestamp = ptrTo(meta.Now())
	pl := &DynamicResources{
		Classes: listerOf(t, deviceClass("gpu")),
		Slices:  listerOf(t, gpuSlice("n1", 1), gpuSlice("n2", 1)),
		Claims:  listerOf(t, draClaim("free", dra.ExactDeviceRequest{DeviceClassName: "gpu"}), allocated, deleting),
	}
	n1, n2 := nodeInfo(node("n1", nil, nil)), nodeInfo(node("n2", nil, nil))
	snap := framework.NewSnapshot([]*core.Node{n1.Node(), n2.Node()}, nil)
	for name, tc := range map[string]struct {
		pod    *core.Pod
		ni     *framework.NodeInfo
		reason string
	}{
		"no claims":           {pod("p", nil), n1, ""},
		"free claim":          {claimingPod("p", "free"), n1, ""},
		"allocated here":      {claimingPod("p", "allocated"), n2, ""},
		"allocated elsewhere": {claimingPod("p", "allocated"), n1, "UnschedulableAndUnresolvable: " + ReasonClaimNotAvailable},
		"both fit on n2":      {claimingPod("p", "free", "allocated"), n2, "Unschedulable: " + ReasonCannotAllocate},
		"missing":             {claimingPod("p", "nope"), n1, `UnschedulableAndUnresolvable: resourceclaim "nope" not found`},
		"deleting":            {claimingPod("p", "deleting"), n1, `UnschedulableAndUnresolvable: resourceclaim "deleting" is being deleted`},
		"template not made": {func() *core.Pod {
			p := pod("p", nil)
			p.Spec.ResourceClaims = []meta.RawJSON{meta.RawJSON(`{"name":"gpu","resourceClaimTemplateName":"t"}`)}
			return p
		}(), n1, `UnschedulableAndUnresolvable: waiting for the resource claim of entry "gpu" to be created`},
		"malformed entry": {func() *core.Pod {
			p := pod("p", nil)
			p.Spec.ResourceClaims = []meta.RawJSON{meta.RawJSON(`[]`)}
			return p
		}(), n1, "UnschedulableAndUnresolvable: pod ns/p: spec.resourceClaims[0]"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, msg(runFilter(pl, tc.pod, tc.ni, snap)), tc.reason)
			if tc.reason == "" {
				assert.Empty(t, msg(runFilter(pl, tc.pod, tc.ni, snap)))
			}
		})
	}
}

// TestDynamicResourcesReserve: a reserved allocation's devices are not
// given to the next pod; Unreserve frees them.
func TestDynamicResourcesReserve(t *testing.T) {
	pl := &DynamicResources{
		Classes: listerOf(t, deviceClass("gpu")),
		Slices:  listerOf(t, gpuSlice("n1", 1)),
		Claims:  listerOf(t, draClaim("a", dra.ExactDeviceRequest{DeviceClassName: "gpu"}), draClaim("b", dra.ExactDeviceRequest{DeviceClassName: "gpu"})),
	}
	n1 := nodeInfo(node("n1", nil, nil))
	cycle := func(p *core.Pod) (*framework.CycleState, *framework.Status) {
		state := framework.NewCycleState()
		require.True(t, pl.PreFilter(ctx, state, p).IsSuccess())
		return state, pl.Filter(ctx, state, p, n1)
	}
	sa, st := cycle(claimingPod("pa", "a"))
	require.True(t, st.IsSuccess())
	require.True(t, pl.Reserve(ctx, sa, claimingPod("pa", "a"), "n1").IsSuccess())
	_, st = cycle(claimingPod("pb", "b"))
	assert.Equal(t, "Unschedulable: "+ReasonCannotAllocate, msg(st))
	pl.Unreserve(ctx, sa, claimingPod("pa", "a"), "n1")
	_, st = cycle(claimingPod("pb", "b"))
	assert.True(t, st.IsSuccess())
}
