package admission

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// Quota resource names and affixes beyond those api/core names.
const (
	// QuotaCountPrefix starts object-count quota names: "count/pods",
	// "count/deployments.apps".
	QuotaCountPrefix = "count/"
	// StorageClassQuotaInfix joins a storage class and a claim resource:
	// "gold.storageclass.storage.k8s.io/requests.storage".
	StorageClassQuotaInfix = ".storageclass.storage.k8s.io/"
	// betaStorageClassAnnotation is the pre-field way to name a claim's class.
	betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
)

// legacyCountNames are the object counts quotas had before count/<resource>.
var legacyCountNames = map[meta.GroupResource]core.ResourceName{
	{Resource: "pods"}:                   core.ResourcePods,
	{Resource: "services"}:               core.ResourceServices,
	{Resource: "configmaps"}:             core.ResourceConfigMaps,
	{Resource: "secrets"}:                core.ResourceSecrets,
	{Resource: "persistentvolumeclaims"}: core.ResourcePersistentVolumeClaims,
	{Resource: "resourcequotas"}:         core.ResourceQuotas,
	{Resource: "replicationcontrollers"}: core.ResourceReplicationControllers,
}

// podComputeNames are the compute quota names a pod is charged for, and
// podConstrainedNames those every container must state when a quota
// limits them (Kubernetes' backward-compatibility rule).
var (
	podComputeNames = []core.ResourceName{
		core.ResourceCPU, core.ResourceMemory, core.ResourceEphemeralStorage,
		core.ResourceRequestsCPU, core.ResourceRequestsMemory, core.ResourceRequestsEphemeral,
		core.ResourceLimitsCPU, core.ResourceLimitsMemory, core.ResourceLimitsEphemeral,
	}
	podConstrainedNames = []core.ResourceName{
		core.ResourceCPU, core.ResourceMemory, core.ResourceRequestsCPU,
		core.ResourceRequestsMemory, core.ResourceLimitsCPU, core.ResourceLimitsMemory,
	}
)

// CountQuotaName returns the object-count quota name of a resource:
// "count/pods", "count/deployments.apps".
func CountQuotaName(gr meta.GroupResource) core.ResourceName {
	return core.ResourceName(QuotaCountPrefix + gr.String())
}

// ObjectUsage returns what one object of resource gr charges against the
// quotas of its namespace: its object counts, and for pods the compute
// requests and limits, for claims the storage requested, for services the
// node ports and load balancers. The caller owns the result. The quota
// controller computes status.used with the same function.
func ObjectUsage(gr meta.GroupResource, obj meta.Object) core.ResourceList {
	usage := core.ResourceList{CountQuotaName(gr): one()}
	if legacy, ok := legacyCountNames[gr]; ok {
		usage[legacy] = one()
	}
	switch o := obj.(type) {
	case *core.Pod:
		addList(usage, podComputeUsage(core.PodRequests(o), podLimits(o)))
	case *core.PersistentVolumeClaim:
		addList(usage, claimUsage(o))
	case *core.Service:
		addList(usage, serviceUsage(o))
	}
	return usage
}

// podComputeUsage turns requests and limits into compute quota names.
func podComputeUsage(requests, limits core.ResourceList) core.ResourceList {
	out := core.ResourceList{}
	for _, r := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory, core.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			out[r] = q.DeepCopy()
			out[core.ResourceRequestsPrefix+r] = q.DeepCopy()
		}
		if q, ok := limits[r]; ok {
			out[core.ResourceLimitsPrefix+r] = q.DeepCopy()
		}
	}
	for r, q := range requests {
		switch {
		case strings.HasPrefix(string(r), core.ResourceHugePagesPrefix):
			out[r] = q.DeepCopy()
			out[core.ResourceRequestsPrefix+r] = q.DeepCopy()
		case isExtendedResource(r):
			out[core.ResourceRequestsPrefix+r] = q.DeepCopy()
		}
	}
	return out
}

// isExtendedResource reports whether r is an extended resource
// ("example.com/gpu"): qualified, outside kubernetes.io, not requests.*.
func isExtendedResource(r core.ResourceName) bool {
	s := string(r)
	return strings.Contains(s, "/") && !strings.HasPrefix(s, core.ResourceDefaultNamespacePrefix) &&
		!strings.HasPrefix(s, core.ResourceRequestsPrefix)
}

