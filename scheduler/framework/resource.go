package framework

import (
	"maps"

	"github.com/orkit/orkit/api/core"
)

// Defaults the scoring plugins assume for a pod that requests no CPU or
// memory, so that many such pods still spread (Kubernetes' values).
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// Resource is a set of compute resources as plain integers: CPU in
// millicores, memory and ephemeral storage in bytes, a pod count, and
// extended resources (anything else, e.g. "example.com/gpu" or
// "hugepages-2Mi") in their integer unit. The zero value is empty. A
// Resource is a value; Scalar is shared by copies until Clone.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int64
	Scalar           map[core.ResourceName]int64
}

// NewResource converts a ResourceList.
func NewResource(rl core.ResourceList) Resource {
	var r Resource
	r.AddList(rl)
	return r
}

// AddList adds every quantity of rl.
func (r *Resource) AddList(rl core.ResourceList) {
	for name, q := range rl {
		switch name {
		case core.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case core.ResourceMemory:
			r.Memory += q.Value()
		case core.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		case core.ResourcePods:
			r.AllowedPodNumber += q.Value()
		default:
			if r.Scalar == nil {
				r.Scalar = map[core.ResourceName]int64{}
			}
			r.Scalar[name] += q.Value()
		}
	}
}

// Add adds o to r. r's Scalar map is modified in place when it exists;
// Clone first if r shares it.
func (r *Resource) Add(o *Resource) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	r.AllowedPodNumber += o.AllowedPodNumber
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[core.ResourceName]int64{}
		}
		r.Scalar[k] += v
	}
}

// Sub subtracts o from r (see Add about Scalar).
func (r *Resource) Sub(o *Resource) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.AllowedPodNumber -= o.AllowedPodNumber
	for k, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[core.ResourceName]int64{}
		}
		r.Scalar[k] -= v
	}
}

// Clone returns a copy with its own Scalar map.
func (r Resource) Clone() Resource {
	r.Scalar = maps.Clone(r.Scalar)
	return r
}

// Get returns the amount of name (CPU in millicores).
func (r *Resource) Get(name core.ResourceName) int64 {
	switch name {
	case core.ResourceCPU:
		return r.MilliCPU
	case core.ResourceMemory:
		return r.Memory
	case core.ResourceEphemeralStorage:
		return r.EphemeralStorage
	case core.ResourcePods:
		return r.AllowedPodNumber
	}
	return r.Scalar[name]
}

// IsZero reports whether every amount is zero.
func (r *Resource) IsZero() bool {
	if r.MilliCPU != 0 || r.Memory != 0 || r.EphemeralStorage != 0 || r.AllowedPodNumber != 0 {
		return false
	}
	for _, v := range r.Scalar {
		if v != 0 {
			return false
		}
	}
	return true
}

// PodRequests returns what the scheduler reserves for pod (see
// core.PodRequests: app containers plus sidecars, or the largest init
// container, plus overhead) and the same with the scoring defaults for
// CPU and memory when the pod requests none.
func PodRequests(pod *core.Pod) (req, nonZero Resource) {
	req = NewResource(core.PodRequests(pod))
	nonZero = Resource{MilliCPU: req.MilliCPU, Memory: req.Memory}
	if nonZero.MilliCPU == 0 {
		nonZero.MilliCPU = DefaultMilliCPURequest
	}
	if nonZero.Memory == 0 {
		nonZero.Memory = DefaultMemoryRequest
	}
	return req, nonZero
}
