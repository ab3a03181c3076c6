package dra

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func ptr[T any](v T) *T { return &v }

// errStrings renders errs for substring assertions.
func errStrings(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

func class(exprs ...string) *DeviceClass {
	c := &DeviceClass{ObjectMeta: meta.ObjectMeta{Name: "gpu.example.com"}}
	for _, e := range exprs {
		c.Spec.Selectors = append(c.Spec.Selectors, DeviceSelector{CEL: &CELDeviceSelector{Expression: e}})
	}
	return c
}

func TestValidateDeviceClass(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*DeviceClass)
		want   string // "" means valid
	}{
		"conformance selector": {func(c *DeviceClass) { c.Spec.Selectors = class("false").Spec.Selectors }, ""},
		"attribute selector": {func(c *DeviceClass) {
			c.Spec.Selectors = class(`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"`).Spec.Selectors
		}, ""},
		"quantity selector": {func(c *DeviceClass) {
			c.Spec.Selectors = class(`device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`).Spec.Selectors
		}, ""},
		"bad name":             {func(c *DeviceClass) { c.Name = "Not_A_Name" }, "metadata.name: Invalid value"},
		"selector without cel": {func(c *DeviceClass) { c.Spec.Selectors = []DeviceSelector{{}} }, "spec.selectors[0].cel: Required value"},
		"syntax error":         {func(c *DeviceClass) { c.Spec.Selectors = class("1 +").Spec.Selectors }, "compilation failed"},
		"undeclared":           {func(c *DeviceClass) { c.Spec.Selectors = class("pod.name == 'x'").Spec.Selectors }, "undeclared reference"},
		"not a bool":           {func(c *DeviceClass) { c.Spec.Selectors = class(`"yes"`).Spec.Selectors }, "must evaluate to bool or the unknown type, not string"},
		"oversized": {func(c *DeviceClass) {
			c.Spec.Selectors = class(strings.Repeat("x", MaxCELExpressionLength+1)).Spec.Selectors
		}, "Too long"},
		"too many selectors": {func(c *DeviceClass) {
			c.Spec.Selectors = class(strings.Split(strings.Repeat("true,", maxSelectors+1), ",")[:maxSelectors+1]...).Spec.Selectors
		}, "Too many"},
		"config without opaque": {func(c *DeviceClass) { c.Spec.Config = []DeviceClassConfiguration{{}} }, "spec.config[0].opaque: Required value"},
		"config not an object": {func(c *DeviceClass) {
			c.Spec.Config = []DeviceClassConfiguration{{DeviceConfiguration{Opaque: &OpaqueDeviceConfiguration{Driver: "d.example.com", Parameters: meta.RawJSON(`[1]`)}}}}
		}, "must be a valid JSON object"},
		"config malformed JSON": {func(c *DeviceClass) {
			c.Spec.Config = []DeviceClassConfiguration{{DeviceConfiguration{Opaque: &OpaqueDeviceConfiguration{Driver: "d.example.com", Parameters: meta.RawJSON(`{`)}}}}
		}, "error parsing data as JSON"},
		"extended resource":     {func(c *DeviceClass) { c.Spec.ExtendedResourceName = ptr("example.com/gpu") }, ""},
		"bad extended resource": {func(c *DeviceClass) { c.Spec.ExtendedResourceName = ptr("cpu") }, "must be a valid extended resource name"},
	} {
		t.Run(name, func(t *testing.T) {
			c := class()
			tc.mutate(c)
			errs := ValidateDeviceClass(c)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errStrings(errs), tc.want)
		})
	}
}

// TestValidateDeviceClassUpdateStoredSelectors: an unchanged selector is
// not compiled again (kube-apiserver treats it as stored).
func TestValidateDeviceClassUpdateStoredSelectors(t *testing.T) {
	old := class("this would not compile (")
	old.ResourceVersion = "1"
	c := meta.DeepCopy(old)
	c.Labels = map[string]string{"a": "b"}
	assert.Empty(t, ValidateDeviceClassUpdate(c, old))
	c.Spec.Selectors[0].CEL.Expression += " "
	assert.Contains(t, errStrings(ValidateDeviceClassUpdate(c, old)), "compilation failed")
}

