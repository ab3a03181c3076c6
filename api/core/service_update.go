package core

import "slices"

// ExternallyAccessible reports whether svc takes traffic from outside the
// cluster: a NodePort or LoadBalancer Service, or a ClusterIP Service with
// external IPs. Only those have an externalTrafficPolicy.
func (s *Service) ExternallyAccessible() bool {
	switch s.Spec.Type {
	case ServiceTypeNodePort, ServiceTypeLoadBalancer:
		return true
	case ServiceTypeClusterIP:
		return len(s.Spec.ExternalIPs) > 0
	}
	return false
}

// DropServiceTypeDependentFields clears, in svc replacing old, what the
// new type no longer uses and the client left as old had it, as
// kube-apiserver's Service strategy does on update: the cluster IPs, IP
// families and family policy when the type becomes ExternalName; the node
// ports when it no longer needs any; the health check node port when it is
// no longer a LoadBalancer with policy Local; allocateLoadBalancerNodePorts
// and loadBalancerClass when it is no longer a LoadBalancer;
// externalTrafficPolicy when it is no longer externally accessible; and
// the load balancer status when it is not a LoadBalancer. A field the
// client changed as well is kept, for validation to judge. What is
// cleared here is released by the API server's allocator.
func DropServiceTypeDependentFields(svc, old *Service) {
	spec, ospec := &svc.Spec, &old.Spec
	if old.needsClusterIP() && !svc.needsClusterIP() {
		if spec.ClusterIP == ospec.ClusterIP && slices.Equal(spec.ClusterIPs, ospec.ClusterIPs) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(spec.IPFamilies, ospec.IPFamilies) {
			spec.IPFamilies = nil
		}
		if sameOptional(spec.IPFamilyPolicy, ospec.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
	}
	if old.usesNodePorts() && !svc.usesNodePorts() && nodePortsWithin(svc, old) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if old.needsHealthCheckNodePort() && !svc.needsHealthCheckNodePort() && spec.HealthCheckNodePort == ospec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
	if ospec.Type == ServiceTypeLoadBalancer && spec.Type != ServiceTypeLoadBalancer {
		a, b := spec.AllocateLoadBalancerNodePorts, ospec.AllocateLoadBalancerNodePorts
		if a != nil && b != nil && *a == *b {
			spec.AllocateLoadBalancerNodePorts = nil
		}
		if sameOptional(spec.LoadBalancerClass, ospec.LoadBalancerClass) {
			spec.LoadBalancerClass = nil
		}
	}
	if old.ExternallyAccessible() && !svc.ExternallyAccessible() && spec.ExternalTrafficPolicy == ospec.ExternalTrafficPolicy {
		spec.ExternalTrafficPolicy = ""
	}
	if spec.Type != ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = LoadBalancerStatus{}
	}
}

// needsClusterIP: every type but ExternalName has a cluster IP (or None).
func (s *Service) needsClusterIP() bool { return s.Spec.Type != ServiceTypeExternalName }

// usesNodePorts: the types that may carry node ports.
func (s *Service) usesNodePorts() bool {
	return s.Spec.Type == ServiceTypeNodePort || s.Spec.Type == ServiceTypeLoadBalancer
}

func (s *Service) needsHealthCheckNodePort() bool {
	return s.Spec.Type == ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == ServiceExternalTrafficPolicyLocal
}

// nodePortsWithin reports whether every node port svc names is one old
// had: the client may drop or move ports but asked for no new node port.
func nodePortsWithin(svc, old *Service) bool {
	had := map[int32]bool{}
	for _, p := range old.Spec.Ports {
		had[p.NodePort] = true
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !had[p.NodePort] {
			return false
		}
	}
	return true
}

func sameOptional[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
