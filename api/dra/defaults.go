package dra

import "github.com/orkit/orkit/api/meta"

// DefaultResourceClaimSpec fills a claim spec's defaults in place as
// kube-apiserver does: requests and alternatives get allocation mode
// ExactCount and, with it, count 1; tolerations get operator Equal.
func DefaultResourceClaimSpec(spec *ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			defaultAllocationMode(&e.AllocationMode, &e.Count)
			defaultTolerations(e.Tolerations)
		}
		for j := range r.FirstAvailable {
			s := &r.FirstAvailable[j]
			defaultAllocationMode(&s.AllocationMode, &s.Count)
			defaultTolerations(s.Tolerations)
		}
	}
}

// DefaultResourceClaim fills a claim's defaults: the spec's, and those of
// the tolerations in its allocation.
func DefaultResourceClaim(c *ResourceClaim) {
	DefaultResourceClaimSpec(&c.Spec)
	if a := c.Status.Allocation; a != nil {
		for i := range a.Devices.Results {
			defaultTolerations(a.Devices.Results[i].Tolerations)
		}
	}
}

// DefaultResourceSlice stamps the devices' taints without a timeAdded
// with the current time (whole seconds).
func DefaultResourceSlice(s *ResourceSlice) {
	for i := range s.Spec.Devices {
		for j := range s.Spec.Devices[i].Taints {
			defaultTaint(&s.Spec.Devices[i].Taints[j])
		}
	}
}

// DefaultDeviceTaintRule stamps the rule's taint with the current time
// (whole seconds) when it has no timeAdded.
func DefaultDeviceTaintRule(r *DeviceTaintRule) { defaultTaint(&r.Spec.Taint) }

func defaultAllocationMode(mode *DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = DeviceAllocationModeExactCount
	}
	if *mode == DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

func defaultTolerations(ts []DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = DeviceTolerationOpEqual
		}
	}
}

func defaultTaint(t *DeviceTaint) {
	if t.TimeAdded == nil {
		now := meta.Now()
		t.TimeAdded = &now
	}
}