func claim() *ResourceClaim {
	c := &ResourceClaim{
		ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: ResourceClaimSpec{Devices: DeviceClaim{Requests: []DeviceRequest{
			{Name: "req-0", Exactly: &ExactDeviceRequest{DeviceClassName: "dra.example.com"}},
		}}},
	}
	DefaultResourceClaim(c)
	return c
}

func TestDefaultResourceClaim(t *testing.T) {
	c := claim()
	e := c.Spec.Devices.Requests[0].Exactly
	assert.Equal(t, DeviceAllocationModeExactCount, e.AllocationMode)
	assert.EqualValues(t, 1, e.Count)
	all := &ExactDeviceRequest{DeviceClassName: "x", AllocationMode: DeviceAllocationModeAll, Tolerations: []DeviceToleration{{Key: "k"}}}
	spec := ResourceClaimSpec{Devices: DeviceClaim{Requests: []DeviceRequest{{Name: "r", Exactly: all}}}}
	DefaultResourceClaimSpec(&spec)
	assert.Zero(t, all.Count, "All takes no count")
	assert.Equal(t, DeviceTolerationOpEqual, all.Tolerations[0].Operator)
}

func TestValidateResourceClaim(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*ResourceClaim)
		want   string
	}{
		"conformance claim": {func(*ResourceClaim) {}, ""},
		"no namespace":      {func(c *ResourceClaim) { c.Namespace = "" }, "metadata.namespace: Required value"},
		"no request type":   {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly = nil }, "exactly one of `exactly` or `firstAvailable` is required"},
		"both request types": {func(c *ResourceClaim) {
			c.Spec.Devices.Requests[0].FirstAvailable = []DeviceSubRequest{{Name: "a", DeviceClassName: "x", AllocationMode: DeviceAllocationModeAll}}
		}, "but multiple fields are set"},
		"duplicate request": {func(c *ResourceClaim) {
			c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, c.Spec.Devices.Requests[0])
		}, "spec.devices.requests[1]: Duplicate value"},
		"bad request name": {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Name = "Req" }, "spec.devices.requests[0].name: Invalid value"},
		"no class":         {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly.DeviceClassName = "" }, "deviceClassName: Required value"},
		"count with All": {func(c *ResourceClaim) {
			c.Spec.Devices.Requests[0].Exactly.AllocationMode = DeviceAllocationModeAll
		}, "must not be specified when allocationMode is 'All'"},
		"negative count": {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly.Count = -1 }, "must be greater than zero"},
		"unknown mode":   {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly.AllocationMode = "Some" }, "Unsupported value"},
		"bad selector":   {func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly.Selectors = class("1 +").Spec.Selectors }, "compilation failed"},
		"bad toleration": {func(c *ResourceClaim) {
			c.Spec.Devices.Requests[0].Exactly.Tolerations = []DeviceToleration{{Key: "k", Operator: DeviceTolerationOpExists, Value: "v"}}
		}, "must be empty for operator `Exists`"},
		"constraint on unknown request": {func(c *ResourceClaim) {
			c.Spec.Devices.Constraints = []DeviceConstraint{{Requests: []string{"nope"}, MatchAttribute: ptr(FullyQualifiedName("a.example.com/x"))}}
		}, "must be the name of a request in the claim"},
		"constraint without domain": {func(c *ResourceClaim) {
			c.Spec.Devices.Constraints = []DeviceConstraint{{MatchAttribute: ptr(FullyQualifiedName("model"))}}
		}, "a fully qualified name must be a domain and a name"},
		"subrequest reference": {func(c *ResourceClaim) {
			c.Spec.Devices.Requests[0] = DeviceRequest{Name: "r", FirstAvailable: []DeviceSubRequest{{Name: "a", DeviceClassName: "x", AllocationMode: DeviceAllocationModeExactCount, Count: 1}}}
			c.Spec.Devices.Config = []DeviceClaimConfiguration{{Requests: []string{"r/a"}, DeviceConfiguration: DeviceConfiguration{
				Opaque: &OpaqueDeviceConfiguration{Driver: "d.example.com", Parameters: meta.RawJSON(`{"a":1}`)}}}}
		}, ""},
		"oversized parameters": {func(c *ResourceClaim) {
			c.Spec.Devices.Config = []DeviceClaimConfiguration{{DeviceConfiguration: DeviceConfiguration{
				Opaque: &OpaqueDeviceConfiguration{Driver: "d.example.com", Parameters: meta.RawJSON(`{"a":"` + strings.Repeat("x", maxOpaqueParameters) + `"}`)}}}}
		}, "Too long"},
	} {
		t.Run(name, func(t *testing.T) {
			c := claim()
			tc.mutate(c)
			errs := ValidateResourceClaim(c)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errStrings(errs), tc.want)
		})
	}
}

