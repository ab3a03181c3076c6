package core

import "github.com/orkit/orkit/api/meta"

// DefaultService fills a Service's defaults: sessionAffinity None (and a
// three-hour timeout for ClientIP), type ClusterIP, port protocol TCP,
// targetPort equal to port, externalTrafficPolicy Cluster for externally
// accessible services (NodePort, LoadBalancer, ClusterIP with external IPs), allocateLoadBalancerNodePorts true for
// LoadBalancer, internalTrafficPolicy Cluster except for ExternalName, and
// clusterIP and clusterIPs kept in step as Kubernetes' conversion keeps them.
// Cluster IPs and IP families are assigned by the API server, not here.
func DefaultService(svc *Service) {
	spec := &svc.Spec
	switch {
	case spec.ClusterIP == "" && len(spec.ClusterIPs) > 0:
		spec.ClusterIP = spec.ClusterIPs[0]
	case spec.ClusterIP != "" && len(spec.ClusterIPs) == 0:
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = ServiceAffinityNone
	}
	if spec.SessionAffinity == ServiceAffinityNone {
		// as Kubernetes defaults it: switching affinity off drops its config
		spec.SessionAffinityConfig = nil
	}
	if spec.SessionAffinity == ServiceAffinityClientIP &&
		(spec.SessionAffinityConfig == nil || spec.SessionAffinityConfig.ClientIP == nil ||
			spec.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil) {
		spec.SessionAffinityConfig = &SessionAffinityConfig{
			ClientIP: &ClientIPConfig{TimeoutSeconds: ptr(DefaultClientIPServiceAffinitySeconds)},
		}
	}
	if spec.Type == "" {
		spec.Type = ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = ProtocolTCP
		}
		if p.TargetPort == (meta.IntOrString{}) || p.TargetPort == meta.FromString("") {
			p.TargetPort = meta.FromInt(p.Port)
		}
	}
	if svc.ExternallyAccessible() && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = ServiceExternalTrafficPolicyCluster
	}
	if spec.Type == ServiceTypeLoadBalancer && spec.AllocateLoadBalancerNodePorts == nil {
		spec.AllocateLoadBalancerNodePorts = ptr(true)
	}
	if spec.Type != ServiceTypeExternalName && spec.InternalTrafficPolicy == nil {
		spec.InternalTrafficPolicy = ptr(ServiceInternalTrafficPolicyCluster)
	}
}

// DefaultEndpoints sets the protocol of every port with none to TCP.
func DefaultEndpoints(ep *Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if p := &ep.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = ProtocolTCP
			}
		}
	}
}

// DefaultNamespace fills a Namespace's defaults: the label
// kubernetes.io/metadata.name set to its name, the finalizer "kubernetes",
// and phase Active.
func DefaultNamespace(ns *Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[LabelMetadataName] = ns.Name
	}
	if !hasFinalizer(ns.Spec.Finalizers, FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, FinalizerKubernetes)
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = NamespaceActive
	}
}

func hasFinalizer(fs []FinalizerName, f FinalizerName) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// DefaultSecret sets the type of a Secret with none to Opaque and merges
// stringData into data, a stringData key replacing the same data key, then
// clears stringData: it is a write-only convenience that Kubernetes'
// conversion folds into data on every create and update, so it is never
// stored or returned.
func DefaultSecret(s *Secret) {
	if s.Type == "" {
		s.Type = SecretTypeOpaque
	}
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// DefaultNode fills podCIDR from podCIDRs or the other way round (as
// Kubernetes' conversion keeps them in step), rounds capacity and
// allocatable up to thousandths and sets allocatable to capacity when the
// node reports none.
func DefaultNode(n *Node) {
	switch {
	case n.Spec.PodCIDR == "" && len(n.Spec.PodCIDRs) > 0:
		n.Spec.PodCIDR = n.Spec.PodCIDRs[0]
	case n.Spec.PodCIDR != "" && len(n.Spec.PodCIDRs) == 0:
		n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	}
	roundUpToMilli(n.Status.Capacity)
	roundUpToMilli(n.Status.Allocatable)
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
}

// DefaultPersistentVolume fills a PersistentVolume's defaults: capacity
// rounded up to thousandths, reclaim
// policy Retain, volume mode Filesystem, phase Pending, an empty hostPath
// type.
func DefaultPersistentVolume(pv *PersistentVolume) {
	roundUpToMilli(pv.Spec.Capacity)
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptr(PersistentVolumeFilesystem)
	}
	if pv.Status.Phase == "" {
		pv.Status.Phase = VolumePending
	}
	if pv.Spec.HostPath != nil {
		defaultHostPath(pv.Spec.HostPath)
	}
}

// DefaultPersistentVolumeClaim fills a claim's defaults: quantities
// rounded up to thousandths, volume mode Filesystem and phase Pending.
func DefaultPersistentVolumeClaim(pvc *PersistentVolumeClaim) {
	roundUpToMilli(pvc.Spec.Resources.Requests)
	roundUpToMilli(pvc.Spec.Resources.Limits)
	if pvc.Spec.VolumeMode == nil {
		pvc.Spec.VolumeMode = ptr(PersistentVolumeFilesystem)
	}
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = ClaimPending
	}
}

// DefaultLimitRange rounds quantities up to thousandths and fills each
// Container limit's defaults as Kubernetes does: a resource with a max and no default gets the max as default; a
// resource with no default request gets the default, else the min.
func DefaultLimitRange(lr *LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		for _, l := range []ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			roundUpToMilli(l)
		}
		if item.Type != LimitTypeContainer {
			continue
		}
		for name, q := range item.Max {
			if _, ok := item.Default[name]; !ok {
				if item.Default == nil {
					item.Default = ResourceList{}
				}
				item.Default[name] = q.DeepCopy()
			}
		}
		for name, q := range item.Default {
			if _, ok := item.DefaultRequest[name]; !ok {
				if item.DefaultRequest == nil {
					item.DefaultRequest = ResourceList{}
				}
				item.DefaultRequest[name] = q.DeepCopy()
			}
		}
		for name, q := range item.Min {
			if _, ok := item.DefaultRequest[name]; !ok {
				if item.DefaultRequest == nil {
					item.DefaultRequest = ResourceList{}
				}
				item.DefaultRequest[name] = q.DeepCopy()
			}
		}
	}
}

// DefaultResourceQuota rounds the quota's hard limits up to thousandths.
func DefaultResourceQuota(q *ResourceQuota) {
	roundUpToMilli(q.Spec.Hard)
}
