package core

import (
	"fmt"
	"net"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateService checks a Service: a DNS-1035 name; ports (required
// unless headless or ExternalName; named when several; unique names and
// port/protocol pairs; valid numbers, protocols and target ports; node
// ports only for NodePort and LoadBalancer); the type and session
// affinity; cluster and external IPs; the selector; the traffic policies.
func ValidateService(svc *Service) field.ErrorList {
	errs := validation.ValidateObjectMeta(&svc.ObjectMeta, true, validation.NameIsDNS1035Label, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	spec := &svc.Spec
	errs = append(errs, validateEnum(spec.Type, true, sp.Child("type"),
		ServiceTypeClusterIP, ServiceTypeExternalName, ServiceTypeLoadBalancer, ServiceTypeNodePort)...)
	if len(spec.Ports) == 0 && !svc.IsHeadless() && spec.Type != ServiceTypeExternalName {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	errs = append(errs, validateServicePorts(spec, sp.Child("ports"))...)
	errs = append(errs, validateServiceIPs(spec, sp)...)
	errs = append(errs, validateSessionAffinity(spec, sp)...)
	errs = append(errs, validateTrafficPolicies(svc, sp)...)
	errs = append(errs, validation.ValidateLabels(spec.Selector, sp.Child("selector"))...)
	if spec.Type == ServiceTypeExternalName {
		name := strings.TrimSuffix(spec.ExternalName, ".")
		if name == "" {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		} else {
			errs = append(errs, validateDNS1123Subdomain(name, sp.Child("externalName"))...)
		}
	}
	if len(spec.LoadBalancerSourceRanges) > 0 && spec.Type != ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(sp.Child("loadBalancerSourceRanges"), "may only be used when `type` is 'LoadBalancer'"))
	}
	for i, r := range spec.LoadBalancerSourceRanges {
		errs = append(errs, invalidAll(sp.Child("loadBalancerSourceRanges").Index(i), r, validation.IsCIDR(strings.TrimSpace(r)))...)
	}
	return errs
}

func validateServicePorts(spec *ServiceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names, pairs, nodePorts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, port := range spec.Ports {
		ip := p.Index(i)
		switch {
		case port.Name == "" && len(spec.Ports) > 1:
			errs = append(errs, field.Required(ip.Child("name"), ""))
		case port.Name != "":
			errs = append(errs, validateDNS1123Label(port.Name, ip.Child("name"))...)
			if names[port.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		errs = append(errs, invalidAll(ip.Child("port"), port.Port, validation.IsValidPortNum(int(port.Port)))...)
		errs = append(errs, validateEnum(port.Protocol, true, ip.Child("protocol"), ProtocolSCTP, ProtocolTCP, ProtocolUDP)...)
		errs = append(errs, validatePortNumOrName(port.TargetPort, ip.Child("targetPort"))...)
		if port.AppProtocol != nil {
			errs = append(errs, validateQualifiedName(*port.AppProtocol, ip.Child("appProtocol"))...)
		}
		key := fmt.Sprintf("%d/%s", port.Port, port.Protocol)
		if pairs[key] {
			errs = append(errs, field.Duplicate(ip, key))
		}
		pairs[key] = true
		errs = append(errs, validateNodePort(spec.Type, port, nodePorts, ip.Child("nodePort"))...)
		if spec.Type == ServiceTypeLoadBalancer && port.Port == 10250 {
			errs = append(errs, field.Invalid(ip, port.Port, "may not expose port 10250 externally since it is used by kubelet"))
		}
	}
	return errs
}

func validateNodePort(t ServiceType, port ServicePort, seen map[string]bool, p *field.Path) field.ErrorList {
	if port.NodePort == 0 {
		return nil
	}
	if t != ServiceTypeNodePort && t != ServiceTypeLoadBalancer {
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("may not be used when `type` is '%s'", t))}
	}
	errs := invalidAll(p, port.NodePort, validation.IsValidPortNum(int(port.NodePort)))
	key := fmt.Sprintf("%d/%s", port.NodePort, port.Protocol)
	if seen[key] {
		errs = append(errs, field.Duplicate(p, port.NodePort))
	}
	seen[key] = true
	return errs
}

func validateServiceIPs(spec *ServiceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Type == ServiceTypeExternalName {
		if spec.ClusterIP != "" || len(spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(p.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
	} else if spec.ClusterIP != "" && spec.ClusterIP != ClusterIPNone {
		errs = append(errs, invalidAll(p.Child("clusterIP"), spec.ClusterIP, validation.IsValidIP(spec.ClusterIP))...)
	}
	cp := p.Child("clusterIPs")
	if len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] != spec.ClusterIP {
		errs = append(errs, field.Invalid(cp.Index(0), spec.ClusterIPs[0], "first value must match `clusterIP`"))
	}
	if len(spec.ClusterIPs) > 2 {
		errs = append(errs, field.Invalid(cp, strings.Join(spec.ClusterIPs, ","), "may only hold up to 2 values"))
	}
	for i, ip := range spec.ClusterIPs {
		if ip != ClusterIPNone {
			errs = append(errs, invalidAll(cp.Index(i), ip, validation.IsValidIP(ip))...)
		}
	}
	for i, ip := range spec.ExternalIPs {
		ep := p.Child("externalIPs").Index(i)
		if msgs := validation.IsValidIP(ip); len(msgs) != 0 {
			errs = append(errs, invalidAll(ep, ip, msgs)...)
		} else {
			errs = append(errs, validateNonSpecialIP(ip, ep)...)
		}
	}
	for i, f := range spec.IPFamilies {
		errs = append(errs, validateEnum(f, true, p.Child("ipFamilies").Index(i), IPv4Protocol, IPv6Protocol)...)
	}
	if spec.IPFamilyPolicy != nil {
		errs = append(errs, validateEnum(*spec.IPFamilyPolicy, true, p.Child("ipFamilyPolicy"),
			IPFamilyPolicyPreferDualStack, IPFamilyPolicyRequireDualStack, IPFamilyPolicySingleStack)...)
	}
	return errs
}

func validateSessionAffinity(spec *ServiceSpec, p *field.Path) field.ErrorList {
	errs := validateEnum(spec.SessionAffinity, true, p.Child("sessionAffinity"), ServiceAffinityClientIP, ServiceAffinityNone)
	cfg := spec.SessionAffinityConfig
	switch {
	case spec.SessionAffinity == ServiceAffinityClientIP:
		if cfg == nil || cfg.ClientIP == nil || cfg.ClientIP.TimeoutSeconds == nil {
			return append(errs, field.Required(p.Child("sessionAffinityConfig"), "when session affinity type is ClientIP"))
		}
		if t := *cfg.ClientIP.TimeoutSeconds; t <= 0 || t > MaxClientIPServiceAffinitySeconds {
			errs = append(errs, field.Invalid(p.Child("sessionAffinityConfig", "clientIP", "timeoutSeconds"), t,
				fmt.Sprintf("must be greater than 0 and less than %d", MaxClientIPServiceAffinitySeconds)))
		}
	case cfg != nil:
		errs = append(errs, field.Invalid(p.Child("sessionAffinityConfig"), "",
			fmt.Sprintf("must not be set when session affinity is %s", spec.SessionAffinity)))
	}
	return errs
}

func validateTrafficPolicies(svc *Service, p *field.Path) field.ErrorList {
	spec := &svc.Spec
	var errs field.ErrorList
	if svc.ExternallyAccessible() {
		errs = append(errs, validateEnum(spec.ExternalTrafficPolicy, true, p.Child("externalTrafficPolicy"),
			ServiceExternalTrafficPolicyCluster, ServiceExternalTrafficPolicyLocal)...)
	} else if spec.ExternalTrafficPolicy != "" {
		errs = append(errs, field.Invalid(p.Child("externalTrafficPolicy"), string(spec.ExternalTrafficPolicy),
			"may only be set for externally-accessible services"))
	}
	if spec.HealthCheckNodePort != 0 && !(spec.Type == ServiceTypeLoadBalancer &&
		spec.ExternalTrafficPolicy == ServiceExternalTrafficPolicyLocal) {
		errs = append(errs, field.Invalid(p.Child("healthCheckNodePort"), spec.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	}
	if spec.Type != ServiceTypeExternalName {
		if spec.InternalTrafficPolicy == nil {
			errs = append(errs, field.Required(p.Child("internalTrafficPolicy"), ""))
		} else {
			errs = append(errs, validateEnum(*spec.InternalTrafficPolicy, true, p.Child("internalTrafficPolicy"),
				ServiceInternalTrafficPolicyCluster, ServiceInternalTrafficPolicyLocal)...)
		}
	}
	return errs
}

// ValidateServiceUpdate checks svc as a replacement for old: valid on its
// own, metadata changed as metadata may, and the cluster IP unchanged
// unless the type moves to or from ExternalName. (An API server that
// accepts a replacement without a cluster IP copies the old one in first,
// as Kubernetes does.)
func ValidateServiceUpdate(svc, old *Service) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if svc.Spec.Type != ServiceTypeExternalName && old.Spec.Type != ServiceTypeExternalName && old.Spec.ClusterIP != "" {
		errs = append(errs, validateImmutable(svc.Spec.ClusterIP, old.Spec.ClusterIP, field.NewPath("spec", "clusterIP"))...)
	}
	return append(errs, ValidateService(svc)...)
}

// ValidateServiceStatusUpdate checks a status update: load balancer
// ingress entries carry valid IPs.
func ValidateServiceStatusUpdate(svc, old *Service) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	ip := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			errs = append(errs, invalidAll(ip.Index(i).Child("ip"), in.IP, validation.IsValidIP(in.IP))...)
		}
		if in.Hostname != "" {
			errs = append(errs, validateDNS1123Subdomain(in.Hostname, ip.Index(i).Child("hostname"))...)
		}
	}
	return errs
}

// ValidateEndpoints checks an Endpoints object: every subset has
// addresses, every address a valid, non-special IP, every port a valid
// number and protocol, named when there are several.
func ValidateEndpoints(ep *Endpoints) field.ErrorList {
	errs := validation.ValidateObjectMeta(&ep.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("subsets")
	for i, ss := range ep.Subsets {
		ip := sp.Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(ip, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(&ss.Addresses[j], ip.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(&ss.NotReadyAddresses[j], ip.Child("notReadyAddresses").Index(j))...)
		}
		for j, port := range ss.Ports {
			pp := ip.Child("ports").Index(j)
			if port.Name == "" && len(ss.Ports) > 1 {
				errs = append(errs, field.Required(pp.Child("name"), ""))
			} else if port.Name != "" {
				errs = append(errs, validateDNS1123Label(port.Name, pp.Child("name"))...)
			}
			errs = append(errs, invalidAll(pp.Child("port"), port.Port, validation.IsValidPortNum(int(port.Port)))...)
			errs = append(errs, validateEnum(port.Protocol, true, pp.Child("protocol"), ProtocolSCTP, ProtocolTCP, ProtocolUDP)...)
		}
	}
	return errs
}

// validateNonSpecialIP rejects addresses no endpoint may have: unspecified,
// loopback, link-local and link-local multicast.
func validateNonSpecialIP(s string, p *field.Path) field.ErrorList {
	ip := net.ParseIP(s)
	switch {
	case ip == nil:
		return nil
	case ip.IsUnspecified():
		return field.ErrorList{field.Invalid(p, s, "may not be unspecified (0.0.0.0, ::)")}
	case ip.IsLoopback():
		return field.ErrorList{field.Invalid(p, s, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case ip.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(p, s, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case ip.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(p, s, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

func validateEndpointAddress(a *EndpointAddress, p *field.Path) field.ErrorList {
	errs := invalidAll(p.Child("ip"), a.IP, validation.IsValidIP(a.IP))
	errs = append(errs, validateNonSpecialIP(a.IP, p.Child("ip"))...)
	if a.Hostname != "" {
		errs = append(errs, validateDNS1123Label(a.Hostname, p.Child("hostname"))...)
	}
	if a.NodeName != nil {
		errs = append(errs, validateDNS1123Subdomain(*a.NodeName, p.Child("nodeName"))...)
	}
	return errs
}