func TestValidateResourceClaimUpdate(t *testing.T) {
	alloc := &AllocationResult{Devices: DeviceAllocationResult{Results: []DeviceRequestAllocationResult{
		{Request: "req-0", Driver: "dra.example.com", Pool: "pool", Device: "dev-0"},
	}}}
	pod := ResourceClaimConsumerReference{Resource: "pods", Name: "p", UID: "uid-1"}
	for name, tc := range map[string]struct {
		old, new func(*ResourceClaim)
		want     string
	}{
		"label":             {nil, func(c *ResourceClaim) { c.Labels = map[string]string{"a": "b"} }, ""},
		"spec is immutable": {nil, func(c *ResourceClaim) { c.Spec.Devices.Requests[0].Exactly.Count = 2 }, "spec: Invalid value"},
		"empty allocation":  {nil, func(c *ResourceClaim) { c.Status.Allocation = &AllocationResult{} }, ""},
		"allocate":          {nil, func(c *ResourceClaim) { c.Status.Allocation = alloc }, ""},
		"allocate unknown request": {nil, func(c *ResourceClaim) {
			a := meta.DeepCopy(alloc)
			a.Devices.Results[0].Request = "other"
			c.Status.Allocation = a
		}, "must be the name of a request in the claim"},
		"reserve without allocation": {nil, func(c *ResourceClaim) { c.Status.ReservedFor = []ResourceClaimConsumerReference{pod} }, "may not be specified when `allocated` is not set"},
		"reserve": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) {
			c.Status.ReservedFor = []ResourceClaimConsumerReference{pod}
		}, ""},
		"reserve twice": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) {
			c.Status.ReservedFor = []ResourceClaimConsumerReference{pod, pod}
		}, "Duplicate value"},
		"incomplete consumer": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) {
			c.Status.ReservedFor = []ResourceClaimConsumerReference{{Name: "p"}}
		}, "status.reservedFor[0].uid: Required value"},
		"reserve while deleting": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) {
			now := meta.Now()
			c.DeletionTimestamp = &now
			c.Status.ReservedFor = []ResourceClaimConsumerReference{pod}
		}, "new entries may not be added"},
		"allocation is immutable": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) {
			a := meta.DeepCopy(alloc)
			a.Devices.Results[0].Device = "dev-1"
			c.Status.Allocation = a
		}, "status.allocation: Invalid value"},
		"deallocate": {func(c *ResourceClaim) { c.Status.Allocation = alloc }, func(c *ResourceClaim) { c.Status.Allocation = nil }, ""},
	} {
		t.Run(name, func(t *testing.T) {
			old := claim()
			old.ResourceVersion = "1"
			if tc.old != nil {
				tc.old(old)
			}
			c := meta.DeepCopy(old)
			tc.new(c)
			errs := ValidateResourceClaimUpdate(c, old)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errStrings(errs), tc.want)
		})
	}
}

func TestValidateResourceClaimTemplate(t *testing.T) {
	tpl := &ResourceClaimTemplate{ObjectMeta: meta.ObjectMeta{Name: "t", Namespace: "ns"}, Spec: ResourceClaimTemplateSpec{Spec: claim().Spec}}
	assert.Empty(t, ValidateResourceClaimTemplate(tpl))
	bad := meta.DeepCopy(tpl)
	bad.Spec.Labels = map[string]string{"-": "x"}
	assert.Contains(t, errStrings(ValidateResourceClaimTemplate(bad)), "spec.metadata.labels")
	tpl.ResourceVersion = "1"
	next := meta.DeepCopy(tpl)
	next.Labels = map[string]string{"a": "b"}
	assert.Empty(t, ValidateResourceClaimTemplateUpdate(next, tpl))
	next.Spec.Spec.Devices.Requests[0].Name = "other"
	assert.Contains(t, errStrings(ValidateResourceClaimTemplateUpdate(next, tpl)), "spec: Invalid value")
}

