package core

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// resizable are the resources an in-place resize may change.
var resizable = []ResourceName{ResourceCPU, ResourceMemory}

// ValidatePodResize checks an update through the pods/resize subresource
// (in-place vertical scaling), with Kubernetes' messages: newPod valid, its
// metadata changed only as metadata may, the same containers in the same
// order, only the cpu and memory requests and limits (and the resize
// policies) of app containers and sidecars changed, no request or limit
// removed, and the pod's QoS class unchanged (it names the pod's cgroup).
func ValidatePodResize(newPod, oldPod *Pod) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePod(newPod)...)
	sp := field.NewPath("spec")
	if IsPodTerminal(oldPod) {
		return append(errs, field.Forbidden(sp, "pod resize may not be done on terminal pods"))
	}
	if os := oldPod.Spec.OS; os != nil && os.Name == "windows" {
		return append(errs, field.Forbidden(sp, "windows pods cannot be resized"))
	}
	errs = append(errs, validateResizedContainers(newPod.Spec.Containers, oldPod.Spec.Containers, sp.Child("containers"), false)...)
	errs = append(errs, validateResizedContainers(newPod.Spec.InitContainers, oldPod.Spec.InitContainers, sp.Child("initContainers"), true)...)
	if len(errs) > 0 {
		return errs
	}
	if !reflect.DeepEqual(newPod.Spec.Resources, oldPod.Spec.Resources) {
		errs = append(errs, field.Forbidden(sp.Child("resources"), "pod-level resources may not be resized"))
	}
	if ComputePodQOS(newPod) != GetPodQOS(oldPod) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), newPod.Name, "Pod QOS Class may not change as a result of resizing"))
	}
	return errs
}

// validateResizedContainers checks one container list of a resize against
// the stored one; init marks the init containers, of which only sidecars
// (restartable init containers) may be resized.
func validateResizedContainers(cs, old []Container, p *field.Path, init bool) field.ErrorList {
	if len(cs) != len(old) {
		return field.ErrorList{field.Forbidden(p, "containers may not be added or removed on resize")}
	}
	var errs field.ErrorList
	for i := range cs {
		cp := p.Index(i)
		n, o := &cs[i], &old[i]
		if n.Name != o.Name {
			errs = append(errs, field.Forbidden(cp.Child("name"), "containers may not be renamed or reordered on resize"))
			continue
		}
		if reflect.DeepEqual(n.Resources, o.Resources) && reflect.DeepEqual(n.ResizePolicy, o.ResizePolicy) {
			continue
		}
		if init && !IsRestartableInitContainer(o) {
			errs = append(errs, field.Forbidden(cp.Child("resources"), "resources for non-sidecar init containers are immutable"))
			continue
		}
		rp := cp.Child("resources")
		if !sameBesides(n.Resources.Requests, o.Resources.Requests, resizable) ||
			!sameBesides(n.Resources.Limits, o.Resources.Limits, resizable) ||
			!reflect.DeepEqual(n.Resources.Claims, o.Resources.Claims) {
			errs = append(errs, field.Forbidden(rp, "only cpu and memory resources are mutable"))
			continue
		}
		for _, r := range resizable {
			if _, had := o.Resources.Requests[r]; had {
				if _, has := n.Resources.Requests[r]; !has {
					errs = append(errs, field.Forbidden(rp.Child("requests").Key(string(r)), "resource requests cannot be removed"))
				}
			}
			if _, had := o.Resources.Limits[r]; had {
				if _, has := n.Resources.Limits[r]; !has {
					errs = append(errs, field.Forbidden(rp.Child("limits").Key(string(r)), "resource limits cannot be removed"))
				}
			}
		}
	}
	return errs
}

// sameBesides reports whether a and b hold the same quantities for every
// resource not in skip.
func sameBesides(a, b ResourceList, skip []ResourceName) bool {
	keep := func(rl ResourceList) map[ResourceName]string {
		m := map[ResourceName]string{}
		for name, q := range rl {
			if !slices.Contains(skip, name) {
				m[name] = q.String()
			}
		}
		return m
	}
	return reflect.DeepEqual(keep(a), keep(b))
}

// validateResizePolicy checks a container's resize policies: cpu or
// memory at most once each, a known restart policy, and no restarts in a
// pod that never restarts its containers.
func validateResizePolicy(c *Container, podPolicy RestartPolicy, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[ResourceName]bool{}
	for i, rp := range c.ResizePolicy {
		ip := p.Index(i)
		switch rp.ResourceName {
		case ResourceCPU, ResourceMemory:
		default:
			errs = append(errs, field.NotSupported(ip.Child("resourceName"), rp.ResourceName, []string{"cpu", "memory"}))
		}
		if seen[rp.ResourceName] {
			errs = append(errs, field.Duplicate(ip.Child("resourceName"), rp.ResourceName))
		}
		seen[rp.ResourceName] = true
		switch rp.RestartPolicy {
		case ResizeNotRequired:
		case ResizeRestartContainer:
			if podPolicy == RestartPolicyNever {
				errs = append(errs, field.Invalid(ip.Child("restartPolicy"), rp.RestartPolicy,
					fmt.Sprintf("must be '%s' when `restartPolicy` is 'Never'", ResizeNotRequired)))
			}
		default:
			errs = append(errs, field.NotSupported(ip.Child("restartPolicy"), rp.RestartPolicy, []string{string(ResizeNotRequired), string(ResizeRestartContainer)}))
		}
	}
	return errs
}
