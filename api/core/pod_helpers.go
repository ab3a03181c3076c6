package core

import (
	"github.com/orkit/orkit/api/meta"
)

// GetPodCondition returns the condition of type t in status and its index,
// or -1 and nil. The pointer aliases status.
func GetPodCondition(status *PodStatus, t PodConditionType) (int, *PodCondition) {
	if status == nil {
		return -1, nil
	}
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return i, &status.Conditions[i]
		}
	}
	return -1, nil
}

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(pod *Pod) bool {
	_, c := GetPodCondition(&pod.Status, PodReady)
	return c != nil && c.Status == meta.ConditionTrue
}

// IsPodTerminal reports whether the pod has Succeeded or Failed.
func IsPodTerminal(pod *Pod) bool {
	return pod.Status.Phase == PodSucceeded || pod.Status.Phase == PodFailed
}

// UpdatePodCondition sets c in status, adding it or replacing the condition
// of the same type. LastTransitionTime is kept when the status did not
// change and set to now when it did and c carries none. It reports whether
// anything changed.
func UpdatePodCondition(status *PodStatus, c PodCondition) bool {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = meta.Now()
	}
	i, old := GetPodCondition(status, c.Type)
	if old == nil {
		status.Conditions = append(status.Conditions, c)
		return true
	}
	if old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	same := old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message &&
		old.LastProbeTime.Equal(c.LastProbeTime.Time) && old.ObservedGeneration == c.ObservedGeneration
	status.Conditions[i] = c
	return !same
}

// IsRestartableInitContainer reports whether c is a sidecar: an init
// container with restartPolicy Always.
func IsRestartableInitContainer(c *Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == ContainerRestartPolicyAlways
}

// qosResources are the resources that decide a pod's QoS class.
var qosResources = [...]ResourceName{ResourceCPU, ResourceMemory}

// GetPodQOS returns the pod's QoS class: status.qosClass when the
// kubelet or API server has set it, else ComputePodQOS.
func GetPodQOS(pod *Pod) PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return ComputePodQOS(pod)
}

// ComputePodQOS derives the QoS class from the containers (init and app)
// as Kubernetes does: no CPU or memory requests or limits anywhere is
// BestEffort; every container limiting both CPU and memory with requests
// equal to limits is Guaranteed; anything else is Burstable.
func ComputePodQOS(pod *Pod) PodQOSClass {
	requests, limits := ResourceList{}, ResourceList{}
	guaranteed := true
	all := make([]*Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		all = append(all, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		all = append(all, &pod.Spec.Containers[i])
	}
	for _, c := range all {
		limited := 0
		for _, name := range qosResources {
			if q, ok := c.Resources.Requests[name]; ok && q.Sign() > 0 {
				addResourceList(requests, ResourceList{name: q})
			}
			if q, ok := c.Resources.Limits[name]; ok && q.Sign() > 0 {
				addResourceList(limits, ResourceList{name: q})
				limited++
			}
		}
		if limited != len(qosResources) {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return PodQOSGuaranteed
	}
	return PodQOSBurstable
}

// PodRequests returns the resources the scheduler reserves for pod, as
// Kubernetes computes them: the sum of the app containers' requests (plus
// sidecars, which run alongside), or the largest request any init
// container needs while it runs (plus the sidecars started before it),
// whichever is larger per resource, plus the pod overhead. The result is a
// new list the caller owns.
func PodRequests(pod *Pod) ResourceList {
	reqs := ResourceList{}
	for i := range pod.Spec.Containers {
		addResourceList(reqs, pod.Spec.Containers[i].Resources.Requests)
	}
	sidecars, initReqs := ResourceList{}, ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if IsRestartableInitContainer(c) {
			addResourceList(sidecars, c.Resources.Requests)
			maxResourceList(initReqs, sidecars)
			continue
		}
		running := sidecars.DeepCopy()
		addResourceList(running, c.Resources.Requests)
		maxResourceList(initReqs, running)
	}
	addResourceList(reqs, sidecars)
	maxResourceList(reqs, initReqs)
	addResourceList(reqs, pod.Spec.Overhead)
	return reqs
}