func slice() *ResourceSlice {
	return &ResourceSlice{
		ObjectMeta: meta.ObjectMeta{Name: "s"},
		Spec: ResourceSliceSpec{
			Driver: "dra.example.com", NodeName: ptr("no-such-node"),
			Pool: ResourcePool{Name: "cluster", Generation: 1, ResourceSliceCount: 1},
		},
	}
}

func TestValidateResourceSlice(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*ResourceSlice)
		want   string
	}{
		"conformance slice": {func(*ResourceSlice) {}, ""},
		"device": {func(s *ResourceSlice) {
			s.Spec.Devices = []Device{{Name: "device-0", Attributes: map[QualifiedName]DeviceAttribute{"model": {StringValue: ptr("a100")}, "dra.example.com/ver": {VersionValue: ptr("1.0.0")}}}}
		}, ""},
		"no driver":         {func(s *ResourceSlice) { s.Spec.Driver = "" }, "spec.driver: Required value"},
		"long driver":       {func(s *ResourceSlice) { s.Spec.Driver = strings.Repeat("a", 64) }, "spec.driver: Too long"},
		"no pool":           {func(s *ResourceSlice) { s.Spec.Pool.Name = "" }, "spec.pool.name: Required value"},
		"zero slice count":  {func(s *ResourceSlice) { s.Spec.Pool.ResourceSliceCount = 0 }, "must be greater than zero"},
		"no nodes":          {func(s *ResourceSlice) { s.Spec.NodeName = nil }, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"},
		"two node fields":   {func(s *ResourceSlice) { s.Spec.AllNodes = ptr(true) }, "but multiple fields are set"},
		"allNodes false":    {func(s *ResourceSlice) { s.Spec.NodeName, s.Spec.AllNodes = nil, ptr(false) }, "must be either unset or set to true"},
		"duplicate devices": {func(s *ResourceSlice) { s.Spec.Devices = []Device{{Name: "d"}, {Name: "d"}} }, "Duplicate value"},
		"too many devices": {func(s *ResourceSlice) {
			for i := 0; i <= maxSliceDevices; i++ {
				s.Spec.Devices = append(s.Spec.Devices, Device{Name: "d" + strings.Repeat("x", i%5) + string(rune('a'+i%26))})
			}
		}, "Too many"},
		"attribute with two values": {func(s *ResourceSlice) {
			s.Spec.Devices = []Device{{Name: "d", Attributes: map[QualifiedName]DeviceAttribute{"a": {IntValue: ptr(int64(1)), BoolValue: ptr(true)}}}}
		}, "exactly one value must be specified"},
		"bad attribute name": {func(s *ResourceSlice) {
			s.Spec.Devices = []Device{{Name: "d", Attributes: map[QualifiedName]DeviceAttribute{"9x": {IntValue: ptr(int64(1))}}}}
		}, "a valid C identifier"},
		"per-device node without selection": {func(s *ResourceSlice) { s.Spec.Devices = []Device{{Name: "d", AllNodes: ptr(true)}} }, "can only be set if `perDeviceNodeSelection`"},
		"counters and devices": {func(s *ResourceSlice) {
			s.Spec.Devices = []Device{{Name: "d"}}
			s.Spec.SharedCounters = []CounterSet{{Name: "c"}}
		}, "only one of `sharedCounters` or `devices` is allowed"},
		"bad taint effect": {func(s *ResourceSlice) {
			s.Spec.Devices = []Device{{Name: "d", Taints: []DeviceTaint{{Key: "k", Effect: "Evict"}}}}
		}, "Unsupported value"},
	} {
		t.Run(name, func(t *testing.T) {
			s := slice()
			tc.mutate(s)
			errs := ValidateResourceSlice(s)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errStrings(errs), tc.want)
		})
	}
}

