package admission

import (
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// QuotaObjects lists the objects of one resource in a quota's namespace,
// for QuotaUsed. An error (the resource is not served, a list failed)
// leaves the resources it would charge out of the result.
type QuotaObjects func(gr meta.GroupResource) ([]meta.Object, error)

// QuotaResources returns the resources whose objects charge the quota
// names of hard, in a stable order: the object counts name their resource
// ("pods", "count/deployments.apps"), the compute names (cpu, requests.*,
// limits.*, hugepages, extended resources) charge pods, requests.storage
// and per-storage-class names charge persistentvolumeclaims, and
// services.nodeports and services.loadbalancers charge services. Names
// that charge nothing are left out.
func QuotaResources(hard core.ResourceList) []meta.GroupResource {
	seen := map[meta.GroupResource]bool{}
	var out []meta.GroupResource
	for _, name := range sortedKeys(hard) {
		gr, ok := chargedResource(name)
		if ok && !seen[gr] {
			seen[gr] = true
			out = append(out, gr)
		}
	}
	return out
}

// chargedResource is the resource whose objects charge a quota name.
func chargedResource(name core.ResourceName) (meta.GroupResource, bool) {
	for gr, legacy := range legacyCountNames {
		if legacy == name {
			return gr, true
		}
	}
	if rest, ok := strings.CutPrefix(string(name), QuotaCountPrefix); ok {
		res, group, _ := strings.Cut(rest, ".")
		return meta.GroupResource{Group: group, Resource: res}, res != ""
	}
	for _, gr := range []meta.GroupResource{podsResource, pvcsResource, servicesResource} {
		if quotaTracks(gr, name) {
			return gr, true
		}
	}
	return meta.GroupResource{}, false
}

var servicesResource = meta.GroupResource{Resource: "services"}

// QuotaUsed computes what q's status.used should be, as Kubernetes' quota
// controller does: for every name of spec.hard that some resource
// charges, the sum of what the objects of q's namespace that fall under
// q's scopes charge (zero when none do). Pods that have finished
// (Succeeded, Failed) or whose deletion grace period has passed at now are
// not charged. Names of resources objects could not be listed for are
// left out, so the admission plugin sees their usage as unknown.
func QuotaUsed(q *core.ResourceQuota, objects QuotaObjects, now time.Time) core.ResourceList {
	used := core.ResourceList{}
	for _, gr := range QuotaResources(q.Spec.Hard) {
		objs, err := objects(gr)
		if err != nil {
			continue
		}
		var tracked []core.ResourceName
		for name := range q.Spec.Hard {
			if quotaTracks(gr, name) {
				tracked = append(tracked, name)
				if _, ok := used[name]; !ok {
					used[name] = *resource.NewQuantity(0, resource.DecimalSI)
				}
			}
		}
		for _, obj := range objs {
			if !chargeable(obj, now) || !quotaMatchesScopes(q, obj) {
				continue
			}
			for name, v := range mask(ObjectUsage(gr, obj), tracked) {
				sum := used[name]
				sum.Add(v)
				used[name] = sum
			}
		}
	}
	return used
}

// QuotaCharge is what obj, of resource gr, charges against quota at now:
// ObjectUsage, or nothing for a pod that no longer counts (finished, or
// deleted past its grace period). The quota controller compares it before
// and after an update to know whether usage moved.
func QuotaCharge(gr meta.GroupResource, obj meta.Object, now time.Time) core.ResourceList {
	if !chargeable(obj, now) {
		return core.ResourceList{}
	}
	return ObjectUsage(gr, obj)
}

// chargeable reports whether obj still counts against quota: a pod that
// has finished, or is being deleted past its grace period (stuck on a lost
// node), does not.
func chargeable(obj meta.Object, now time.Time) bool {
	pod, ok := obj.(*core.Pod)
	if !ok {
		return true
	}
	if pod.Status.Phase == core.PodSucceeded || pod.Status.Phase == core.PodFailed {
		return false
	}
	m := pod.GetObjectMeta()
	if m.DeletionTimestamp != nil && m.DeletionGracePeriodSeconds != nil {
		end := m.DeletionTimestamp.Add(time.Duration(*m.DeletionGracePeriodSeconds) * time.Second)
		return !now.After(end)
	}
	return true
}
