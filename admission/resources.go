package admission

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
)

// addList adds every quantity of src into dst (dst must not be nil).
func addList(dst, src core.ResourceList) {
	for name, q := range src {
		sum := q.DeepCopy()
		if cur, ok := dst[name]; ok {
			sum = cur.DeepCopy()
			sum.Add(q)
		}
		dst[name] = sum
	}
}

// maxList raises every quantity of dst to at least the one in src.
func maxList(dst, src core.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// podLimits returns the limits of pod as Kubernetes computes them: the
// sum of the app containers' and sidecars' limits, raised per resource to
// what any init container needs while it runs, plus the pod overhead for
// the resources that have a limit. The caller owns the result.
func podLimits(pod *core.Pod) core.ResourceList {
	limits := core.ResourceList{}
	for i := range pod.Spec.Containers {
		addList(limits, pod.Spec.Containers[i].Resources.Limits)
	}
	sidecars, initLimits := core.ResourceList{}, core.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if core.IsRestartableInitContainer(c) {
			addList(sidecars, c.Resources.Limits)
			maxList(initLimits, sidecars)
			continue
		}
		running := sidecars.DeepCopy()
		addList(running, c.Resources.Limits)
		maxList(initLimits, running)
	}
	addList(limits, sidecars)
	maxList(limits, initLimits)
	for name, q := range pod.Spec.Overhead {
		if _, ok := limits[name]; ok {
			addList(limits, core.ResourceList{name: q})
		}
	}
	return limits
}

// allContainers returns pointers to the app containers, then the init
// containers, of pod.
func allContainers(pod *core.Pod) []*core.Container {
	out := make([]*core.Container, 0, len(pod.Spec.Containers)+len(pod.Spec.InitContainers))
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	return out
}

// one is the quantity 1, for object counts.
func one() resource.Quantity { return *resource.NewQuantity(1, resource.DecimalSI) }