func TestValidateResourceSliceUpdate(t *testing.T) {
	old := slice()
	old.ResourceVersion = "1"
	s := meta.DeepCopy(old)
	s.Spec.Devices = []Device{{Name: "device-0"}}
	assert.Empty(t, ValidateResourceSliceUpdate(s, old))
	for _, mutate := range []func(*ResourceSlice){
		func(s *ResourceSlice) { s.Spec.Driver = "other.example.com" },
		func(s *ResourceSlice) { s.Spec.Pool.Name = "other" },
		func(s *ResourceSlice) { s.Spec.NodeName = ptr("other") },
	} {
		s := meta.DeepCopy(old)
		mutate(s)
		assert.Contains(t, errStrings(ValidateResourceSliceUpdate(s, old)), "field is immutable")
	}
}

func TestValidateDeviceTaintRule(t *testing.T) {
	r := &DeviceTaintRule{ObjectMeta: meta.ObjectMeta{Name: "r"}, Spec: DeviceTaintRuleSpec{Taint: DeviceTaint{Key: "testing", Effect: DeviceTaintEffectNone}}}
	DefaultDeviceTaintRule(r)
	require.NotNil(t, r.Spec.Taint.TimeAdded)
	assert.Empty(t, ValidateDeviceTaintRule(r))
	for name, tc := range map[string]struct {
		mutate func(*DeviceTaintRule)
		want   string
	}{
		"no key":       {func(r *DeviceTaintRule) { r.Spec.Taint.Key = "" }, "spec.taint.key: Required value"},
		"no effect":    {func(r *DeviceTaintRule) { r.Spec.Taint.Effect = "" }, "spec.taint.effect: Required value"},
		"bad effect":   {func(r *DeviceTaintRule) { r.Spec.Taint.Effect = "Evict" }, "Unsupported value"},
		"bad value":    {func(r *DeviceTaintRule) { r.Spec.Taint.Value = "a b" }, "spec.taint.value: Invalid value"},
		"bad selector": {func(r *DeviceTaintRule) { r.Spec.DeviceSelector = &DeviceTaintSelector{Device: ptr("Dev_0")} }, "spec.deviceSelector.device: Invalid value"},
	} {
		t.Run(name, func(t *testing.T) {
			c := meta.DeepCopy(r)
			tc.mutate(c)
			assert.Contains(t, errStrings(ValidateDeviceTaintRule(c)), tc.want)
		})
	}
}

func TestValidateDeviceTaintRuleStatus(t *testing.T) {
	old := &DeviceTaintRule{ObjectMeta: meta.ObjectMeta{Name: "r", ResourceVersion: "1"}, Spec: DeviceTaintRuleSpec{Taint: DeviceTaint{Key: "k", Effect: DeviceTaintEffectNone}}}
	good := meta.Condition{Type: "Testing", Status: meta.ConditionTrue, LastTransitionTime: meta.Now(), Reason: "E2E_test_running"}
	for name, tc := range map[string]struct {
		conds []meta.Condition
		want  string
	}{
		"condition":  {[]meta.Condition{good}, ""},
		"duplicate":  {[]meta.Condition{good, good}, "Duplicate value"},
		"no reason":  {[]meta.Condition{{Type: "T", Status: meta.ConditionTrue, LastTransitionTime: meta.Now()}}, "reason: Required value"},
		"bad status": {[]meta.Condition{{Type: "T", Status: "Maybe", LastTransitionTime: meta.Now(), Reason: "R"}}, "Unsupported value"},
		"too many": {func() []meta.Condition {
			var cs []meta.Condition
			for i := 0; i <= maxRuleConditions; i++ {
				c := good
				c.Type = "T" + string(rune('a'+i))
				cs = append(cs, c)
			}
			return cs
		}(), "Too many"},
	} {
		t.Run(name, func(t *testing.T) {
			r := meta.DeepCopy(old)
			r.Status.Conditions = tc.conds
			errs := ValidateDeviceTaintRuleUpdate(r, old)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			assert.Contains(t, errStrings(errs), tc.want)
		})
	}
}
