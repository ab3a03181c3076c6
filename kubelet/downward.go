package kubelet

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
)

// resourceField returns the downward API value of ref, as the kubelet
// computes it: the selected request or limit of the named container (of c
// when ref names none, as an env var may), divided by the divisor ("1" when
// unset) and rounded up. A cpu, memory or ephemeral-storage limit the
// container does not set is the node's allocatable amount; a missing
// request is 0. An unknown container or resource wraps ErrConfigRef.
func resourceField(pod *core.Pod, c *core.Container, ref *core.ResourceFieldSelector, allocatable core.ResourceList) (string, error) {
	if ref.ContainerName != "" || c == nil {
		c = podContainer(pod, ref.ContainerName)
		if c == nil {
			return "", fmt.Errorf("%w: resourceFieldRef container %q not found", ErrConfigRef, ref.ContainerName)
		}
	}
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok || (kind != "limits" && kind != "requests") || !downwardResource(core.ResourceName(name)) {
		return "", fmt.Errorf("%w: unsupported container resource %q", ErrConfigRef, ref.Resource)
	}
	rn := core.ResourceName(name)
	q, set := c.Resources.Requests[rn]
	if kind == "limits" {
		q, set = c.Resources.Limits[rn]
		if !set || q.IsZero() {
			q = limitDefault(rn, allocatable)
		}
	}
	div := ref.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	if rn == core.ResourceCPU {
		return strconv.FormatInt(ceilDiv(q.MilliValue(), div.MilliValue()), 10), nil
	}
	return strconv.FormatInt(ceilDiv(q.Value(), div.Value()), 10), nil
}

// downwardResource reports whether the downward API projects name.
func downwardResource(name core.ResourceName) bool {
	switch name {
	case core.ResourceCPU, core.ResourceMemory, core.ResourceEphemeralStorage:
		return true
	}
	return core.IsHugePageResourceName(name)
}

// limitDefault is the limit of a container that sets none: the node's
// allocatable cpu, memory or ephemeral storage; huge pages are never
// overcommitted, so theirs is 0.
func limitDefault(name core.ResourceName, allocatable core.ResourceList) resource.Quantity {
	if core.IsHugePageResourceName(name) {
		return resource.Quantity{}
	}
	return allocatable[name]
}

// podContainer returns the named container or init container of pod, nil
// if there is none.
func podContainer(pod *core.Pod, name string) *core.Container {
	for _, list := range [][]core.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// ceilDiv is v/d rounded up (toward +inf), d > 0; d <= 0 counts as 1.
func ceilDiv(v, d int64) int64 {
	if d <= 0 {
		d = 1
	}
	q := v / d
	if v%d != 0 && v > 0 {
		q++
	}
	return q
}