// claimClass returns the storage class of pvc, from the field or the beta annotation.
func claimClass(pvc *core.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func claimUsage(pvc *core.PersistentVolumeClaim) core.ResourceList {
	out := core.ResourceList{}
	class := claimClass(pvc)
	if class != "" {
		out[core.ResourceName(class+StorageClassQuotaInfix+string(core.ResourcePersistentVolumeClaims))] = one()
	}
	if q, ok := pvc.Spec.Resources.Requests[core.ResourceStorage]; ok {
		out[core.ResourceRequestsStorage] = q.DeepCopy()
		if class != "" {
			out[core.ResourceName(class+StorageClassQuotaInfix+string(core.ResourceRequestsStorage))] = q.DeepCopy()
		}
	}
	return out
}

func serviceUsage(svc *core.Service) core.ResourceList {
	out := core.ResourceList{}
	ports := *resource.NewQuantity(int64(len(svc.Spec.Ports)), resource.DecimalSI)
	switch svc.Spec.Type {
	case core.ServiceTypeNodePort:
		out[core.ResourceServicesNodePorts] = ports
	case core.ServiceTypeLoadBalancer:
		out[core.ResourceServicesLoadBalancers] = one()
		if a := svc.Spec.AllocateLoadBalancerNodePorts; a == nil || *a {
			out[core.ResourceServicesNodePorts] = ports
		}
	}
	return out
}

// quotaTracks reports whether a quota name can charge objects of gr.
func quotaTracks(gr meta.GroupResource, name core.ResourceName) bool {
	if name == CountQuotaName(gr) || legacyCountNames[gr] == name {
		return true
	}
	s := string(name)
	switch gr {
	case podsResource:
		return slices.Contains(podComputeNames, name) ||
			strings.HasPrefix(s, core.ResourceHugePagesPrefix) ||
			strings.HasPrefix(s, core.ResourceRequestsPrefix+core.ResourceHugePagesPrefix) ||
			(strings.HasPrefix(s, core.ResourceRequestsPrefix) && isExtendedResource(core.ResourceName(strings.TrimPrefix(s, core.ResourceRequestsPrefix))))
	case pvcsResource:
		return name == core.ResourceRequestsStorage ||
			strings.HasSuffix(s, StorageClassQuotaInfix+string(core.ResourceRequestsStorage)) ||
			strings.HasSuffix(s, StorageClassQuotaInfix+string(core.ResourcePersistentVolumeClaims))
	case meta.GroupResource{Resource: "services"}:
		return name == core.ResourceServicesNodePorts || name == core.ResourceServicesLoadBalancers
	}
	return false
}

// podConstraints returns the error Kubernetes gives when a quota limits
// cpu or memory and a container does not state it
// ("must specify limits.cpu for: web; requests.cpu for: web"), or nil.
func podConstraints(pod *core.Pod, restricted []core.ResourceName) string {
	var required []core.ResourceName
	for _, r := range restricted {
		if slices.Contains(podConstrainedNames, r) {
			required = append(required, r)
		}
	}
	missing := map[core.ResourceName][]string{}
	for _, c := range allContainers(pod) {
		have := podComputeUsage(c.Resources.Requests, c.Resources.Limits)
		for _, r := range required {
			if _, ok := have[r]; !ok && !slices.Contains(missing[r], c.Name) {
				missing[r] = append(missing[r], c.Name)
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var parts []string
	for _, r := range sortedKeys(missing) {
		names := slices.Clone(missing[r])
		slices.Sort(names)
		parts = append(parts, string(r)+" for: "+strings.Join(names, ","))
	}
	return "must specify " + strings.Join(parts, "; ")
}

// quotaMatchesScopes reports whether an object falls under the scopes of
// q. A quota without scopes matches everything; scoped quotas count only
// pods. Terminating means the pod has an activeDeadlineSeconds.
func quotaMatchesScopes(q *core.ResourceQuota, obj meta.Object) bool {
	var exprs []core.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		exprs = append(exprs, core.ScopedResourceSelectorRequirement{ScopeName: s, Operator: "Exists"})
	}
	if q.Spec.ScopeSelector != nil {
		exprs = append(exprs, q.Spec.ScopeSelector.MatchExpressions...)
	}
	if len(exprs) == 0 {
		return true
	}
	pod, ok := obj.(*core.Pod)
	if !ok {
		return false
	}
	for _, e := range exprs {
		if !podMatchesScope(pod, e) {
			return false
		}
	}
	return true
}

func podMatchesScope(pod *core.Pod, e core.ScopedResourceSelectorRequirement) bool {
	switch e.ScopeName {
	case core.ResourceQuotaScopeTerminating:
		return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
	case core.ResourceQuotaScopeNotTerminating:
		return pod.Spec.ActiveDeadlineSeconds == nil || *pod.Spec.ActiveDeadlineSeconds < 0
	case core.ResourceQuotaScopeBestEffort:
		return core.ComputePodQOS(pod) == core.PodQOSBestEffort
	case core.ResourceQuotaScopeNotBestEffort:
		return core.ComputePodQOS(pod) != core.PodQOSBestEffort
	case core.ResourceQuotaScopePriorityClass:
		pc := pod.Spec.PriorityClassName
		switch e.Operator {
		case "In":
			return slices.Contains(e.Values, pc)
		case "NotIn":
			return !slices.Contains(e.Values, pc)
		case "Exists":
			return pc != ""
		case "DoesNotExist":
			return pc == ""
		}
	case core.ResourceQuotaScopeCrossNamespacePodAffinity:
		return hasCrossNamespaceAffinity(pod)
	}
	return false
}

// hasCrossNamespaceAffinity reports whether a pod (anti-)affinity term of
// pod names namespaces or a namespace selector.
func hasCrossNamespaceAffinity(pod *core.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []core.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}
