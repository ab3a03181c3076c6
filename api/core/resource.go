package core

import (
	"math"

	"github.com/orkit/orkit/api/resource"
)

// ResourceName names a compute or storage resource: "cpu", "memory",
// "pods", "requests.cpu", or an extended resource such as
// "example.com/gpu".
type ResourceName string

// Well-known resource names.
const (
	// ResourceCPU is CPU in cores; "500m" is half a core.
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceStorage is volume size in bytes.
	ResourceStorage ResourceName = "storage"
	// ResourceEphemeralStorage is local ephemeral storage in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	// ResourcePods is the number of pods a node can run.
	ResourcePods ResourceName = "pods"

	// Quota resource names.
	ResourceServices               ResourceName = "services"
	ResourceReplicationControllers ResourceName = "replicationcontrollers"
	ResourceQuotas                 ResourceName = "resourcequotas"
	ResourceSecrets                ResourceName = "secrets"
	ResourceConfigMaps             ResourceName = "configmaps"
	ResourcePersistentVolumeClaims ResourceName = "persistentvolumeclaims"
	ResourceServicesNodePorts      ResourceName = "services.nodeports"
	ResourceServicesLoadBalancers  ResourceName = "services.loadbalancers"
	ResourceRequestsCPU            ResourceName = "requests.cpu"
	ResourceRequestsMemory         ResourceName = "requests.memory"
	ResourceRequestsStorage        ResourceName = "requests.storage"
	ResourceRequestsEphemeral      ResourceName = "requests.ephemeral-storage"
	ResourceLimitsCPU              ResourceName = "limits.cpu"
	ResourceLimitsMemory           ResourceName = "limits.memory"
	ResourceLimitsEphemeral        ResourceName = "limits.ephemeral-storage"
)

// Prefixes of resource names with special meaning.
const (
	// ResourceHugePagesPrefix starts huge page resources ("hugepages-2Mi").
	ResourceHugePagesPrefix = "hugepages-"
	// ResourceDefaultNamespacePrefix starts names in the default namespace
	// of resources ("kubernetes.io/...").
	ResourceDefaultNamespacePrefix = "kubernetes.io/"
	// ResourceRequestsPrefix starts quota names for requests of extended resources.
	ResourceRequestsPrefix = "requests."
	// ResourceLimitsPrefix starts quota names for limits.
	ResourceLimitsPrefix = "limits."
)

// ResourceList maps resource names to quantities. A nil list is empty.
type ResourceList map[ResourceName]resource.Quantity

// Name returns a copy of the quantity of name, or a zero quantity in the
// given format when the list does not hold it. It never returns nil.
func (rl ResourceList) Name(name ResourceName, defaultFormat resource.Format) *resource.Quantity {
	if q, ok := rl[name]; ok {
		c := q.DeepCopy()
		return &c
	}
	return resource.NewQuantity(0, defaultFormat)
}

// Cpu returns a copy of the CPU quantity, or zero.
func (rl ResourceList) Cpu() *resource.Quantity { return rl.Name(ResourceCPU, resource.DecimalSI) }

// Memory returns a copy of the memory quantity, or zero.
func (rl ResourceList) Memory() *resource.Quantity {
	return rl.Name(ResourceMemory, resource.BinarySI)
}

// Storage returns a copy of the storage quantity, or zero.
func (rl ResourceList) Storage() *resource.Quantity {
	return rl.Name(ResourceStorage, resource.BinarySI)
}

// StorageEphemeral returns a copy of the ephemeral-storage quantity, or zero.
func (rl ResourceList) StorageEphemeral() *resource.Quantity {
	return rl.Name(ResourceEphemeralStorage, resource.BinarySI)
}

// Pods returns a copy of the pods quantity, or zero.
func (rl ResourceList) Pods() *resource.Quantity { return rl.Name(ResourcePods, resource.DecimalSI) }

// Equal says whether rl and other hold the same resources with equal
// values ("1000m" equals "1"); nil equals empty.
func (rl ResourceList) Equal(other ResourceList) bool {
	if len(rl) != len(other) {
		return false
	}
	for name, q := range rl {
		o, ok := other[name]
		if !ok || !q.Equal(o) {
			return false
		}
	}
	return true
}

// DeepCopy returns a copy of rl that shares no memory with it (nil stays nil).
func (rl ResourceList) DeepCopy() ResourceList {
	if rl == nil {
		return nil
	}
	out := make(ResourceList, len(rl))
	for k, v := range rl {
		out[k] = v.DeepCopy()
	}
	return out
}

// addResourceList adds every quantity of src into dst.
func addResourceList(dst, src ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; ok {
			sum := cur.DeepCopy()
			sum.Add(q)
			dst[name] = sum
			continue
		}
		dst[name] = q.DeepCopy()
	}
}

// maxResourceList raises every quantity of dst to at least the one in src.
func maxResourceList(dst, src ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// ResourceRequirements are a container's resource limits and requests.
type ResourceRequirements struct {
	// Limits is the most the container may use.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests is what the scheduler reserves for the container; when a
	// resource has a limit but no request, defaulting sets the request to
	// the limit.
	Requests ResourceList `json:"requests,omitempty"`
	// Claims names dynamic resource claims of the pod the container uses.
	Claims []ResourceClaim `json:"claims,omitempty"`
}

// ResourceClaim names one entry of PodSpec.ResourceClaims.
type ResourceClaim struct {
	Name    string `json:"name"`
	Request string `json:"request,omitempty"`
}

// VolumeResourceRequirements are the storage a claim asks for.
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// maxMilliRounding bounds the quantities roundUpToMilli touches: larger
// ones cannot carry sub-milli precision in int64 millis anyway.
const maxMilliRounding = math.MaxInt64 / 1000

// roundUpToMilli rounds every quantity with precision below one
// thousandth up to the next thousandth ("0.5m" becomes "1m"), as the
// Kubernetes API server does when it defaults a resource list. Quantities
// that are already exact are left as they were written.
func roundUpToMilli(rl ResourceList) {
	for name, q := range rl {
		if q.CmpInt64(maxMilliRounding) >= 0 || q.CmpInt64(-maxMilliRounding) <= 0 {
			continue
		}
		r := resource.NewMilliQuantity(q.MilliValue(), q.Format())
		if r.Cmp(q) != 0 {
			rl[name] = *r
		}
	}
}
